/**
 * Starting the mock, as `ksctl mock serve` and the library's `startMock` do: the server, and what
 * a start that fails means in the user's words. An address that cannot be listened on is a usage
 * error that names it; anything else wrong with the state directory names the directory, whatever
 * the system call (an EACCES there is the directory's, not the address's).
 */
import { KsctlError, UsageError } from '../errors.js';
import { fileError } from '../files/fs-errors.js';
import { MockServer, type MockServerOptions } from '../mock/server.js';

export async function startMockServer(options: MockServerOptions): Promise<MockServer> {
  try {
    return await MockServer.start(options);
  } catch (error) {
    throw startError(error, options);
  }
}

function startError(error: unknown, options: MockServerOptions): unknown {
  const { code } = error as NodeJS.ErrnoException;
  const listening = listenError(error, options.host ?? '127.0.0.1', options.port ?? 0);
  if (listening !== error) return listening;
  if (options.stateDir !== undefined && code !== undefined && !(error instanceof KsctlError)) {
    return fileError('use the state directory', options.stateDir, error);
  }
  return error;
}

/**
 * An address that cannot be listened on as a usage error that names it (the mock, and the
 * recorder of `ksctl mock record`); any other error as it is.
 */
export function listenError(error: unknown, host: string, port: number): unknown {
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (code === 'EADDRINUSE') {
    return new UsageError(`port ${port} on ${host} is already in use`, {
      hint: {
        cli: 'pick another with --port, or --port 0 for any free port',
        code: 'pick another port, or port 0 for any free one',
      },
      cause: error,
    });
  }
  if (syscall === 'listen' && (code === 'EADDRNOTAVAIL' || code === 'EACCES')) {
    return new UsageError(`cannot listen on ${host}:${port} (${code})`, { cause: error });
  }
  return error;
}

/**
 * Starting the mock, as `ksctl mock serve` and the library's `startMock` do: the server, and what
 * a start that fails means in the user's words. An address that cannot be listened on is a usage
 * error that names it; anything else wrong with the state directory names the directory, whatever
 * the system call (an EACCES there is the directory's, not the address's). And the certificate
 * the mock speaks HTTPS with, by the same rules for the CLI's flags and the library's options.
 */
import { KsctlError, UsageError } from '../../common/errors.js';
import { fileError } from '../../common/files/fs-errors.js';
import type { TlsIdentity } from '../../mock/local-ca.js';
import { MockServer, type MockServerOptions } from '../../mock/server.js';

/**
 * How the mock gets its certificate, whoever asks (`mock serve --tls`, `startMock({ tls })`):
 * the local CA in `configDir/mock-ca/` (made or reused) for the loopback names, the host when it
 * names one address, and `names`; or the user's own certificate and key, as files
 * (`--tls-cert`, `--tls-key`) or PEM text (the library's `tls: { cert, key }`).
 */
export type MockTlsChoice =
  | {
      kind: 'local';
      configDir: string;
      /** Where the mock listens: a single non-loopback address joins the names. */
      host: string;
      names: readonly string[];
      /** What each name is called in an error (`--tls-name`, `tls.names[0]`). */
      nameLabel: (index: number) => string;
      note?: (message: string) => void;
    }
  | {
      kind: 'files';
      certFile: string;
      keyFile: string;
    }
  | {
      kind: 'own';
      cert: string;
      key: string;
      /** How errors name the certificate and the key. */
      says: { cert: string; key: string; certPlace: string };
    };

/** The certificate and key the mock listens with, by `choice`. */
export async function mockTlsIdentity(choice: MockTlsChoice): Promise<TlsIdentity> {
  const { certificateNames, isLoopbackHost, localTlsIdentity, pairedTlsIdentity, userTlsIdentity } =
    await import('../../mock/local-ca.js');
  if (choice.kind === 'files') return userTlsIdentity(choice.certFile, choice.keyFile);
  if (choice.kind === 'own') return pairedTlsIdentity(choice.cert, choice.key, choice.says);
  const host = choice.host.replace(/^\[(.*)\]$/, '$1');
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  const asked = wildcard || isLoopbackHost(host) ? choice.names : [host, ...choice.names];
  const shift = asked.length - choice.names.length;
  const names = certificateNames(asked, (i) =>
    i < shift ? 'the host' : choice.nameLabel(i - shift),
  );
  return localTlsIdentity(choice.configDir, names, choice.note);
}

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

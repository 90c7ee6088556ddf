/** How the library's clients reach the service: credentials, timeout and retries. */
import type { Auth, ClientOptions } from '../api/client.js';
import { UsageError } from '../../common/errors.js';

export interface ConnectionOptions {
  /** A bearer token (a mock's `token`). */
  token?: string;
  /** HTTP Basic credentials, instead of a token. */
  basic?: { username: string; password: string };
  /** Time each attempt may take, in milliseconds (default 30,000). */
  timeout?: number;
  /**
   * Extra attempts after the first (default 3): reads after a network failure or a 429, 502,
   * 503 or 504; writes only after a 429 or 503, which say nothing was done.
   */
  retries?: number;
  /** Sent as User-Agent (default `ksctl`). */
  userAgent?: string;
  /** One line per request, answer and retry, credentials redacted (what `--debug` prints). */
  trace?: (line: string) => void;
  /**
   * CA certificates (PEM) to trust instead of Node's: an HTTPS mock's `ca` (`startMock({ tls })`),
   * or a company's internal CA (what `--ca-file` is to the CLI). A server whose certificate does
   * not chain to them is refused.
   */
  ca?: string;
}

export function connectionAuth(options: ConnectionOptions): Auth {
  if (options.token !== undefined && options.basic !== undefined) {
    throw new UsageError('give token or basic, not both');
  }
  if (options.token !== undefined) {
    if (typeof options.token !== 'string' || options.token === '') {
      throw new UsageError('token must be a non-empty string');
    }
    return { kind: 'bearer', token: options.token };
  }
  if (options.basic !== undefined) {
    const { username, password } = options.basic;
    if (typeof username !== 'string' || typeof password !== 'string' || username === '') {
      throw new UsageError('basic needs a username and a password');
    }
    return { kind: 'basic', username, password };
  }
  return { kind: 'none' };
}

/** The options that shape a connection, checked before any request: timing, retries, the CA. */
export function checkConnection(options: ConnectionOptions): void {
  const { timeout, retries } = options;
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0)) {
    throw new UsageError('timeout must be a number of milliseconds above 0');
  }
  if (retries !== undefined && !(Number.isInteger(retries) && retries >= 0)) {
    throw new UsageError('retries must be a whole number, 0 or more');
  }
  const { ca } = options;
  if (ca !== undefined && !(typeof ca === 'string' && ca.includes('-----BEGIN CERTIFICATE-----'))) {
    throw new UsageError('ca must be PEM text of one or more CA certificates');
  }
}

/** The ApiClient options of a connection; what is not given keeps the client's default. */
export function clientOptions(
  baseUrl: string | undefined,
  auth: Auth,
  options: ConnectionOptions,
  retries = options.retries,
): ClientOptions {
  const given: ClientOptions = { auth };
  if (baseUrl !== undefined) given.baseUrl = baseUrl;
  if (options.timeout !== undefined) given.timeoutMs = options.timeout;
  if (retries !== undefined) given.retries = retries;
  if (options.userAgent !== undefined) given.userAgent = options.userAgent;
  if (options.trace !== undefined) given.trace = options.trace;
  if (options.ca !== undefined) given.ca = options.ca;
  return given;
}

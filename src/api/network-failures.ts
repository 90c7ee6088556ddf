/**
 * A request that got no answer, in plain words: what failed on the way (never the errno or the
 * runtime's own text) and what the user can do about it.
 */

export const TIMED_OUT = 'timed out';

/** Network failures in plain words; never the errno or the runtime's own text. */
const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'the host name could not be looked up (DNS)',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed',
  UND_ERR_SOCKET: 'the connection was closed',
  UND_ERR_CLOSED: 'the connection was closed',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  EADDRNOTAVAIL: 'the address is not available',
  ETIMEDOUT: TIMED_OUT,
  UND_ERR_HEADERS_TIMEOUT: TIMED_OUT,
  UND_ERR_BODY_TIMEOUT: TIMED_OUT,
  UND_ERR_CONNECT_TIMEOUT: TIMED_OUT,
};

export function networkMessage(error: unknown): string {
  const e = error as { code?: string; name?: string; cause?: unknown };
  if (e.name === 'TimeoutError') return TIMED_OUT;
  const reason = e.code === undefined ? undefined : NETWORK_REASONS[e.code];
  if (reason !== undefined) return reason;
  if (typeof e.code === 'string' && /CERT|SSL|TLS|SELF_SIGNED/i.test(e.code)) {
    return 'the TLS certificate was not accepted';
  }
  // fetch-style errors wrap the system error in `cause`.
  if (e.cause !== undefined && e.cause !== error) return networkMessage(e.cause);
  return 'the connection failed';
}

const IDEMPOTENT_READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** How often a request was tried, and how long it took in all (waits between tries too). */
export interface Tries {
  count: number;
  ms: number;
}

/**
 * What to do after no answer: a timeout names --timeout (and, after retries, how many tries and
 * how long in all, so the words match the wait), and a write may have landed.
 */
export function unreachableHint(
  reason: string,
  method: string,
  timeoutMs: number,
  underBase: boolean,
  tries: Tries = { count: 1, ms: timeoutMs },
): string {
  if (reason !== TIMED_OUT) {
    // A URL of its own (a profile's server, an enrollment URL) is not the base URL's to fix.
    return underBase
      ? 'check the base URL (--base-url, KSCTL_BASE_URL or the context) and that the service is running'
      : 'check that the service is running at that address';
  }
  const all =
    tries.count > 1 ? ` (${tries.count} tries, ${(tries.ms / 1000).toFixed(1)} s in all)` : '';
  const raise = `no answer within ${timeoutMs / 1000} s${all}; give it longer with --timeout SECONDS (or KSCTL_TIMEOUT)`;
  return IDEMPOTENT_READS.has(method)
    ? raise
    : `${raise}; the change may have been made even so: check before you retry`;
}

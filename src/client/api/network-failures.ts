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

const UNTRUSTED = 'its TLS certificate is not signed by a CA ksctl trusts';

/** What refused a server's certificate, or said TLS was not spoken: never worth a retry. */
const TLS_REASONS: Record<string, string> = {
  SELF_SIGNED_CERT_IN_CHAIN: UNTRUSTED,
  DEPTH_ZERO_SELF_SIGNED_CERT: UNTRUSTED,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: UNTRUSTED,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: UNTRUSTED,
  UNABLE_TO_GET_ISSUER_CERT: UNTRUSTED,
  CERT_UNTRUSTED: UNTRUSTED,
  CERT_SIGNATURE_FAILURE: UNTRUSTED,
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate does not name this host',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  CERT_NOT_YET_VALID: 'its TLS certificate is not valid yet',
  ERR_SSL_WRONG_VERSION_NUMBER: 'it does not speak TLS at that address (is it http://?)',
  ERR_SSL_PACKET_LENGTH_TOO_LONG: 'it does not speak TLS at that address (is it http://?)',
};

/** The code of a TLS refusal in `error` or its causes, or undefined when it is none. */
function tlsCode(error: unknown, depth = 0): string | undefined {
  const e = error as { code?: string; cause?: unknown } | undefined;
  if (e === undefined || e === null || depth > 4) return undefined;
  if (
    typeof e.code === 'string' &&
    (TLS_REASONS[e.code] !== undefined || /CERT|SSL|TLS/.test(e.code))
  )
    return e.code;
  return e.cause !== undefined && e.cause !== error ? tlsCode(e.cause, depth + 1) : undefined;
}

/** Whether no answer came because TLS failed: the same would happen on every retry. */
export function isTlsRefusal(error: unknown): boolean {
  return tlsCode(error) !== undefined;
}

/** What to do about a TLS refusal (networkMessage's reason), or undefined for another failure. */
export function tlsHint(reason: string): string | undefined {
  if (reason === UNTRUSTED) {
    return "trust its CA with --ca-file FILE, KSCTL_CA_FILE or `ksctl context set NAME ca-file FILE` (a ksctl mock's CA: `ksctl mock ca`); ksctl never skips the check";
  }
  if (reason === TLS_REASONS.ERR_TLS_CERT_ALTNAME_INVALID) {
    return 'use a name the certificate gives (a ksctl mock: start it with --tls-name NAME)';
  }
  if (reason === TLS_REASONS.ERR_SSL_WRONG_VERSION_NUMBER) {
    return "check the URL's scheme: the service may speak plain http:// there";
  }
  if (reason.startsWith('its TLS certificate')) return 'the server needs a current certificate';
  return undefined;
}

export function networkMessage(error: unknown): string {
  const e = error as { code?: string; name?: string; cause?: unknown };
  if (e.name === 'TimeoutError') return TIMED_OUT;
  const reason = e.code === undefined ? undefined : NETWORK_REASONS[e.code];
  if (reason !== undefined) return reason;
  if (typeof e.code === 'string' && TLS_REASONS[e.code] !== undefined) return TLS_REASONS[e.code]!;
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
  const tls = tlsHint(reason);
  if (tls !== undefined) return tls;
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

/**
 * What must never reach logs or --debug output: credentials in headers, URLs and bodies. Names
 * are matched by pattern, not by a list of exact names, so a header or member this file does not
 * know (X-Auth-Token, access_token, client_secret) is still hidden.
 */

export const REDACTED_TEXT = '[redacted]';

/** Names of JSON members, query parameters and headers whose values are secrets. */
const SECRET_NAME =
  /token|passw|pwd|secret|api[-_]?key|private[-_]?key|auth|cookie|session|credential|signature|stoken|sepaesk|aescd/i;

/** Exact names that are secrets here but too short or common to match as parts of other names. */
const SECRET_EXACT = new Set(['p', 's', 'g', 'key', 'sig', 'code', 'otp', 'pin']);

export function isSecretKey(name: string): boolean {
  return SECRET_NAME.test(name) || SECRET_EXACT.has(name.toLowerCase());
}

/** Authorization schemes: the one word of an Authorization header that may be shown. */
const AUTH_SCHEMES = new Set([
  'basic',
  'bearer',
  'digest',
  'negotiate',
  'ntlm',
  'token',
  'apikey',
  'dpop',
  'hoba',
  'mutual',
  'aws4-hmac-sha256',
]);

/** `Bearer [redacted]` when the value starts with a known scheme, else `[redacted]` alone. */
function redactAuthorization(value: string): string {
  const scheme = /^([A-Za-z][A-Za-z0-9-]*)\s+\S/.exec(value)?.[1];
  return scheme !== undefined && AUTH_SCHEMES.has(scheme.toLowerCase())
    ? `${scheme} ${REDACTED_TEXT}`
    : REDACTED_TEXT;
}

export function redactHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const v = Array.isArray(raw) ? raw.join(', ') : raw;
    const name = k.toLowerCase();
    if (name === 'authorization' || name === 'proxy-authorization') {
      out[k] = redactAuthorization(v);
    } else if (isSecretKey(name)) {
      out[k] = REDACTED_TEXT;
    } else {
      out[k] = redactUrl(v);
    }
  }
  return out;
}

/**
 * A URL (or text holding URLs) for showing: user and password left out, secret query parameters
 * replaced. Works on the text, so nothing else of the URL is re-encoded.
 */
export function redactUrl(text: string): string {
  return redactUrlsIn(redactQuery(text));
}

/** Secret parameters of a query string: `/x?token=abc&name=n` → `/x?token=[redacted]&name=n`. */
function redactQuery(text: string): string {
  return text.replace(/([?&;])([^=&;#\s]+)=([^&;#\s]*)/g, (whole, sep: string, name: string) =>
    isSecretKey(safeDecode(name)) ? `${sep}${name}=${REDACTED_TEXT}` : whole,
  );
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Userinfo of any http(s) URL inside free text (a Location or Link header, a message). */
function redactUrlsIn(text: string): string {
  return text.replace(/\b(https?:\/\/)[^\s/@?#]+@/gi, `$1${REDACTED_TEXT}@`);
}

/** A copy of a JSON value with secret members replaced, for tracing. */
export function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (typeof value === 'string') return /^https?:\/\//i.test(value) ? redactUrl(value) : value;
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // A numeric `code` is an error code (useful in a trace); a string one is a registration code.
    const secret = isSecretKey(k) && !(k.toLowerCase() === 'code' && typeof v === 'number');
    out[k] = secret ? REDACTED_TEXT : redactJson(v);
  }
  return out;
}

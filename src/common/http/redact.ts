/**
 * What must never reach logs or --debug output: credentials in headers, URLs and bodies. Names
 * are matched by pattern, not by a list of exact names, so a header or member this file does not
 * know (X-Auth-Token, access_token, client_secret) is still hidden.
 */

export const REDACTED_TEXT = '[redacted]';

/** Names of JSON members, query parameters and headers whose values are secrets. */
const SECRET_NAME =
  /token|passw|pwd|secret|api[-_]?key|private[-_]?key|auth|cookie|session|credential|signature|stoken|sepaesk|aescd|csrf|xsrf/i;

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

/** Secret values shorter than this are not looked for elsewhere in a text (too likely to recur). */
const SCRUB_MIN_CHARS = 8;

/**
 * A JSON text for showing, redacted as redactJson redacts the value it holds, but on the text: it
 * works on a body cut short or not quite JSON, and keeps the text's own spacing and order. A
 * secret member's value (a string, number, object or array) becomes `"[redacted]"`; URLs in
 * strings lose their secrets; and a secret string, once found under a secret name, is replaced
 * wherever else it occurs in the text (an `enroll` line quoting the token it was given, say).
 */
export function redactJsonText(text: string): string {
  const found = new Set<string>();
  let out = '';
  let at = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x22 /* " */) {
      i++;
      continue;
    }
    const end = stringEnd(text, i);
    let after = end;
    while (after < text.length && isJsonSpace(text.charCodeAt(after))) after++;
    if (text[after] !== ':') {
      // A string value: only URLs in it are touched.
      const closed = end - i > 1 && text[end - 1] === '"';
      const raw = text.slice(i + 1, closed ? end - 1 : end);
      if (/^https?:\/\//i.test(raw)) {
        out += `${text.slice(at, i)}"${redactUrl(raw)}${closed ? '"' : ''}`;
        at = end;
      }
      i = end;
      continue;
    }
    const name = jsonStringText(text.slice(i, end));
    let valueStart = after + 1;
    while (valueStart < text.length && isJsonSpace(text.charCodeAt(valueStart))) valueStart++;
    if (!isSecretKey(name) || valueStart >= text.length) {
      i = valueStart;
      continue;
    }
    const valueEnd = jsonValueEnd(text, valueStart);
    const value = text.slice(valueStart, valueEnd);
    // A numeric `code` is an error code, as in redactJson.
    if (name.toLowerCase() === 'code' && /^-?\d/.test(value)) {
      i = valueEnd;
      continue;
    }
    if (value.startsWith('"')) {
      const secret = value.slice(1, value.endsWith('"') && value.length > 1 ? -1 : undefined);
      if (secret.length >= SCRUB_MIN_CHARS) found.add(secret);
    }
    out += `${text.slice(at, valueStart)}"${REDACTED_TEXT}"`;
    at = valueEnd;
    i = valueEnd;
  }
  return scrubSecrets(out + text.slice(at), found);
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The index after the string that starts at `start` (its closing quote), or the text's end. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c /* \ */) i++;
    else if (c === 0x22) return i + 1;
  }
  return text.length;
}

/** The index after the JSON value that starts at `start`; the text's end when it is cut. */
function jsonValueEnd(text: string, start: number): number {
  const first = text[start];
  if (first === '"') return stringEnd(text, start);
  if (first === '{' || first === '[') {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (c === '"') i = stringEnd(text, i) - 1;
      else if (c === '{' || c === '[') depth++;
      else if ((c === '}' || c === ']') && --depth === 0) return i + 1;
    }
    return text.length;
  }
  let i = start;
  while (i < text.length && !/[,}\]\s]/.test(text[i]!)) i++;
  return i;
}

/** What a JSON string token says (its escapes read); the raw text when it is cut or odd. */
function jsonStringText(token: string): string {
  // Without an escape, the characters between the quotes are what it says (most member names).
  if (token.length >= 2 && token.endsWith('"') && !token.includes('\\')) return token.slice(1, -1);
  try {
    const value: unknown = JSON.parse(token);
    if (typeof value === 'string') return value;
  } catch {
    // falls through
  }
  return token.replace(/^"|"$/g, '');
}

/**
 * A form body (`application/x-www-form-urlencoded`) for showing: secret fields' values replaced,
 * and those values replaced wherever else they occur.
 */
export function redactFormText(text: string): string {
  const found = new Set<string>();
  const redacted = text
    .split('&')
    .map((field) => {
      const eq = field.indexOf('=');
      if (eq < 0) return field;
      const name = safeDecode(field.slice(0, eq).replace(/\+/g, ' '));
      if (!isSecretKey(name)) return field;
      const value = field.slice(eq + 1);
      if (value.length >= SCRUB_MIN_CHARS) found.add(value);
      const decoded = safeDecode(value.replace(/\+/g, ' '));
      if (decoded.length >= SCRUB_MIN_CHARS) found.add(decoded);
      return `${field.slice(0, eq)}=${REDACTED_TEXT}`;
    })
    .join('&');
  return scrubSecrets(redacted, found);
}

/** Every occurrence of the given secrets (of a useful length) replaced with `[redacted]`. */
export function scrubSecrets(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= SCRUB_MIN_CHARS && out.includes(secret)) {
      out = out.split(secret).join(REDACTED_TEXT);
    }
  }
  return out;
}

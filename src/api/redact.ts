/** Names of JSON members and headers whose values must never reach logs or --debug output. */
const SECRET_KEYS = new Set([
  'authorization',
  'token',
  'password',
  'stoken',
  'uidauth',
  'secret',
  'p',
  's',
  'g',
  'sepaesk',
  'sepaesk-idc',
  'aescdidckey',
  'aescdeikey',
  'x-ionic-reg-stoken',
  'x-ionic-reg-uidauth',
]);

export function isSecretKey(name: string): boolean {
  return SECRET_KEYS.has(name.toLowerCase());
}

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (!isSecretKey(k)) out[k] = v;
    else if (k.toLowerCase() === 'authorization') out[k] = `${v.split(' ')[0]} [redacted]`;
    else out[k] = '[redacted]';
  }
  return out;
}

/** A copy of a JSON value with secret members replaced, for tracing. */
export function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = isSecretKey(k) ? '[redacted]' : redactJson(v);
  return out;
}

/**
 * The one redaction of the request journal: every message is redacted here after its answer
 * (unredacted.ts), before anything of it is read, so whatever reads the journal (`GET
 * /_mock/requests`, `mock requests`, `mock requests show`, the console, a recording of the
 * exchanges) reads it redacted.
 *
 * Two passes, both on the body's bytes (a Latin-1 string, one character a byte), so a body that
 * is not UTF-8 is scrubbed before it is ever shown as Base64:
 *
 * - **By value**: the mock's own secrets (`JournalSecrets`: the dev token, users' passwords,
 *   minted STOKEN/UIDAUTH pairs, console codes, session ids and CSRF tokens, device keys, data
 *   keys, the portal's HMAC secret) in each form a client may send them: as they are, percent-
 *   or form-encoded, JSON-escaped, Base64, Base64url and hex. STOKEN and UIDAUTH are also found
 *   by their shape, so a pair minted before a restart is hidden too.
 * - **By name**, where the body parses: a JSON member, a form field, a `name=value` pair of a
 *   text body or a multipart part whose name is a secret's (src/common/http/redact.ts: `password`,
 *   `token`, `stoken`, `uidauth`, `auth`, …).
 *
 * A body that cannot be scrubbed safely (compressed, or multipart whose parts cannot be found)
 * is kept as its length and SHA-256 digest only.
 *
 * Cost: one pass over the kept bytes for the values (a rolling hash of each 8-byte window looked
 * up in one map, however many secrets there are), one for the names.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  isSecretKey,
  REDACTED_TEXT,
  redactHeaders,
  redactJsonText,
  scrubSecrets,
} from '../../common/http/redact.js';

/** The shortest secret looked for by value: shorter ones would match ordinary text. */
const ANCHOR = 8;
/** Secrets remembered at most; past it the oldest go (their names still hide them). */
const MAX_SECRETS = 50_000;
/** The rolling hash: a polynomial in 32-bit integer arithmetic (wrapping, so it rolls exactly). */
const HASH_BASE = 257;
/** HASH_BASE^(ANCHOR-1): what the byte leaving the window weighed. */
const HASH_HIGH = (() => {
  let high = 1;
  for (let i = 1; i < ANCHOR; i++) high = Math.imul(high, HASH_BASE);
  return high;
})();
/** A table of the hashes known, by their low bits: most windows are passed over by one look. */
const SEEN_BITS = 20;
const SEEN_MASK = (1 << SEEN_BITS) - 1;

/** STOKEN and UIDAUTH by their shape (src/mock/model/enrollment/tokens.ts). */
const TOKEN_SHAPES =
  /I\.[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])|,I[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{43}/g;

function anchorHash(text: string, at: number): number {
  let hash = 0;
  for (let i = at; i < at + ANCHOR; i++)
    hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(i)) | 0;
  return hash;
}

/** The forms a text secret may take in a message, each as bytes in a Latin-1 string. */
function textForms(secret: string): string[] {
  const utf8 = Buffer.from(secret, 'utf8');
  const json = JSON.stringify(secret).slice(1, -1);
  const form = new URLSearchParams({ x: secret }).toString().slice(2);
  return [
    utf8.toString('latin1'),
    Buffer.from(encodeURIComponent(secret), 'utf8').toString('latin1'),
    Buffer.from(form, 'utf8').toString('latin1'),
    Buffer.from(json, 'utf8').toString('latin1'),
    ...encodedForms(utf8),
  ];
}

/** Base64 (its whole characters, without the last one a shorter tail changes), Base64url, hex. */
function encodedForms(bytes: Buffer): string[] {
  const whole = bytes.length - (bytes.length % 3);
  const base64 = bytes.subarray(0, whole).toString('base64');
  return [
    base64,
    bytes.subarray(0, whole).toString('base64url'),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
  ];
}

/** A byte secret (a key) as raw bytes and in each encoding. */
function byteForms(secret: Buffer): string[] {
  return [secret.toString('latin1'), ...encodedForms(secret)];
}

/**
 * The mock's secrets, each in every form it may be sent in, found in a text in one pass. Told
 * of each secret as it comes to be (state.ts, the portal, the console's sign-in).
 */
export class JournalSecrets {
  /** Hash of a form's first ANCHOR bytes → the forms that start so. */
  private readonly byAnchor = new Map<number, string[]>();
  /** How many forms have a hash with these low bits (a hash not counted here is not known). */
  private readonly seen = new Uint16Array(1 << SEEN_BITS);
  /** Each secret's forms, oldest first, for letting the oldest go. */
  private readonly known = new Map<string, string[]>();

  /** A text secret (a token, a password) or a byte secret (a key). */
  add(secret: string | Buffer): void {
    const key = typeof secret === 'string' ? `t:${secret}` : `b:${secret.toString('hex')}`;
    if (typeof secret === 'string' && secret.length === 0) return;
    if (this.known.has(key)) return;
    const forms = [...new Set(typeof secret === 'string' ? textForms(secret) : byteForms(secret))];
    const kept = forms.filter((form) => form.length >= ANCHOR);
    this.known.set(key, kept);
    for (const form of kept) {
      const hash = anchorHash(form, 0);
      const list = this.byAnchor.get(hash);
      if (list) list.push(form);
      else this.byAnchor.set(hash, [form]);
      this.seen[hash & SEEN_MASK]!++;
    }
    if (this.known.size > MAX_SECRETS) this.forgetOldest();
  }

  /** How many secrets are known. */
  get size(): number {
    return this.known.size;
  }

  /** The bytes with every known secret, and every STOKEN and UIDAUTH, replaced. */
  scrub(bytes: string): string {
    let out = '';
    let at = 0;
    if (this.byAnchor.size > 0 && bytes.length >= ANCHOR) {
      const seen = this.seen;
      let hash = anchorHash(bytes, 0);
      for (let i = 0; ;) {
        // Most windows end here, at one look into the table: the map only for a hash it counts.
        const found = seen[hash & SEEN_MASK] !== 0 && this.longestAt(bytes, i, hash);
        if (found) {
          out += bytes.slice(at, i) + REDACTED_TEXT;
          i += found;
          at = i;
          if (i + ANCHOR > bytes.length) break;
          hash = anchorHash(bytes, i);
          continue;
        }
        if (i + ANCHOR >= bytes.length) break;
        hash =
          (Math.imul(hash - Math.imul(bytes.charCodeAt(i), HASH_HIGH), HASH_BASE) +
            bytes.charCodeAt(i + ANCHOR)) |
          0;
        i++;
      }
    }
    out = at === 0 ? bytes : out + bytes.slice(at);
    return out.replace(TOKEN_SHAPES, REDACTED_TEXT);
  }

  private longestAt(bytes: string, at: number, hash: number): number {
    let longest = 0;
    for (const form of this.byAnchor.get(hash) ?? []) {
      if (form.length > longest && bytes.startsWith(form, at)) longest = form.length;
    }
    return longest;
  }

  private forgetOldest(): void {
    const [key, forms] = this.known.entries().next().value!;
    this.known.delete(key);
    for (const form of forms) {
      const hash = anchorHash(form, 0);
      this.seen[hash & SEEN_MASK]!--;
      const left = this.byAnchor.get(hash)!.filter((f) => f !== form);
      if (left.length > 0) this.byAnchor.set(hash, left);
      else this.byAnchor.delete(hash);
    }
  }
}

/** A message as the journal keeps it: redacted headers, and the body redacted or withheld. */
export interface RedactedMessage {
  headers: Record<string, string>;
  /** The kept bytes as a Latin-1 string, redacted; undefined when withheld or absent. */
  body: string | undefined;
  /** `sha256:<hex>` of the whole body as received, when it could not be scrubbed safely. */
  withheld?: string;
}

/** What a header says, its repeated values joined. */
function headerText(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : value;
}

function isIdentity(headers: IncomingHttpHeaders | Record<string, string>): boolean {
  const coding = headerText(headers['content-encoding'])?.trim().toLowerCase() ?? '';
  return coding === '' || coding === 'identity';
}

function contentType(headers: IncomingHttpHeaders | Record<string, string>): string {
  return headerText(headers['content-type'])?.toLowerCase() ?? '';
}

/**
 * Whether a body with these headers may have to be withheld (compressed, or multipart whose parts
 * may not be found): its digest must then be taken from the whole body as it came.
 */
export function mayWithhold(headers: IncomingHttpHeaders | Record<string, string>): boolean {
  return !isIdentity(headers) || contentType(headers).startsWith('multipart/');
}

/** `sha256:<hex>` of the chunks, as a withheld body is shown. */
export function bodyDigest(chunks: readonly (Uint8Array | string)[]): string {
  const hash = createHash('sha256');
  for (const chunk of chunks)
    hash.update(typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk);
  return `sha256:${hash.digest('hex')}`;
}

/**
 * Headers and body redacted: the journal's one way in. The body is given as bytes in a Latin-1
 * string (the first bytes the journal keeps, plus enough more that a secret cut at the end is
 * still found; `cut` is where to cut after redaction), with `digest` (bodyDigest of the whole
 * body as it came) when `mayWithhold(headers)`.
 */
export function redactMessage(
  secrets: JournalSecrets,
  headers: IncomingHttpHeaders | Record<string, string>,
  body: { bytes: string; cut: number; digest: string | undefined } | undefined,
): RedactedMessage {
  const shown = redactHeaders(headers);
  for (const name of Object.keys(shown)) {
    // Header values are sent as Latin-1 bytes by Node: scrubbed as such, so `é` stays `é`.
    shown[name] = secrets.scrub(shown[name]!);
  }
  if (body === undefined) return { headers: shown, body: undefined };
  const byName = isIdentity(headers) ? redactByName(body.bytes, contentType(headers)) : undefined;
  // Only what mayWithhold names comes here; without its digest, nothing of the body is shown.
  if (byName === undefined) return { headers: shown, body: undefined, withheld: body.digest };
  const scrubbed = secrets.scrub(byName);
  // A secret replaced before the cut may leave the text shorter than the cut: nothing to cut.
  return { headers: shown, body: scrubbed.length > body.cut ? cut(scrubbed, body.cut) : scrubbed };
}

/** The first `max` characters as a string of its own (a slice would keep the whole alive). */
function cut(text: string, max: number): string {
  return Buffer.from(text.slice(0, max), 'latin1').toString('latin1');
}

/** The body with secret members, fields and parts replaced; undefined when it cannot be read. */
function redactByName(bytes: string, type: string): string | undefined {
  if (type.startsWith('multipart/')) return redactMultipart(bytes, type);
  if (/json/.test(type) || /^\s*[[{]/.test(bytes)) return redactJsonText(bytes);
  return redactPairs(bytes);
}

/** A `name=value` pair: after a start, `&`, `;`, `,`, `?` or white space. */
const PAIR = /(^|[&;,?\s])([^=&;,?\s]+)=([^&;,\s]*)/g;

/**
 * `name=value` pairs wherever they are: a form, a query string, a form sent as text/plain with a
 * newline after it. A secret's value is also replaced wherever else it occurs.
 */
function redactPairs(bytes: string): string {
  if (!bytes.includes('=')) return bytes;
  const found = new Set<string>();
  const out = bytes.replace(PAIR, (whole, start: string, name: string, value: string) => {
    if (!isSecretKey(formDecoded(name))) return whole;
    found.add(value);
    found.add(formDecoded(value));
    return `${start}${name}=${REDACTED_TEXT}`;
  });
  return scrubSecrets(out, found);
}

function formDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * Each part of a multipart body: a part whose name is a secret's replaced whole, the others by
 * their own content type. Undefined when the parts cannot be found.
 */
function redactMultipart(bytes: string, type: string): string | undefined {
  const boundary = /boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(type);
  const mark = `--${boundary?.[1] ?? boundary?.[2] ?? ''}`;
  if (mark === '--' || !bytes.startsWith(mark)) return undefined;
  const parts = bytes.split(mark);
  return parts
    .map((part, i) => {
      if (i === 0 || part.startsWith('--')) return part;
      const end = part.indexOf('\r\n\r\n');
      if (end < 0) return REDACTED_TEXT;
      const head = part.slice(0, end);
      const content = part.slice(end + 4);
      const name = /\bname="([^"]*)"/i.exec(head)?.[1] ?? /\bname=([^\s;]+)/i.exec(head)?.[1];
      const partType = /^content-type:\s*(.+)$/im.exec(head)?.[1]?.toLowerCase() ?? '';
      const tail = content.endsWith('\r\n') ? '\r\n' : '';
      const shown =
        name !== undefined && isSecretKey(name)
          ? REDACTED_TEXT
          : (redactByName(content.slice(0, content.length - tail.length), partType) ??
            REDACTED_TEXT);
      return `${head}\r\n\r\n${shown}${tail}`;
    })
    .join(mark);
}

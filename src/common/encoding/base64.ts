/**
 * Validating Base64 decoders. Node's `Buffer.from(text, 'base64')` skips characters it does not
 * know and ignores bad padding, so garbage decodes to some bytes; the enrollment protocol must
 * tell "not Base64" apart (causes 41703, 41704, 41706, 40002, 40008), hence these. And an
 * encoder for bytes that come in chunks.
 */

/** Base64 of bytes that arrive in chunks of any length: whole groups of three as they come. */
export class Base64Writer {
  private readonly parts: string[] = [];
  private rest = Buffer.alloc(0);

  write(bytes: Buffer): void {
    const all = this.rest.length === 0 ? bytes : Buffer.concat([this.rest, bytes]);
    const whole = all.length - (all.length % 3);
    this.parts.push(all.subarray(0, whole).toString('base64'));
    this.rest = Buffer.from(all.subarray(whole));
  }

  end(): string {
    this.parts.push(this.rest.toString('base64'));
    return this.parts.join('');
  }
}

/** URL-safe alphabet without padding (as JWTs and the mock's tokens use it). */
const URL_SAFE = /^[A-Za-z0-9_-]*$/;

/**
 * Decodes standard, padded Base64, or returns undefined when the text is not exactly that. Node
 * decodes what it can and skips the rest, so the round trip is the check: any character outside
 * the alphabet (whitespace, the URL-safe `-` and `_`, padding inside the text) and non-zero bits
 * in the last character (non-canonical text) make the re-encoded text differ, and one byte string
 * has exactly one accepted spelling. A regular expression over the text cost ten times as much
 * as the decoding itself on a 4 MiB envelope.
 */
export function decodeBase64Strict(text: string): Buffer | undefined {
  if (text.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

/** Decodes unpadded base64url, or returns undefined when the text is not exactly that. */
export function decodeBase64UrlStrict(text: string): Buffer | undefined {
  if (!URL_SAFE.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes UTF-8, or returns undefined for invalid byte sequences (never U+FFFD substitutes). */
export function decodeUtf8Strict(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

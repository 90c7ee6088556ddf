/**
 * The cryptography of the device request format (docs/design.md 2.4), shared by ksctl and the mock.
 * Every piece is AES-256-GCM with a 16-byte IV and the IV ‖ ciphertext ‖ tag layout of the
 * profile files, so it uses the same envelope helper; only keys, AADs and encodings differ:
 *
 * | what | key | AAD | encoding |
 * |---|---|---|---|
 * | request/answer envelope | SEP.CD:IDC | cid | Base64 |
 * | `csig` of a create ref | SEP.CD:KS | cid:ref | Base64, over SHA-256(cattrs) |
 * | `msig` of a modify | SEP.CD:KS | cid:id | Base64, over SHA-256(mattrs) |
 * | key in a create answer | SEP.CD:KS | cid:ref:id[:csig] | hex |
 * | key in a fetch answer | SEP.CD:KS | cid:id[:csig] | hex |
 * | `ionic-protected-*` sent | SEP.CD:KS | attribute name | Base64 of a JSON array |
 * | `ionic-protected-*` returned | data key | key id | Base64 of a JSON array |
 *
 * The service's own signatures (`csig`, `msig` in fetch answers) are HMAC-SHA256 keyed with
 * the data key over the attribute text, Base64.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { decodeBase64Strict, decodeUtf8Strict } from '../encoding/base64.js';
import { openGcmEnvelope, sealGcmEnvelope } from '../encoding/gcm-envelope.js';

export const DATA_KEY_BYTES = 32;

const utf8 = (text: string) => Buffer.from(text, 'utf8');

/** The AAD pieces joined as the protocol joins them. */
export function aad(...parts: string[]): string {
  return parts.join(':');
}

export function sealEnvelope(idcKey: Buffer, cid: string, content: unknown): string {
  return sealGcmEnvelope(idcKey, utf8(cid), utf8(JSON.stringify(content))).toString('base64');
}

export type OpenedEnvelope =
  | { ok: true; content: unknown }
  | { ok: false; reason: 'not-base64' | 'not-authentic' | 'not-json' };

/**
 * Opens an envelope to its bytes, for a reader that parses them itself (the mock bounds what a
 * device may send); a wrong key, a wrong cid and damage all read 'not-authentic'.
 */
export function openEnvelopeBytes(
  idcKey: Buffer,
  cid: string,
  envelope: string,
): { ok: true; plaintext: Buffer } | { ok: false; reason: 'not-base64' | 'not-authentic' } {
  const bytes = decodeBase64Strict(envelope);
  if (bytes === undefined) return { ok: false, reason: 'not-base64' };
  const opened = openGcmEnvelope(idcKey, utf8(cid), bytes);
  return opened.ok ? opened : { ok: false, reason: 'not-authentic' };
}

/** Opens an envelope; a wrong key, a wrong cid and damage all read 'not-authentic'. */
export function openEnvelope(idcKey: Buffer, cid: string, envelope: string): OpenedEnvelope {
  const opened = openEnvelopeBytes(idcKey, cid, envelope);
  if (!opened.ok) return opened;
  const text = decodeUtf8Strict(opened.plaintext);
  try {
    if (text !== undefined) return { ok: true, content: JSON.parse(text) };
  } catch {
    // falls through
  }
  return { ok: false, reason: 'not-json' };
}

/** A client's `csig`/`msig`: SHA-256 of the attribute text, sealed under SEP.CD:KS. */
export function signAttributes(ksKey: Buffer, aadText: string, attributes: string): string {
  const digest = createHash('sha256').update(attributes, 'utf8').digest();
  return sealGcmEnvelope(ksKey, utf8(aadText), digest).toString('base64');
}

/** Whether a client's signature seals exactly the SHA-256 of `attributes`. */
export function checkAttributeSignature(
  ksKey: Buffer,
  aadText: string,
  attributes: string,
  signature: string,
): boolean {
  const bytes = decodeBase64Strict(signature);
  if (bytes === undefined) return false;
  const opened = openGcmEnvelope(ksKey, utf8(aadText), bytes);
  if (!opened.ok) return false;
  const digest = createHash('sha256').update(attributes, 'utf8').digest();
  return opened.plaintext.length === digest.length && timingSafeEqual(opened.plaintext, digest);
}

/** The service's signature of the attributes it returns: HMAC-SHA256 under the data key. */
export function serviceSignature(dataKey: Buffer, attributes: string): string {
  return createHmac('sha256', dataKey).update(attributes, 'utf8').digest('base64');
}

export function checkServiceSignature(
  dataKey: Buffer,
  attributes: string,
  signature: string,
): boolean {
  const given = decodeBase64Strict(signature);
  const expected = createHmac('sha256', dataKey).update(attributes, 'utf8').digest();
  return (
    given !== undefined && given.length === expected.length && timingSafeEqual(given, expected)
  );
}

/** A data key as answers carry it: hex of the sealed 32 bytes. */
export function wrapDataKey(ksKey: Buffer, aadText: string, dataKey: Buffer): string {
  return sealGcmEnvelope(ksKey, utf8(aadText), dataKey).toString('hex');
}

/** The data key, or undefined when it does not open (wrong key, wrong AAD, damaged). */
export function unwrapDataKey(ksKey: Buffer, aadText: string, wrapped: string): Buffer | undefined {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(wrapped)) return undefined;
  const opened = openGcmEnvelope(ksKey, utf8(aadText), Buffer.from(wrapped, 'hex'));
  return opened.ok && opened.plaintext.length === DATA_KEY_BYTES ? opened.plaintext : undefined;
}

/** Attributes whose values travel encrypted, opaque to the service's policy. */
export function isProtectedAttribute(name: string): boolean {
  return name.startsWith('ionic-protected-') || name === 'ionic-integrity-hash';
}

/** The one opaque value of a protected attribute: its values as a JSON array, sealed. */
export function protectValues(key: Buffer, aadText: string, values: string[]): string {
  return sealGcmEnvelope(key, utf8(aadText), utf8(JSON.stringify(values))).toString('base64');
}

/** The values of a protected attribute, or undefined when it does not open or is not a list. */
export function openProtectedValues(
  key: Buffer,
  aadText: string,
  sealed: string,
): string[] | undefined {
  const bytes = decodeBase64Strict(sealed);
  if (bytes === undefined) return undefined;
  const opened = openGcmEnvelope(key, utf8(aadText), bytes);
  if (!opened.ok) return undefined;
  try {
    // A bare string is its one value (the JS SDK seals the value as its caller gives it).
    return asStringList(JSON.parse(opened.plaintext.toString('utf8')));
  } catch {
    return undefined;
  }
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * The values of an attribute as the SDKs send them: a list of strings, or a bare string for its
 * one value; undefined for anything else.
 */
export function asStringList(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  return isStringList(value) ? value : undefined;
}

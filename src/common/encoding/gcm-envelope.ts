/**
 * The encrypted body shared by the password and aesgcm persistors:
 * 16-byte IV || AES-256-GCM ciphertext || 16-byte tag. (The SDKs use a 16-byte IV, not the
 * usual 12, so files they wrote only open with the same length.)
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { publicRandomBytes } from './random-pool.js';

export const GCM_IV_BYTES = 16;
export const GCM_TAG_BYTES = 16;
export const GCM_KEY_BYTES = 32;

export function sealGcmEnvelope(key: Buffer, aad: Buffer, plaintext: Buffer): Buffer {
  const iv = publicRandomBytes(GCM_IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: GCM_TAG_BYTES });
  cipher.setAAD(aad);
  return Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

/**
 * The same envelope sealed from plaintext that comes in chunks: `start` (the IV), then what each
 * `update` gives, then `end()` (the rest and the tag), one after the other, are the envelope.
 */
export function gcmEnvelopeSealer(
  key: Buffer,
  aad: Buffer,
): { start: Buffer; update(plaintext: Buffer): Buffer; end(): Buffer } {
  const iv = publicRandomBytes(GCM_IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: GCM_TAG_BYTES });
  cipher.setAAD(aad);
  return {
    start: iv,
    update: (plaintext) => cipher.update(plaintext),
    end: () => Buffer.concat([cipher.final(), cipher.getAuthTag()]),
  };
}

export type OpenResult =
  { ok: true; plaintext: Buffer } | { ok: false; reason: 'too-short' | 'not-authentic' };

/**
 * Opens an envelope. A wrong key, wrong AAD and a damaged file all look the same to GCM
 * ('not-authentic'); callers phrase that for their format.
 */
export function openGcmEnvelope(key: Buffer, aad: Buffer, envelope: Buffer): OpenResult {
  if (envelope.length < GCM_IV_BYTES + GCM_TAG_BYTES) {
    return { ok: false, reason: 'too-short' };
  }
  const iv = envelope.subarray(0, GCM_IV_BYTES);
  const tag = envelope.subarray(envelope.length - GCM_TAG_BYTES);
  const ciphertext = envelope.subarray(GCM_IV_BYTES, envelope.length - GCM_TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: GCM_TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    const plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    return { ok: true, plaintext };
  } catch {
    return { ok: false, reason: 'not-authentic' };
  }
}

/**
 * The aesgcm persistor: the password 1.0 layout, with the caller's own 32-byte key and
 * additional authenticated data instead of a derived key and the fixed AAD.
 */
import { InputError } from '../../common/errors.js';
import { envelopeTooShort, notAuthentic } from './encrypted-errors.js';
import {
  GCM_KEY_BYTES,
  openGcmEnvelope,
  sealGcmEnvelope,
} from '../../common/encoding/gcm-envelope.js';
import { encodeProfileSetJson, parseProfileSetJson } from './profile-json.js';
import type { ProfileSet } from './types.js';

const FORMAT_NAME = 'aesgcm';
const WRONG_KEY_HINT =
  'Check the AES-GCM key and the additional authenticated data. Nothing was changed.';

/** Parses the 64-hex-character key the Ionic tools take (white space around it is ignored). */
export function parseAesGcmKeyHex(hex: string): Buffer {
  const trimmed = hex.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(trimmed)) {
    throw new InputError(
      `the AES-GCM persistor key must be ${GCM_KEY_BYTES * 2} hex characters (${GCM_KEY_BYTES} bytes)`,
      { hint: 'Generate one with: openssl rand -hex 32' },
    );
  }
  return Buffer.from(trimmed, 'hex');
}

export function encodeAesGcmFile(set: ProfileSet, key: Buffer, adata: string): Buffer {
  checkAesGcmKey(key);
  return sealGcmEnvelope(key, Buffer.from(adata, 'utf8'), encodeProfileSetJson(set));
}

export function decodeAesGcmFile(
  bytes: Buffer,
  key: Buffer,
  adata: string,
  source: string,
  /** The size cap the file was read under, which sets its node budget. */
  maxBytes?: number,
): ProfileSet {
  checkAesGcmKey(key);
  const opened = openGcmEnvelope(key, Buffer.from(adata, 'utf8'), bytes);
  if (!opened.ok) {
    throw opened.reason === 'too-short'
      ? envelopeTooShort(source, FORMAT_NAME, bytes.length)
      : notAuthentic(
          source,
          FORMAT_NAME,
          bytes,
          'AES-GCM key or additional authenticated data',
          WRONG_KEY_HINT,
        );
  }
  return parseProfileSetJson(opened.plaintext, source, undefined, maxBytes);
}

function checkAesGcmKey(key: Buffer): void {
  if (key.length !== GCM_KEY_BYTES) {
    throw new InputError(
      `the AES-GCM persistor key must be ${GCM_KEY_BYTES} bytes, not ${key.length}`,
    );
  }
}

/**
 * The password persistor. Key = PBKDF2-HMAC-SHA256(password, salt, 2000, 32); the body is a GCM
 * envelope with the fixed AAD `Ionic Security Inc`.
 * - 1.0: no header, empty salt (what the C++ SDK did first, and the Java SDK mimics).
 * - 1.1: a JSON header carrying a random 32-byte salt, fresh on every save.
 */
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { InputError } from '../../common/errors.js';
import { envelopeTooShort, notAuthentic } from './encrypted-errors.js';
import type { PersistorFileHeader } from './file-header.js';
import { formatFileHeader, PROFILES_FILE_TYPE_ID, splitFileHeader } from './file-header.js';
import {
  GCM_KEY_BYTES,
  openGcmEnvelope,
  sealGcmEnvelope,
} from '../../common/encoding/gcm-envelope.js';
import { encodeProfileSetJson, parseProfileSetJson } from './profile-json.js';
import type { PasswordFormatVersion, ProfileSet } from './types.js';

export const PASSWORD_AAD = Buffer.from('Ionic Security Inc', 'ascii');
export const PASSWORD_PBKDF2_ITERATIONS = 2000;
export const PASSWORD_SALT_BYTES = 32;
export const PASSWORD_MIN_LENGTH = 6;
const FORMAT_NAME = 'password';
const WRONG_PASSWORD_HINT =
  'Check the profile password. Nothing was changed; the file opens again with the right password.';

export interface DecodedPasswordFile {
  set: ProfileSet;
  version: PasswordFormatVersion;
}

/** The SDKs refuse passwords shorter than 6 characters; so does ksctl, for reading too. */
export function checkProfilePassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) {
    throw new InputError(
      `the profile password is too short: it needs at least ${PASSWORD_MIN_LENGTH} characters`,
      { hint: 'choose a longer password' },
    );
  }
}

export function encodePasswordFile(
  set: ProfileSet,
  password: string,
  version: PasswordFormatVersion = '1.1',
): Buffer {
  checkProfilePassword(password);
  const json = encodeProfileSetJson(set);
  if (version === '1.0') {
    return sealGcmEnvelope(derivePasswordKey(password, Buffer.alloc(0)), PASSWORD_AAD, json);
  }
  const salt = randomBytes(PASSWORD_SALT_BYTES);
  const header = formatFileHeader(FORMAT_NAME, '1.1', { salt: salt.toString('base64') });
  const body = sealGcmEnvelope(derivePasswordKey(password, salt), PASSWORD_AAD, json);
  return Buffer.concat([header, body]);
}

export function decodePasswordFile(
  bytes: Buffer,
  password: string,
  source: string,
  /** The size cap the file was read under, which sets its node budget. */
  maxBytes?: number,
): DecodedPasswordFile {
  checkProfilePassword(password);
  const { header, body } = splitFileHeader(bytes);
  const version: PasswordFormatVersion = header === undefined ? '1.0' : '1.1';
  const salt = header === undefined ? Buffer.alloc(0) : saltFromHeader(header, source);
  const opened = openGcmEnvelope(derivePasswordKey(password, salt), PASSWORD_AAD, body);
  if (!opened.ok) {
    throw opened.reason === 'too-short'
      ? envelopeTooShort(source, FORMAT_NAME, body.length)
      : notAuthentic(source, FORMAT_NAME, bytes, 'password', WRONG_PASSWORD_HINT);
  }
  return { set: parseProfileSetJson(opened.plaintext, source, undefined, maxBytes), version };
}

function derivePasswordKey(password: string, salt: Buffer): Buffer {
  return pbkdf2Sync(
    Buffer.from(password, 'utf8'),
    salt,
    PASSWORD_PBKDF2_ITERATIONS,
    GCM_KEY_BYTES,
    'sha256',
  );
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function saltFromHeader(header: PersistorFileHeader, source: string): Buffer {
  const problem = (what: string) =>
    new InputError(`${source} has an unexpected file header: ${what}`, {
      hint: 'The file may come from a newer SDK or be damaged.',
    });
  if (header.fileTypeId !== PROFILES_FILE_TYPE_ID) {
    throw problem(`fileTypeId is not "${PROFILES_FILE_TYPE_ID}"`);
  }
  if (header.format !== FORMAT_NAME) {
    const format = typeof header.format === 'string' ? `"${header.format}"` : 'missing';
    throw problem(`format is ${format}, expected "${FORMAT_NAME}"`);
  }
  if (header.version !== '1.1') {
    throw problem('only version "1.1" is known');
  }
  const extra = header.extra;
  const salt =
    typeof extra === 'object' && extra !== null ? (extra as { salt?: unknown }).salt : undefined;
  if (typeof salt !== 'string' || !BASE64.test(salt)) {
    throw problem('extra.salt is not Base64 text');
  }
  return Buffer.from(salt, 'base64');
}

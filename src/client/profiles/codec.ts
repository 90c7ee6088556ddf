/** Picks the format of a persistor spec and checks that the spec carries its secret. */
import { UsageError } from '../../common/errors.js';
import { decodeAesGcmFile, encodeAesGcmFile } from './aesgcm-format.js';
import { decodePasswordFile, encodePasswordFile } from './password-format.js';
import { decodePlaintextFile, encodePlaintextFile } from './plaintext-format.js';
import type { PasswordFormatVersion, PersistorSpec, ProfileSet } from './types.js';

export interface DecodedProfileFile {
  set: ProfileSet;
  /** Set for password files: the version found, so an update can keep it. */
  passwordVersion?: PasswordFormatVersion;
}

export function decodeProfileFile(spec: PersistorSpec, bytes: Buffer): DecodedProfileFile {
  switch (spec.kind) {
    case 'plaintext':
      return { set: decodePlaintextFile(bytes, spec.path, spec.maxBytes) };
    case 'password': {
      const { set, version } = decodePasswordFile(
        bytes,
        requirePassword(spec),
        spec.path,
        spec.maxBytes,
      );
      return { set, passwordVersion: version };
    }
    case 'aesgcm': {
      const { key, adata } = requireAesGcmSecrets(spec);
      return { set: decodeAesGcmFile(bytes, key, adata, spec.path, spec.maxBytes) };
    }
  }
}

export function encodeProfileFile(
  spec: PersistorSpec,
  set: ProfileSet,
  /** Password files only; unset means 1.1. */
  passwordVersion?: PasswordFormatVersion,
): Buffer {
  switch (spec.kind) {
    case 'plaintext':
      return encodePlaintextFile(set);
    case 'password':
      return encodePasswordFile(set, requirePassword(spec), passwordVersion);
    case 'aesgcm': {
      const { key, adata } = requireAesGcmSecrets(spec);
      return encodeAesGcmFile(set, key, adata);
    }
  }
}

/** Checks the secrets before any file is touched, so a missing one fails fast. */
export function checkPersistorSecrets(spec: PersistorSpec): void {
  if (spec.kind === 'password') {
    requirePassword(spec);
  } else if (spec.kind === 'aesgcm') {
    requireAesGcmSecrets(spec);
  }
}

function requirePassword(spec: PersistorSpec): string {
  if (spec.password === undefined) {
    throw new UsageError(`a password is needed for the password persistor ${spec.path}`, {
      hint: 'give the persistor password',
    });
  }
  return spec.password;
}

function requireAesGcmSecrets(spec: PersistorSpec): { key: Buffer; adata: string } {
  if (spec.aesgcmKey === undefined || spec.aesgcmAdata === undefined) {
    throw new UsageError(
      `a key and additional authenticated data are needed for the aesgcm persistor ${spec.path}`,
      { hint: 'give both the AES-GCM key (64 hex characters) and the authenticated data' },
    );
  }
  return { key: spec.aesgcmKey, adata: spec.aesgcmAdata };
}

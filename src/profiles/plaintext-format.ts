/** The plaintext persistor: the profile JSON document as is. */
import { encodeProfileSetJson, parseProfileSetJson } from './profile-json.js';
import type { ProfileSet } from './types.js';

export function encodePlaintextFile(set: ProfileSet): Buffer {
  return encodeProfileSetJson(set);
}

export function decodePlaintextFile(bytes: Buffer, source: string): ProfileSet {
  return parseProfileSetJson(
    bytes,
    source,
    'If the file is encrypted, read it as a password or aesgcm persistor.',
  );
}

/**
 * True when bytes given to an encrypted format are in fact a plaintext profile file, so the user
 * hears "wrong persistor type" instead of "wrong password".
 */
export function looksLikePlaintextProfiles(bytes: Buffer): boolean {
  try {
    const document: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof document === 'object' && document !== null && 'profiles' in document;
  } catch {
    return false;
  }
}

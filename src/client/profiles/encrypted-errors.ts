/** Messages shared by the encrypted formats when a file will not open. */
import { AuthError, InputError } from '../../common/errors.js';
import { looksLikePlaintextProfiles } from './plaintext-format.js';

export function envelopeTooShort(source: string, kind: string, length: number): InputError {
  return new InputError(
    `${source} is not a valid ${kind} profile file: only ${length} bytes, too short to hold an encrypted profile set`,
    { hint: 'The file is truncated or is not a profile file; restore it from a backup.' },
  );
}

/**
 * GCM cannot tell a wrong secret from a damaged file. A plaintext file read with the wrong
 * persistor type is told apart, because that mistake is common and has an easy fix.
 */
export function notAuthentic(
  source: string,
  kind: string,
  bytes: Buffer,
  secret: string,
  hint: string,
): AuthError | InputError {
  if (looksLikePlaintextProfiles(bytes)) {
    return new InputError(`${source} is a plaintext profile file, not a ${kind} file`, {
      hint: 'Read it as a plaintext persistor.',
    });
  }
  return new AuthError(`cannot open ${source}: the ${secret} is wrong, or the file is damaged`, {
    hint,
  });
}

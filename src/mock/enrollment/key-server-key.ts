import { createPrivateKey, KeyObject } from 'node:crypto';
import { generateDeviceKeyPair } from '../../enroll/protocol.js';
import { InputError } from '../../errors.js';

/**
 * The key server's private key: the one given (a PEM text or a KeyObject, so tests and
 * benchmarks skip the RSA-3072 generation), else a fresh RSA-3072 key generated off the main
 * thread, both primes searched at once.
 */
export async function loadKeyServerKey(given?: string | KeyObject): Promise<KeyObject> {
  if (given === undefined) return (await generateDeviceKeyPair(2)).privateKey;
  let key: KeyObject;
  try {
    key = given instanceof KeyObject ? given : createPrivateKey(given);
  } catch {
    // The PEM is a secret: the message says what is wrong, never what was given.
    throw new InputError('the key server key is not a PEM private key');
  }
  if (key.type !== 'private' || key.asymmetricKeyType !== 'rsa') {
    throw new InputError('the key server key must be an RSA private key');
  }
  return key;
}

import { createPrivateKey, KeyObject } from 'node:crypto';
import { RSA_MODULUS_BITS } from '../../../common/enrollment/crypto.js';
import { generateRsaKeyPair } from '../../../common/enrollment/rsa-keygen.js';
import { InputError } from '../../../common/errors.js';

/**
 * The key server's private key: the one given (a PEM text or a KeyObject, so tests and
 * benchmarks skip the RSA-3072 generation), else a fresh RSA-3072 key generated off the main
 * thread. A fresh key has three primes (multi-prime RSA, RFC 8017): clients see an ordinary
 * RSA-3072 public key, and the OAEP decryption of every registration, most of the mock's work,
 * takes about half as long.
 */
export async function loadKeyServerKey(given?: string | KeyObject): Promise<KeyObject> {
  if (given === undefined) {
    return (await generateRsaKeyPair({ modulusBits: RSA_MODULUS_BITS, primes: 3 }, 2)).privateKey;
  }
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

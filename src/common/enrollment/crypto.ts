/**
 * The cryptographic steps of the enrollment protocol (service interface 4.2), each written once
 * and used by both the client (protocol.ts) and the mock's service side (service-side.ts).
 * `node:crypto` only.
 */
import {
  createCipheriv,
  createDecipheriv,
  createPublicKey,
  constants as cryptoConstants,
  type KeyObject,
  privateDecrypt,
  publicEncrypt,
  randomBytes,
  sign,
  verify,
} from 'node:crypto';
import { ServiceError } from '../errors.js';
import { decodeBase64Strict } from '../encoding/base64.js';

/** Sizes fixed by the enrollment contract (service interface 8). */
export const RSA_MODULUS_BITS = 3072;
export const RSA_SIGNATURE_BYTES = RSA_MODULUS_BITS / 8;
export const AES_KEY_BYTES = 32;
export const AES_IV_BYTES = 16;
export const PSS_SALT_BYTES = 32;

const AES_CIPHER = 'aes-256-ctr';

/** Base64 (standard, one line) of the DER SubjectPublicKeyInfo of a public key. */
export function encodeSpkiBase64(publicKey: KeyObject): string {
  return publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
}

/** An RSA public key from the strict Base64 of a DER SubjectPublicKeyInfo, or undefined. */
export function decodeRsaSpkiBase64(text: string): KeyObject | undefined {
  const der = decodeBase64Strict(text);
  if (der === undefined || der.length === 0) return undefined;
  try {
    const pkcs1 = rsaKeyOfSpki(der);
    const key =
      pkcs1 === undefined
        ? createPublicKey({ key: der, format: 'der', type: 'spki' })
        : createPublicKey({ key: pkcs1, format: 'der', type: 'pkcs1' });
    return key.asymmetricKeyType === 'rsa' ? key : undefined;
  } catch {
    return undefined;
  }
}

/** DER of the AlgorithmIdentifier of rsaEncryption (1.2.840.113549.1.1.1) with NULL parameters. */
const RSA_ENCRYPTION = Buffer.from('300d06092a864886f70d0101010500', 'hex');

/**
 * The RSAPublicKey (PKCS #1) inside a DER SubjectPublicKeyInfo of the usual rsaEncryption form,
 * or undefined for anything else (which OpenSSL's general decoder then reads, or refuses).
 * OpenSSL 3.0's SPKI decoder costs about 0.2 ms per key, 30 times its PKCS #1 reader: a quarter
 * of the mock's work per registration besides the RSA decryption itself.
 */
export function rsaKeyOfSpki(der: Buffer): Buffer | undefined {
  const outer = derSequenceBody(der, 0x30);
  if (outer === undefined || !outer.subarray(0, RSA_ENCRYPTION.length).equals(RSA_ENCRYPTION)) {
    return undefined;
  }
  const bits = derSequenceBody(outer.subarray(RSA_ENCRYPTION.length), 0x03);
  // No unused bits, then the key: itself one SEQUENCE filling the BIT STRING.
  if (bits === undefined || bits[0] !== 0) return undefined;
  const key = bits.subarray(1);
  return derSequenceBody(key, 0x30) === undefined ? undefined : key;
}

/** The contents of the DER element with `tag` that fills `der` exactly (minimal lengths only). */
function derSequenceBody(der: Buffer, tag: number): Buffer | undefined {
  if (der.length < 2 || der[0] !== tag) return undefined;
  let length = der[1]!;
  let start = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 3 || der.length < 2 + count || der[2] === 0) return undefined;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + der[2 + i]!;
    if (length < 0x80) return undefined;
    start = 2 + count;
  }
  return start + length === der.length ? der.subarray(start) : undefined;
}

/** Modulus size of an RSA key in bits (0 when the key does not say). */
export function rsaModulusBits(key: KeyObject): number {
  return key.asymmetricKeyDetails?.modulusLength ?? 0;
}

/**
 * The key server public key as served by `GET {enrollment_url}/keyspace/{ks}/pubkey`: Base64 of
 * a DER SubjectPublicKeyInfo, possibly wrapped or ending in CR/LF, which clients strip.
 * A key that does not parse is the service's (or a wrong URL's) fault, hence ServiceError.
 */
export function parseServerPublicKey(text: string): KeyObject {
  const key = decodeRsaSpkiBase64(text.replace(/\s+/g, ''));
  if (key === undefined) {
    throw new ServiceError('the key server public key is not the Base64 of an RSA public key', {
      hint: 'check the enrollment URL: it should serve the key as text/plain Base64',
    });
  }
  return key;
}

/** AES-256-CTR with a fresh random IV; returns IV || ciphertext. */
export function aesCtrEncrypt(key: Buffer, plaintext: Buffer): Buffer {
  const iv = randomBytes(AES_IV_BYTES);
  const cipher = createCipheriv(AES_CIPHER, key, iv);
  return Buffer.concat([iv, cipher.update(plaintext), cipher.final()]);
}

/** Inverse of aesCtrEncrypt. Callers check the length first; too short is a bug, so it throws. */
export function aesCtrDecrypt(key: Buffer, ivAndCiphertext: Buffer): Buffer {
  if (ivAndCiphertext.length < AES_IV_BYTES) {
    throw new RangeError(`AES-CTR input is shorter than its ${AES_IV_BYTES}-byte IV`);
  }
  const iv = ivAndCiphertext.subarray(0, AES_IV_BYTES);
  const decipher = createDecipheriv(AES_CIPHER, key, iv);
  return Buffer.concat([decipher.update(ivAndCiphertext.subarray(AES_IV_BYTES)), decipher.final()]);
}

const OAEP_SHA1 = { padding: cryptoConstants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' } as const;

/** RSA-OAEP with SHA-1 (and MGF1-SHA-1), as the contract fixes for `s` and SEPAESK-IDC. */
export function oaepEncrypt(publicKey: KeyObject, data: Buffer): Buffer {
  return publicEncrypt({ key: publicKey, ...OAEP_SHA1 }, data);
}

/** Inverse of oaepEncrypt; undefined when the padding does not check out (wrong key, damage). */
export function oaepDecrypt(privateKey: KeyObject, data: Buffer): Buffer | undefined {
  try {
    return privateDecrypt({ key: privateKey, ...OAEP_SHA1 }, data);
  } catch {
    return undefined;
  }
}

const PSS_SHA256 = {
  padding: cryptoConstants.RSA_PKCS1_PSS_PADDING,
  saltLength: PSS_SALT_BYTES,
} as const;

/** RSA-PSS-SHA256 (salt 32) over the ASCII Base64 text of `p`, not over the bytes it encodes. */
export function signPackage(privateKey: KeyObject, pText: string): Buffer {
  return sign('sha256', Buffer.from(pText, 'ascii'), { key: privateKey, ...PSS_SHA256 });
}

/** Verifies a signPackage signature; false for any failure, including a malformed signature. */
export function verifyPackage(publicKey: KeyObject, pText: string, signature: Buffer): boolean {
  try {
    return verify(
      'sha256',
      Buffer.from(pText, 'ascii'),
      { key: publicKey, ...PSS_SHA256 },
      signature,
    );
  } catch {
    return false;
  }
}

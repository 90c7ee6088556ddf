/**
 * RSA keys put together from two primes of OpenSSL's prime search (src/enroll/rsa-keygen.ts):
 * the checks that depend on both primes, the retry when a prime is unusable, and the searches
 * running at once. openssl's own key check of a generated key is in enroll-openssl.test.ts.
 */
import { constants, createHash, privateDecrypt, publicEncrypt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  generateRsaKeyPair,
  inverse,
  keyPairFromPrimes,
  RSA_PUBLIC_EXPONENT as E,
  searchPrime,
  usablePrime,
} from '../../src/enroll/rsa-keygen.js';

/** Small but real: RSA-1024 from two 512-bit primes keeps these tests quick. */
const BITS = 1024;
const HALF = BITS / 2;

describe('usablePrime', () => {
  const top = 3n << BigInt(HALF - 2);
  it('takes an odd number of exactly half the bits, top two set, with e not dividing p − 1', () => {
    const oneModE = top - (top % (2n * E)) + 2n * E + 1n; // odd, and ≡ 1 mod e
    expect(oneModE >> BigInt(HALF - 2)).toBe(3n);
    expect(usablePrime(oneModE, HALF)).toBe(false);
    expect(usablePrime(oneModE + 2n, HALF)).toBe(true);
    expect(usablePrime(oneModE + 1n, HALF)).toBe(false);
  });

  it('refuses a number whose second bit is clear (the modulus could come out a bit short)', () => {
    expect(usablePrime((2n << BigInt(HALF - 2)) + 1n, HALF)).toBe(false);
    expect(usablePrime(top << 1n, HALF)).toBe(false);
  });
});

describe('keyPairFromPrimes', () => {
  it('makes a working key pair whose modulus is the product of the primes', async () => {
    const [p, q] = await Promise.all([searchPrime(HALF), searchPrime(HALF)]);
    const pair = keyPairFromPrimes(p, q, BITS)!;
    expect(pair.privateKey.asymmetricKeyDetails).toMatchObject({
      modulusLength: BITS,
      publicExponent: E,
    });
    const jwk = pair.publicKey.export({ format: 'jwk' });
    expect(BigInt(`0x${Buffer.from(jwk.n!, 'base64url').toString('hex')}`)).toBe(p * q);
    const secret = createHash('sha256').update('x').digest();
    const sealed = publicEncrypt({ key: pair.publicKey, oaepHash: 'sha1' }, secret);
    expect(privateDecrypt({ key: pair.privateKey, oaepHash: 'sha1' }, sealed)).toEqual(secret);
    const raw = publicEncrypt(
      { key: pair.publicKey, padding: constants.RSA_NO_PADDING },
      Buffer.alloc(BITS / 8, 1),
    );
    expect(raw).toHaveLength(BITS / 8);
  });

  it('refuses primes closer than 2^(half − 100) (FIPS 186-4 B.3.1)', async () => {
    const p = await searchPrime(HALF);
    expect(keyPairFromPrimes(p, p + (1n << BigInt(HALF - 100)), BITS)).toBeUndefined();
    expect(keyPairFromPrimes(p, p, BITS)).toBeUndefined();
  });
});

describe('generateRsaKeyPair', () => {
  it('replaces an unusable prime by searching again', async () => {
    const unusable = (2n << BigInt(HALF - 2)) + 1n; // its second bit is clear
    let searches = 0;
    const search = (bits: number) =>
      ++searches === 1 ? Promise.resolve(unusable) : searchPrime(bits);
    const pair = await generateRsaKeyPair(BITS, 1, search);
    expect(pair.privateKey.asymmetricKeyDetails?.modulusLength).toBe(BITS);
    expect(searches).toBe(3);
  });

  it('runs the two searches at once when asked to, one after the other otherwise', async () => {
    for (const [atOnce, most] of [
      [2, 2],
      [1, 1],
    ]) {
      let running = 0;
      let highest = 0;
      const search = async (bits: number) => {
        highest = Math.max(highest, ++running);
        const p = await searchPrime(bits);
        running--;
        return p;
      };
      await generateRsaKeyPair(BITS, atOnce!, search);
      expect(highest).toBe(most);
    }
  });

  it('gives up with an error when the prime source only gives unusable numbers', async () => {
    let searches = 0;
    const broken = () => Promise.resolve(BigInt(++searches) * 2n);
    await expect(generateRsaKeyPair(BITS, 2, broken)).rejects.toThrow(/no RSA-1024 key after 32/);
    expect(searches).toBe(32);
  });
});

describe('inverse', () => {
  it('is the modular inverse, and refuses numbers that share a factor', () => {
    expect((inverse(E, 3120n * 7n) * E) % (3120n * 7n)).toBe(1n);
    expect(inverse(3n, 7n)).toBe(5n);
    expect(() => inverse(6n, 9n)).toThrow(RangeError);
  });
});

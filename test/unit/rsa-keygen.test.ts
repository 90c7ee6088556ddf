/**
 * RSA keys put together from primes of the prime search (src/common/enrollment/rsa-keygen.ts): the checks
 * that depend on both primes, the retry when a prime is unusable, and the steps running at once.
 * The search itself is in prime-search.test.ts; openssl's own key check of a generated key is in
 * enroll-openssl.test.ts.
 */
import { createHash, privateDecrypt, publicEncrypt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  OPENSSL_STEPS,
  type PrimeSteps,
  RSA_PUBLIC_EXPONENT as E,
  searchPrime,
  usablePrime,
} from '../../src/common/enrollment/prime-search.js';
import {
  generateRsaKeyPair,
  inverse,
  keyPairFromPrimes,
  RsaKeySupply,
  type RsaShape,
} from '../../src/common/enrollment/rsa-keygen.js';
import { controlledTests } from '../helpers/prime-steps.js';

/** Small but real: RSA-1024 from two 512-bit primes keeps these tests quick. */
const BITS = 1024;
const HALF = BITS / 2;
const TWO: RsaShape = { modulusBits: BITS, primes: 2 };

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
  it.each([2, 3])(
    'makes a working key pair of %i primes whose modulus is their product',
    async (count) => {
      const bits = 1536;
      const primes = await Promise.all(
        Array.from({ length: count }, () => searchPrime(bits / count)),
      );
      const product = () => primes.reduce((a, b) => a * b);
      // Three primes with their top two bits set make a modulus a bit short now and then.
      for (let i = 0; i < 20 && product() >> BigInt(bits - 1) !== 1n; i++) {
        primes[count - 1] = await searchPrime(bits / count);
      }
      const n = product();
      const pair = keyPairFromPrimes(primes, bits);
      expect(pair!.privateKey.asymmetricKeyDetails).toMatchObject({
        modulusLength: bits,
        publicExponent: E,
      });
      const jwk = pair!.publicKey.export({ format: 'jwk' });
      expect(BigInt(`0x${Buffer.from(jwk.n!, 'base64url').toString('hex')}`)).toBe(n);
      const secret = createHash('sha256').update('x').digest();
      const sealed = publicEncrypt({ key: pair!.publicKey, oaepHash: 'sha1' }, secret);
      expect(privateDecrypt({ key: pair!.privateKey, oaepHash: 'sha1' }, sealed)).toEqual(secret);
      // The private key round-trips through PKCS #8, as the mock's state stores it.
      const pem = pair!.privateKey.export({ type: 'pkcs8', format: 'pem' });
      expect(privateDecrypt({ key: pem, oaepHash: 'sha1' }, sealed)).toEqual(secret);
    },
  );

  it('refuses primes closer than 2^(prime bits − 100) (FIPS 186-4 B.3.1)', async () => {
    const p = await searchPrime(HALF);
    expect(keyPairFromPrimes([p, p + (1n << BigInt(HALF - 100))], BITS)).toBeUndefined();
    expect(keyPairFromPrimes([p, p], BITS)).toBeUndefined();
  });

  it('refuses three primes whose product is a bit short', () => {
    const low = (3n << 510n) + 1n; // 1.5 × 2^511, and 1.5³ < 4: a product of 1535 bits
    expect(keyPairFromPrimes([low, low + 2n ** 200n, low + 2n ** 201n], 1536)).toBeUndefined();
  });
});

describe('generateRsaKeyPair', () => {
  it('replaces an unusable prime by searching again', async () => {
    const unusable = (2n << BigInt(HALF - 2)) + 1n; // its second bit is clear
    let windows = 0;
    const steps: PrimeSteps = {
      ...OPENSSL_STEPS,
      window: (bits) => (++windows === 1 ? [unusable].values() : OPENSSL_STEPS.window(bits)),
      test: (candidate) =>
        candidate === unusable ? Promise.resolve(true) : OPENSSL_STEPS.test(candidate),
    };
    const pair = await generateRsaKeyPair(TWO, 1, steps);
    expect(pair.privateKey.asymmetricKeyDetails?.modulusLength).toBe(BITS);
    expect(windows).toBe(3);
  });

  it('runs two steps at once when asked to, one after the other otherwise', async () => {
    for (const [atOnce, most] of [
      [2, 2],
      [1, 1],
    ]) {
      let running = 0;
      let highest = 0;
      const steps: PrimeSteps = {
        ...OPENSSL_STEPS,
        test: async (candidate) => {
          highest = Math.max(highest, ++running);
          const prime = await OPENSSL_STEPS.test(candidate);
          running--;
          return prime;
        },
      };
      await generateRsaKeyPair(TWO, atOnce!, steps);
      expect(highest).toBe(most);
    }
  });

  it('starts no step once the key is made', async () => {
    let tests = 0;
    const steps: PrimeSteps = {
      ...OPENSSL_STEPS,
      test: (candidate) => (tests++, OPENSSL_STEPS.test(candidate)),
    };
    await generateRsaKeyPair(TWO, 2, steps);
    const atKey = tests;
    // A step still in flight ends within milliseconds and starts nothing.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(tests).toBe(atKey);
  });

  it('gives up with an error when the prime source only gives unusable numbers', async () => {
    let windows = 0;
    const broken: PrimeSteps = {
      ...OPENSSL_STEPS,
      window: () => [BigInt(++windows) * 2n].values(),
      test: () => Promise.resolve(true),
    };
    await expect(generateRsaKeyPair(TWO, 2, broken)).rejects.toThrow(
      /no usable 512-bit prime after 3[12] prime searches/,
    );
    expect(windows).toBeLessThanOrEqual(32);
  });
});

describe('RsaKeySupply', () => {
  /** Steps over real primes found ahead, one per window; the test decides when each test ends. */
  async function controlledSteps(count: number) {
    const primes = await Promise.all(Array.from({ length: count }, () => searchPrime(HALF)));
    return controlledTests(() => [primes.shift()!].values());
  }
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('keeps `searchesAtOnce` steps going, ahead of the takers, and no more than needed', async () => {
    const source = await controlledSteps(6);
    const supply = new RsaKeySupply(TWO, 3, 2, source.steps);
    expect(source.running).toBe(2);
    // Nobody has taken a key yet: the search goes on regardless, two steps at a time.
    for (let i = 0; i < 4; i++) {
      source.finishOldest();
      await tick();
      expect(source.running).toBe(2);
    }
    source.finishOldest();
    source.finishOldest();
    await tick();
    // Six primes for three keys: done, nothing more starts.
    expect(source.started).toBe(6);
    expect(source.running).toBe(0);
    const keys = await Promise.all([supply.take(), supply.take(), supply.take()]);
    const moduli = new Set(keys.map((k) => k.publicKey.export({ format: 'jwk' }).n));
    expect(moduli.size).toBe(3);
  });

  it('gives the first two primes found to the first key taken', async () => {
    const source = await controlledSteps(4);
    const supply = new RsaKeySupply(TWO, 2, 1, source.steps);
    let firstDone = false;
    const first = supply.take().then((pair) => ((firstDone = true), pair));
    const second = supply.take();
    source.finishOldest();
    await tick();
    source.finishOldest();
    await tick();
    await tick();
    // The first two primes make the first key, not one prime for each.
    expect(firstDone).toBe(true);
    await first;
    source.finishOldest();
    await tick();
    source.finishOldest();
    expect((await second).privateKey.asymmetricKeyDetails?.modulusLength).toBe(BITS);
  });

  it('starts nothing more once stopped, and a test that fails fails the keys waiting', async () => {
    const source = await controlledSteps(2);
    const supply = new RsaKeySupply(TWO, 5, 1, source.steps);
    supply.stop();
    source.finishOldest();
    await tick();
    expect(source.started).toBe(1);
    await expect(supply.take()).rejects.toThrow(/stopped/);

    const failing = new RsaKeySupply(TWO, 1, 2, {
      ...OPENSSL_STEPS,
      test: () => Promise.reject(new Error('no entropy')),
    });
    await expect(failing.take()).rejects.toThrow('no entropy');
  });
});

describe('inverse', () => {
  it('is the modular inverse, and refuses numbers that share a factor', () => {
    expect((inverse(E, 3120n * 7n) * E) % (3120n * 7n)).toBe(1n);
    expect(inverse(3n, 7n)).toBe(5n);
    expect(() => inverse(6n, 9n)).toThrow(RangeError);
  });
});

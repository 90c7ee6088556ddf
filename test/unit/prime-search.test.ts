/**
 * The prime search in small steps (src/common/enrollment/prime-search.ts): what its sieve leaves, what it
 * returns, when it gives up, and that it starts nothing once stopped or once enough is found.
 */
import { checkPrimeSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  OPENSSL_STEPS,
  PrimeSearch,
  type PrimeSteps,
  RSA_PUBLIC_EXPONENT as E,
  randomStart,
  sievedCandidates,
} from '../../src/common/enrollment/prime-search.js';
import { RsaKeySupply } from '../../src/common/enrollment/rsa-keygen.js';
import { controlledTests } from '../helpers/prime-steps.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** The odd primes below 2^15, multiplied together (the sieve's primes). */
function smallPrimesProduct(): bigint {
  let product = 1n;
  for (let n = 3; n < 1 << 15; n += 2) {
    let prime = true;
    for (let d = 3; d * d <= n && prime; d += 2) prime = n % d !== 0;
    if (prime) product *= BigInt(n);
  }
  return product;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

describe('sievedCandidates', () => {
  it('leaves exactly the numbers with no odd factor below 2^15 that are not 1 mod e', () => {
    const start = randomStart(512);
    const product = smallPrimesProduct();
    const expected: bigint[] = [];
    for (let k = 0; k < 2048; k++) {
      const n = start + BigInt(2 * k);
      if (gcd(product, n) === 1n && n % E !== 1n) expected.push(n);
    }
    expect([...sievedCandidates(start, 2048)]).toEqual(expected);
  });

  it('strikes out a number that is 1 mod e, even with no small factor', () => {
    const product = smallPrimesProduct();
    let start: bigint;
    do {
      const random = randomStart(512);
      const below = (random - 1n) % E; // random - below ≡ 1 mod e; keep it odd
      start = below % 2n === 0n ? random - below : random - below - E;
    } while (gcd(product, start) !== 1n);
    expect(start % E).toBe(1n);
    expect([...sievedCandidates(start, 1)]).toEqual([]);
  });

  it('starts from a random odd number of the bits asked, top two bits set', () => {
    for (let i = 0; i < 20; i++) {
      const start = randomStart(1536);
      expect(start >> 1534n).toBe(3n);
      expect(start & 1n).toBe(1n);
    }
    expect(() => randomStart(1537)).toThrow(RangeError);
  });
});

describe('PrimeSearch', () => {
  it('finds 1536-bit primes with the top two bits set, e ∤ p − 1, that pass 64 rounds', async () => {
    const search = new PrimeSearch(1536, 3, 2);
    const primes = [await search.next(), await search.next(), await search.next()];
    expect(new Set(primes).size).toBe(3);
    for (const p of primes) {
      expect(p.toString(2)).toHaveLength(1536);
      expect(p >> 1534n).toBe(3n);
      expect(p & 1n).toBe(1n);
      expect((p - 1n) % E).not.toBe(0n);
      expect(checkPrimeSync(p, { checks: 64 })).toBe(true);
    }
  });

  it('gives up with a clear error when the candidates are all composite', async () => {
    let windows = 0;
    let tests = 0;
    const composites: PrimeSteps = {
      ...OPENSSL_STEPS,
      // Odd multiples of 3 with their top two bits set, three to a window.
      window: (bits) => {
        windows++;
        const start = randomStart(bits);
        const multiple = start - (start % 3n);
        const odd = multiple % 2n === 1n ? multiple : multiple + 3n;
        return [odd, odd + 6n, odd + 12n].values();
      },
      test: (candidate) => (tests++, OPENSSL_STEPS.test(candidate)),
    };
    const search = new PrimeSearch(512, 2, 2, composites);
    await expect(search.next()).rejects.toThrow(
      /^no usable 512-bit prime after 3[12] prime searches: the source is broken$/,
    );
    expect(windows).toBeLessThanOrEqual(32);
    const atFailure = tests;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(tests).toBe(atFailure);
  });

  it('starts no test once stopped, and drops what ends after', async () => {
    const source = controlledTests();
    const search = new PrimeSearch(512, 2, 2, source.steps);
    expect(source.running).toBe(2);
    search.stop();
    source.finishAll(true);
    await tick();
    source.finishAll(false);
    await tick();
    expect(source.started).toBe(2);
    await expect(search.next()).rejects.toThrow(/stopped/);
  });

  it('keeps the other cores back while the last prime wanted is confirmed', async () => {
    // Every test counts as a prime's rounds at once: one wanted, so one step at a time.
    const source = controlledTests();
    new PrimeSearch(512, 1, 2, { ...source.steps, confirmingAfterMs: 0 });
    expect(source.running).toBe(1);
    source.finishAll(false);
    await tick();
    expect(source.running).toBe(1);
    // Two wanted: both steps run.
    const both = controlledTests();
    new PrimeSearch(512, 2, 2, { ...both.steps, confirmingAfterMs: 0 });
    expect(both.running).toBe(2);
  });
});

describe('RsaKeySupply over the search', () => {
  it('hands each prime to exactly one key', async () => {
    const found: bigint[] = [];
    const steps: PrimeSteps = {
      ...OPENSSL_STEPS,
      test: async (candidate) => {
        const prime = await OPENSSL_STEPS.test(candidate);
        if (prime) found.push(candidate);
        return prime;
      },
    };
    const supply = new RsaKeySupply({ modulusBits: 1024, primes: 2 }, 4, 2, steps);
    const keys = await Promise.all([supply.take(), supply.take(), supply.take(), supply.take()]);
    supply.stop();
    const primes = keys.flatMap((key) => {
      const jwk = key.privateKey.export({ format: 'jwk' });
      return [jwk.p!, jwk.q!].map((b64) =>
        BigInt(`0x${Buffer.from(b64, 'base64url').toString('hex')}`),
      );
    });
    expect(new Set(primes).size).toBe(8);
    for (const p of primes) expect(found).toContain(p);
  });
});

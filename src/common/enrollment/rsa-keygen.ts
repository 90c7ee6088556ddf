/**
 * RSA key pairs put together here from probable primes of the prime search (prime-search.ts:
 * OpenSSL's search, stepped from here so it stops when the keys have their primes): device keys of
 * two 1536-bit primes.
 *
 * Why not `crypto.generateKeyPair('rsa')`: OpenSSL 3.0, which Node 20 links, makes two-prime keys
 * of 2048 bits and more by the SP 800-56B method with auxiliary primes, which takes about four
 * times as long as searching the two primes directly (median ~650 ms against ~2 × 140 ms on the
 * machine this was measured on). The direct search is what OpenSSL 1.1.1 did for every RSA key,
 * and close to what FIPS 186-4 B.3.3 describes for probable primes: odd numbers with their top
 * two bits set (so the modulus has exactly 3072 bits), sieved and tested with 64 Miller-Rabin
 * rounds by OpenSSL. B.3.3 draws a fresh random number for every candidate; the search goes on
 * from one random start instead, as incremental searches do (prime-search.ts says what that
 * costs). This module adds the checks of B.3.1 and 6.2 that depend on both primes. The cores
 * search one pool of candidates until the key has its primes, so a key takes about as long as
 * the cores together need to find them.
 *
 * A key may also have three primes (RFC 8017 multi-prime RSA, which OpenSSL allows up to three
 * for 3072 bits): its public key is an ordinary RSA-3072 key, and its private operations take
 * about half as long. The mock's key server key is made so; device keys keep two primes.
 *
 * The private exponent and the CRT values are computed with BigInt arithmetic, which does not run
 * in constant time; it runs once per key, in the process that keeps the key.
 */
import {
  createPrivateKey,
  createPublicKey,
  constants as cryptoConstants,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import {
  OPENSSL_STEPS,
  PrimeSearch,
  type PrimeSteps,
  RSA_PUBLIC_EXPONENT,
} from './prime-search.js';

/** What a key is made of: its modulus size and how many primes it has (2 or 3). */
export interface RsaShape {
  modulusBits: number;
  primes: number;
}

/** A key pair, as the enrollment protocol uses it. */
export interface RsaKeyPair {
  publicKey: KeyObject;
  privateKey: KeyObject;
}

/**
 * The key pair of `primes` (each of `modulusBits / primes.length` bits and usable), or undefined
 * when they are refused: a modulus a bit short (only possible with three primes), two primes too
 * close (FIPS 186-4 B.3.1: |p − q| ≤ 2^(prime bits − 100)), or a private exponent too small
 * (d ≤ 2^(nlen/2)). Primes that are refused are never used; for random primes the last two
 * refusals happen with a probability far below 2^-90.
 */
export function keyPairFromPrimes(primes: bigint[], modulusBits: number): RsaKeyPair | undefined {
  const n = primes.reduce((product, p) => product * p, 1n);
  if (n >> BigInt(modulusBits - 1) !== 1n) return undefined;
  const close = 1n << BigInt(modulusBits / primes.length - 100);
  for (const [i, p] of primes.entries()) {
    if (primes.slice(i + 1).some((q) => (p > q ? p - q : q - p) <= close)) return undefined;
  }
  const e = RSA_PUBLIC_EXPONENT;
  const lambda = primes.reduce((l, p) => lcm(l, p - 1n), 1n);
  const d = inverse(e, lambda);
  if (d <= 1n << BigInt(modulusBits / 2)) return undefined;
  const privateKey = createPrivateKey({
    key: rsaPrivateKeyDer(n, e, d, primes),
    format: 'der',
    type: 'pkcs1',
  });
  const publicKey = createPublicKey(privateKey);
  if (!pairwiseConsistent(privateKey, publicKey)) {
    throw new Error('a generated RSA key failed its pairwise consistency test');
  }
  return { privateKey, publicKey };
}

/**
 * The DER RSAPrivateKey of RFC 8017 A.1.2: version 0 with two primes, 1 with more, each further
 * prime with its exponent and its coefficient (the inverse of the product of the primes before).
 */
function rsaPrivateKeyDer(n: bigint, e: bigint, d: bigint, primes: bigint[]): Buffer {
  const [p, q, ...others] = primes as [bigint, bigint, ...bigint[]];
  let before = p * q;
  const otherPrimeInfos = others.map((r) => {
    const info = derSequence([
      derInteger(r),
      derInteger(d % (r - 1n)),
      derInteger(inverse(before, r)),
    ]);
    before *= r;
    return info;
  });
  return derSequence([
    derInteger(others.length === 0 ? 0n : 1n),
    derInteger(n),
    derInteger(e),
    derInteger(d),
    derInteger(p),
    derInteger(q),
    derInteger(d % (p - 1n)),
    derInteger(d % (q - 1n)),
    derInteger(inverse(q, p)),
    ...(others.length === 0 ? [] : [derSequence(otherPrimeInfos)]),
  ]);
}

/**
 * An RSA key pair of `shape`, its primes searched by `searchesAtOnce` steps at once (1: on one
 * thread of the pool; 2: on two, both searching until the key has its primes).
 */
export function generateRsaKeyPair(
  shape: RsaShape,
  searchesAtOnce: number,
  steps: PrimeSteps = OPENSSL_STEPS,
): Promise<RsaKeyPair> {
  const supply = new RsaKeySupply(shape, 1, searchesAtOnce, steps);
  return supply.take().finally(() => supply.stop());
}

/**
 * Key pairs for `total` keys from one prime search, `searchesAtOnce` steps at once until every key
 * has its primes: each prime goes to whichever key is waiting, so every core it may use keeps
 * searching to the end, and keys come out as fast as the cores can find primes. After stop() no
 * step starts: what is in flight ends within milliseconds (unless it is a prime's full rounds).
 */
export class RsaKeySupply {
  private readonly search: PrimeSearch;
  private readonly modulusBits: number;
  private readonly primes: number;
  /** Takers claim their primes one after another, so the first key taken is ready first. */
  private claiming: Promise<unknown> = Promise.resolve();

  constructor(
    shape: RsaShape,
    total: number,
    searchesAtOnce: number,
    steps: PrimeSteps = OPENSSL_STEPS,
  ) {
    this.modulusBits = shape.modulusBits;
    this.primes = shape.primes;
    const bits = shape.modulusBits / shape.primes;
    this.search = new PrimeSearch(bits, shape.primes * total, searchesAtOnce, steps);
  }

  /** No more steps start; keys not yet taken will not come. */
  stop(): void {
    this.search.stop(new Error('the key supply was stopped'));
  }

  /** The next key pair, as soon as its primes are found (keys in the order taken). */
  async take(): Promise<RsaKeyPair> {
    const claim = this.claiming.then(async () => {
      const primes: bigint[] = [];
      while (primes.length < this.primes) primes.push(await this.search.next());
      return primes;
    });
    this.claiming = claim.catch(() => undefined);
    const primes = await claim;
    for (;;) {
      const pair = keyPairFromPrimes(primes, this.modulusBits);
      if (pair !== undefined) return pair;
      // The others are kept; the last one is replaced by the next prime found.
      this.search.wantOneMore();
      primes[primes.length - 1] = await this.search.next();
    }
  }
}

/** Signs and verifies once (FIPS 140 pairwise consistency test): the halves belong together. */
function pairwiseConsistent(privateKey: KeyObject, publicKey: KeyObject): boolean {
  const data = Buffer.from('ksctl pairwise consistency test');
  const padding = { padding: cryptoConstants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };
  const signature = sign('sha256', data, { key: privateKey, ...padding });
  return verify('sha256', data, { key: publicKey, ...padding }, signature);
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function lcm(a: bigint, b: bigint): bigint {
  return (a / gcd(a, b)) * b;
}

/** a⁻¹ mod m, for a coprime to m (extended Euclid). */
export function inverse(a: bigint, m: bigint): bigint {
  let [r0, r1] = [a % m, m];
  let [s0, s1] = [1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  if (r0 !== 1n) throw new RangeError('no inverse: the numbers are not coprime');
  return ((s0 % m) + m) % m;
}

function derInteger(n: bigint): Buffer {
  const hex = n.toString(16);
  const bytes = Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex');
  // A positive INTEGER whose first byte has its top bit set gets a zero byte in front.
  return derElement(0x02, bytes[0]! & 0x80 ? Buffer.concat([Buffer.of(0), bytes]) : bytes);
}

function derSequence(elements: Buffer[]): Buffer {
  return derElement(0x30, Buffer.concat(elements));
}

function derElement(tag: number, body: Buffer): Buffer {
  const length = body.length;
  const head =
    length < 0x80
      ? Buffer.of(tag, length)
      : length < 0x100
        ? Buffer.of(tag, 0x81, length)
        : Buffer.of(tag, 0x82, length >> 8, length & 0xff);
  return Buffer.concat([head, body]);
}

/**
 * RSA-3072 key pairs from two 1536-bit probable primes found by OpenSSL's prime search
 * (`crypto.generatePrime`, on Node's thread pool), put together here.
 *
 * Why not `crypto.generateKeyPair('rsa')`: OpenSSL 3.0, which Node 20 links, makes two-prime keys
 * of 2048 bits and more by the SP 800-56B method with auxiliary primes, which takes about four
 * times as long as searching the two primes directly (median ~650 ms against ~2 × 140 ms on the
 * machine this was measured on). The direct search is what OpenSSL 1.1.1 did for every RSA key
 * and what FIPS 186-4 B.3.3 describes for probable primes: random odd numbers with their top two
 * bits set (so the modulus has exactly 3072 bits), sieved and tested with 64 Miller-Rabin rounds
 * by OpenSSL; this module adds the checks of B.3.1 and 6.2 that depend on both primes. Searching
 * the two primes at once, one per core, also makes one key take about the longer of two searches
 * instead of their sum.
 *
 * The private exponent and the CRT values are computed with BigInt arithmetic, which does not run
 * in constant time; it runs once per key, in the process that keeps the key.
 */
import {
  createPrivateKey,
  createPublicKey,
  constants as cryptoConstants,
  generatePrime,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';

export const RSA_PUBLIC_EXPONENT = 65537n;

/** A key pair, as the enrollment protocol uses it. */
export interface RsaKeyPair {
  publicKey: KeyObject;
  privateKey: KeyObject;
}

/**
 * Searches beyond the primes the keys need before the supply gives up: each candidate fails the
 * checks below with a probability under 2^-16, so this many failures mean a broken prime source.
 */
const SPARE_SEARCHES = 30;

/** One random probable prime of `bits` bits (top two bits set), from OpenSSL. */
export function searchPrime(bits: number): Promise<bigint> {
  return new Promise((resolve, reject) => {
    generatePrime(bits, { bigint: true }, (error, prime) =>
      error ? reject(error) : resolve(prime as bigint),
    );
  });
}

/** Each prime's own conditions: odd, exactly `bits` bits with the top two set, and e ∤ p − 1. */
export function usablePrime(p: bigint, bits: number): boolean {
  return (p & 1n) === 1n && p >> BigInt(bits - 2) === 3n && (p - 1n) % RSA_PUBLIC_EXPONENT !== 0n;
}

/**
 * The key pair of the primes p and q (each of `modulusBits / 2` bits and usable), or undefined
 * when the pair is refused: p and q too close (FIPS 186-4 B.3.1: |p − q| ≤ 2^(nlen/2 − 100)), or
 * a private exponent too small (d ≤ 2^(nlen/2)). A pair that is refused is never used; both
 * refusals happen with a probability far below 2^-90 for random primes.
 */
export function keyPairFromPrimes(
  p: bigint,
  q: bigint,
  modulusBits: number,
): RsaKeyPair | undefined {
  const half = BigInt(modulusBits / 2);
  const distance = p > q ? p - q : q - p;
  if (distance <= 1n << (half - 100n)) return undefined;
  const e = RSA_PUBLIC_EXPONENT;
  const lambda = ((p - 1n) * (q - 1n)) / gcd(p - 1n, q - 1n);
  const d = inverse(e, lambda);
  if (d <= 1n << half) return undefined;
  const n = p * q;
  const bytes = modulusBits / 8;
  const privateKey = createPrivateKey({
    format: 'jwk',
    key: {
      kty: 'RSA',
      n: base64Url(n, bytes),
      e: base64Url(e),
      d: base64Url(d),
      p: base64Url(p),
      q: base64Url(q),
      dp: base64Url(d % (p - 1n)),
      dq: base64Url(d % (q - 1n)),
      qi: base64Url(inverse(q, p)),
    },
  });
  const publicKey = createPublicKey(privateKey);
  if (!pairwiseConsistent(privateKey, publicKey)) {
    throw new Error('a generated RSA key failed its pairwise consistency test');
  }
  return { privateKey, publicKey };
}

/**
 * An RSA key pair of `modulusBits` bits, with up to `searchesAtOnce` prime searches running at
 * once (1: one after the other; 2: both primes at once, on two threads of the pool).
 */
export function generateRsaKeyPair(
  modulusBits: number,
  searchesAtOnce: number,
  search: (bits: number) => Promise<bigint> = searchPrime,
): Promise<RsaKeyPair> {
  return new RsaKeySupply(modulusBits, 1, searchesAtOnce, search).take();
}

/**
 * Key pairs for `total` keys from one pool of prime searches, `searchesAtOnce` of them running
 * until every key has its primes: each prime goes to whichever key is waiting, so the searches
 * (whose times vary widely) keep every core they may use busy to the end, and keys come out as
 * fast as the cores can find primes. A search cannot be stopped: after an interruption, those
 * running finish and their primes are dropped.
 */
export class RsaKeySupply {
  private readonly found: bigint[] = [];
  private readonly waiting: { resolve: (p: bigint) => void; reject: (e: unknown) => void }[] = [];
  private readonly bits: number;
  /** Usable primes the keys need, counting replacements for refused pairs. */
  private needed: number;
  private usable = 0;
  private started = 0;
  private running = 0;
  private failure: unknown;
  /** Takers claim their two primes one after another, so the first key is ready first. */
  private claiming: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly modulusBits: number,
    total: number,
    private readonly searchesAtOnce: number,
    private readonly search: (bits: number) => Promise<bigint> = searchPrime,
  ) {
    this.bits = modulusBits / 2;
    this.needed = 2 * total;
    this.fill();
  }

  /** No more searches start (those running finish); keys not yet taken will not come. */
  stop(): void {
    this.fail(new Error('the key supply was stopped'));
  }

  /** The next key pair, as soon as two primes are found for it (keys in the order taken). */
  async take(): Promise<RsaKeyPair> {
    const claim = this.claiming.then(async () => {
      const first = await this.nextPrime();
      return [first, await this.nextPrime()] as const;
    });
    this.claiming = claim.catch(() => undefined);
    const [p, second] = await claim;
    let q = second;
    for (;;) {
      const pair = keyPairFromPrimes(p, q, this.modulusBits);
      if (pair !== undefined) return pair;
      // Keep p; q is replaced by the next prime found.
      this.needed++;
      this.fill();
      q = await this.nextPrime();
    }
  }

  private nextPrime(): Promise<bigint> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const prime = this.found.shift();
    if (prime !== undefined) return Promise.resolve(prime);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private fill(): void {
    while (
      this.failure === undefined &&
      this.running < Math.max(1, this.searchesAtOnce) &&
      this.usable + this.running < this.needed
    ) {
      if (this.started >= this.needed + SPARE_SEARCHES) {
        this.fail(new Error(`no RSA-${this.modulusBits} key after ${this.started} prime searches`));
        return;
      }
      this.started++;
      this.running++;
      this.search(this.bits).then(
        (prime) => {
          this.running--;
          if (usablePrime(prime, this.bits)) {
            this.usable++;
            const waiter = this.waiting.shift();
            if (waiter) waiter.resolve(prime);
            else this.found.push(prime);
          }
          this.fill();
        },
        (error: unknown) => {
          this.running--;
          this.fail(error);
        },
      );
    }
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.failure);
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

/** Base64url of the big-endian bytes of n, left-padded with zeros to `length` bytes if given. */
function base64Url(n: bigint, length = 0): string {
  const hex = n.toString(16);
  const digits = Math.max(length * 2, hex.length + (hex.length % 2));
  return Buffer.from(hex.padStart(digits, '0'), 'hex').toString('base64url');
}

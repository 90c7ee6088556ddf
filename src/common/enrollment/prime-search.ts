/**
 * The search for an RSA key's primes, in small steps that can stop between any two. OpenSSL's own
 * search (`crypto.generatePrime`) cannot be stopped once started, so a key whose two primes were
 * searched one per core waited for the longer search while the core that finished first idled.
 * Here every core draws candidates from one pool until the key has its primes, then nothing new
 * starts: a key waits about as long as the cores together take to find two primes.
 *
 * Each step tests one number with OpenSSL's Miller-Rabin (`crypto.checkPrime`, on Node's thread
 * pool). OpenSSL runs at least 64 rounds for numbers of up to 2048 bits whatever it is asked for
 * (one round asked of a prime costs what 64 do), and a composite fails its first round with
 * overwhelming probability: a composite costs one round (about 1.3 ms for 1536 bits), a prime its
 * 64 rounds (about 80 ms), as in generatePrime. Those rounds cannot be split over two threads (two
 * calls would make 128).
 *
 * The candidates: a random odd start with the top two bits set (so a modulus of two primes has
 * exactly twice their bits), then the numbers after it that have no small factor, in order, and
 * the first prime among them is taken. generatePrime moves from its random number only to the
 * first number without a small factor and draws a fresh one when that is composite; the search
 * here goes on from the same start, as incremental prime searches do, so a prime after a long gap
 * is likelier to be picked than one after a short gap (for gaps spread like primes', a loss of
 * about 0.6 bit of the prime's entropy), and one random start serves about 57 tests.
 *
 * The sieve runs here, on the main thread: over a window of numbers from the start, against the
 * odd primes below 2^15 (OpenSSL sieves each number against the first 384 primes, below 2^12),
 * and the numbers ≡ 1 mod e are struck out too (e ∤ p − 1). A finer sieve leaves fewer numbers to
 * test: about 57 tests per 1536-bit prime against OpenSSL's 76. A window yields its first prime
 * only, so two primes of one key are never close.
 */
import { checkPrime, randomBytes } from 'node:crypto';

/** The public exponent every key gets (F4). */
export const RSA_PUBLIC_EXPONENT = 65537n;

/** How a search steps: where its candidates come from and how each is tested (tests swap these). */
export interface PrimeSteps {
  /** The candidates of one fresh window of `bits`-bit numbers, in order. */
  window(bits: number): Iterator<bigint>;
  /** Whether `candidate` is a probable prime. */
  test(candidate: bigint): Promise<boolean>;
  /**
   * A test that has run this long is taken for a prime's full rounds: while it runs, the search
   * does not start more steps than the primes still missing need.
   */
  confirmingAfterMs: number;
}

/** OpenSSL's rounds, as generatePrime runs them for a prime of up to 2048 bits. */
const MILLER_RABIN_ROUNDS = 64;

/** The sieve's primes: the odd primes below this. */
const SIEVE_LIMIT = 1 << 15;

/**
 * Odd numbers in a window, per bit of the numbers: at 4 × bits the window holds about eight primes
 * on average, and misses one with a probability near 2^-16.
 */
const WINDOW_ODD_NUMBERS_PER_BIT = 4;

export const OPENSSL_STEPS: PrimeSteps = {
  window: (bits) => sievedCandidates(randomStart(bits), WINDOW_ODD_NUMBERS_PER_BIT * bits),
  test: (candidate) =>
    new Promise((resolve, reject) =>
      checkPrime(candidate, { checks: MILLER_RABIN_ROUNDS }, (error, prime) =>
        error ? reject(error) : resolve(prime),
      ),
    ),
  // A composite's test takes about 1.3 ms of CPU, a prime's about 80.
  confirmingAfterMs: 10,
};

/**
 * Windows searched beyond the primes wanted before the search gives up: a window holds no usable
 * prime with a probability near 2^-16, so this many mean a broken prime source.
 */
export const SPARE_WINDOWS = 30;

/** A random odd number of `bits` bits with its top two bits set. */
export function randomStart(bits: number): bigint {
  if (bits % 8 !== 0 || bits < 64) throw new RangeError(`no prime search for ${bits} bits`);
  const bytes = randomBytes(bits / 8);
  bytes[0]! |= 0xc0;
  bytes[bytes.length - 1]! |= 1;
  return BigInt(`0x${bytes.toString('hex')}`);
}

/**
 * The numbers start, start + 2, … (`count` of them, start odd) that have no odd prime factor below
 * SIEVE_LIMIT and are not ≡ 1 mod e, in order.
 */
export function* sievedCandidates(start: bigint, count: number): Generator<bigint> {
  const { primes, groupEnds, groupProducts } = sievePrimes();
  // struck[k]: start + 2k has a small factor (or is 1 mod e).
  const struck = new Uint8Array(count);
  let i = 0;
  for (let g = 0; g < groupEnds.length; g++) {
    // One BigInt division per group of primes whose product stays below 2^53, then Numbers.
    const r = Number(start % groupProducts[g]!);
    for (const end = groupEnds[g]!; i < end; i++) {
      const p = primes[i]!;
      strike(struck, (p - (r % p)) % p, p);
    }
  }
  const e = Number(RSA_PUBLIC_EXPONENT);
  strike(struck, (1 - Number(start % RSA_PUBLIC_EXPONENT) + e) % e, e);
  for (let k = 0; k < count; k++) if (struck[k] === 0) yield start + BigInt(2 * k);
}

/** Strikes every k with start + 2k ≡ start + `offset` (mod odd p), that is 2k ≡ offset. */
function strike(struck: Uint8Array, offset: number, p: number): void {
  for (let k = offset % 2 === 0 ? offset / 2 : (offset + p) / 2; k < struck.length; k += p) {
    struck[k] = 1;
  }
}

interface SievePrimes {
  primes: Int32Array;
  /** Group g holds primes[groupEnds[g - 1] ?? 0 … groupEnds[g]), their product groupProducts[g]. */
  groupEnds: Int32Array;
  groupProducts: bigint[];
}

let sieve: SievePrimes | undefined;

/** The odd primes below SIEVE_LIMIT (Eratosthenes over the odd numbers), made once. */
function sievePrimes(): SievePrimes {
  if (sieve !== undefined) return sieve;
  // Plain loops over typed arrays: this runs once per process, before V8 has compiled anything.
  const half = SIEVE_LIMIT / 2;
  const composite = new Uint8Array(half); // index i: the number 2i + 1
  const primes = new Int32Array(half / 2);
  let count = 0;
  for (let i = 1; i < half; i++) {
    if (composite[i] === 1) continue;
    const p = 2 * i + 1;
    primes[count++] = p;
    for (let j = (p * p - 1) / 2; j < half; j += p) composite[j] = 1;
  }
  const groupEnds = new Int32Array(count);
  const groupProducts: bigint[] = [];
  let product = 1;
  for (let i = 0; i < count; i++) {
    const p = primes[i]!;
    if (product * p > Number.MAX_SAFE_INTEGER) {
      groupEnds[groupProducts.length] = i;
      groupProducts.push(BigInt(product));
      product = 1;
    }
    product *= p;
  }
  groupEnds[groupProducts.length] = count;
  groupProducts.push(BigInt(product));
  sieve = {
    primes: primes.subarray(0, count),
    groupEnds: groupEnds.subarray(0, groupProducts.length),
    groupProducts,
  };
  return sieve;
}

/** Each prime's own conditions: odd, exactly `bits` bits with the top two set, and e ∤ p − 1. */
export function usablePrime(p: bigint, bits: number): boolean {
  return (p & 1n) === 1n && p >> BigInt(bits - 2) === 3n && (p - 1n) % RSA_PUBLIC_EXPONENT !== 0n;
}

/** One search slot: a thread's share of the pool. */
interface Slot {
  window?: Iterator<bigint>;
  /** When its test in flight started (performance.now()); undefined: none in flight. */
  since?: number;
}

/**
 * Usable primes of `bits` bits, `wanted` of them (more when asked), found by `slots` steps at once
 * and handed out in the order found. Once as many are found, or being confirmed, as are wanted, no
 * new step starts; after stop() none at all, and what is found meanwhile is dropped.
 */
export class PrimeSearch {
  private readonly slots: Slot[];
  private readonly found: bigint[] = [];
  private readonly waiting: { resolve: (p: bigint) => void; reject: (e: unknown) => void }[] = [];
  private usable = 0;
  private windows = 0;
  /** Windows ended without a usable prime: run out, or their prime refused. */
  private fruitless = 0;
  private failure: unknown;

  constructor(
    private readonly bits: number,
    private wanted: number,
    slots: number,
    private readonly steps: PrimeSteps = OPENSSL_STEPS,
  ) {
    this.slots = Array.from({ length: Math.max(1, slots) }, () => ({}));
    this.fill();
  }

  /** The next prime found, as soon as there is one. */
  next(): Promise<bigint> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const prime = this.found.shift();
    if (prime !== undefined) return Promise.resolve(prime);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** One prime more than asked for so far (one was refused). */
  wantOneMore(): void {
    this.wanted++;
    this.fill();
  }

  /** No step starts any more; those waiting for a prime get `error`. */
  stop(error: unknown = new Error('the prime search was stopped')): void {
    this.failure ??= error;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.failure);
  }

  private fill(): void {
    for (const slot of this.slots) {
      if (slot.since !== undefined) continue;
      if (this.failure !== undefined || this.usable + this.confirming() >= this.wanted) return;
      const candidate = this.nextCandidate(slot);
      if (candidate === undefined) return;
      this.step(slot, candidate);
    }
  }

  /** Tests in flight that have run long enough to be a prime's full rounds. */
  private confirming(): number {
    const now = performance.now();
    return this.slots.filter(
      (slot) => slot.since !== undefined && now - slot.since >= this.steps.confirmingAfterMs,
    ).length;
  }

  private nextCandidate(slot: Slot): bigint | undefined {
    for (;;) {
      if (slot.window === undefined) {
        if (this.fruitless >= SPARE_WINDOWS) {
          const searches = `${this.windows} prime searches`;
          this.stop(
            new Error(`no usable ${this.bits}-bit prime after ${searches}: the source is broken`),
          );
          return undefined;
        }
        slot.window = this.steps.window(this.bits);
        this.windows++;
      }
      const next = slot.window.next();
      if (next.done !== true) return next.value;
      slot.window = undefined;
      this.fruitless++;
    }
  }

  private step(slot: Slot, candidate: bigint): void {
    slot.since = performance.now();
    this.steps.test(candidate).then(
      (prime) => {
        slot.since = undefined;
        if (this.failure !== undefined) return;
        if (prime) {
          // A window yields one prime: the next one would be close to it.
          slot.window = undefined;
          if (usablePrime(candidate, this.bits)) this.deliver(candidate);
          else this.fruitless++;
        }
        this.fill();
      },
      (error: unknown) => {
        slot.since = undefined;
        this.stop(error);
      },
    );
  }

  private deliver(prime: bigint): void {
    this.usable++;
    const waiter = this.waiting.shift();
    if (waiter) waiter.resolve(prime);
    else this.found.push(prime);
  }
}

/** One random probable prime of `bits` bits (top two bits set, e ∤ p − 1). */
export function searchPrime(bits: number, steps: PrimeSteps = OPENSSL_STEPS): Promise<bigint> {
  return new PrimeSearch(bits, 1, 1, steps).next();
}

/**
 * Where device key pairs come from. A module of its own that imports nothing but the prime search
 * (in a chunk of its own, scripts/bundle.js), so `ksctl enroll` starts the RSA-3072 generation
 * before it loads the network chunk and everything else. Tests swap in a pre-generated pair;
 * there is deliberately no flag for that.
 */
import { availableParallelism } from 'node:os';
import type { DeviceKeyPair } from './protocol.js';
import {
  generateRsaKeyPair,
  RsaKeySupply,
  type RsaShape,
} from '../../common/enrollment/rsa-keygen.js';

/**
 * A device key: RSA-3072 of two primes, the usual form, which any SDK's persistor can store. The
 * size is the contract's RSA_MODULUS_BITS (crypto.ts), written out so that this module loads no
 * more; buildRegistration checks every device key against it.
 */
export const DEVICE_KEY_SHAPE: RsaShape = { modulusBits: 3072, primes: 2 };

/**
 * An RSA-3072 key pair, its primes tested on the thread pool (so bulk enrollment and spinners
 * keep running meanwhile), `searchesAtOnce` steps of the search at once (src/common/enrollment/rsa-keygen.ts).
 */
export function generateDeviceKeyPair(searchesAtOnce = 1): Promise<DeviceKeyPair> {
  return generateRsaKeyPair(DEVICE_KEY_SHAPE, searchesAtOnce);
}

export interface GenerateOptions {
  /**
   * Steps of the prime search at once for this key (default 1). One key wanted as soon as
   * possible: 2, so two cores search until the key has both primes (src/common/enrollment/prime-search.ts).
   */
  searchesAtOnce?: number;
}

/** Hands out the key pairs of many devices, generated ahead of them. */
export interface KeyPairSupply {
  take(): Promise<DeviceKeyPair>;
  /** Once no more keys are wanted (all taken, or interrupted): no new step of the search starts. */
  stop(): void;
}

export const deviceKeySource: {
  generate: (options?: GenerateOptions) => Promise<DeviceKeyPair>;
  /**
   * Key pairs for `total` devices (bulk enrollment): `searchesAtOnce` steps of one prime search
   * keep going, ahead of the devices, until every device has its key (src/common/enrollment/rsa-keygen.ts).
   */
  supply: (total: number, searchesAtOnce: number) => KeyPairSupply;
} = {
  generate: (options) => generateDeviceKeyPair(options?.searchesAtOnce ?? 1),
  supply: (total, searchesAtOnce) => new RsaKeySupply(DEVICE_KEY_SHAPE, total, searchesAtOnce),
};

/**
 * How many steps of the prime search this process runs at once at most: one per core, but leaving
 * a thread of Node's pool (UV_THREADPOOL_SIZE, 4 unless set) free for the file reads and name
 * lookups of the enrollments going on meanwhile.
 */
export function searchSlots(env: NodeJS.ProcessEnv = process.env): number {
  const size = Number(env.UV_THREADPOOL_SIZE);
  const pool = Number.isInteger(size) && size >= 1 && size <= 1024 ? size : 4;
  return Math.max(1, Math.min(availableParallelism(), pool - 1));
}

/** Enrollments at once in a bulk run unless told: one per core, at most 4. */
export function defaultConcurrency(): number {
  return Math.min(4, availableParallelism());
}

/**
 * The key pairs of a bulk run of `count` devices, `concurrency` (default defaultConcurrency) at
 * once: as many steps of the prime search at once as the devices in flight can use cores.
 */
export function bulkKeySupply(count: number, concurrency = defaultConcurrency()): KeyPairSupply {
  return deviceKeySource.supply(count, Math.min(concurrency, searchSlots()));
}

/**
 * Where device key pairs come from. A module of its own, light to load, so `ksctl enroll` can
 * start the RSA-3072 generation before it loads anything else. Tests swap in a pre-generated
 * pair; there is deliberately no flag for that.
 */
import { availableParallelism } from 'node:os';
import { DEVICE_KEY_SHAPE, type DeviceKeyPair, generateDeviceKeyPair } from './protocol.js';
import { RsaKeySupply } from './rsa-keygen.js';

export interface GenerateOptions {
  /**
   * Prime searches run at once for this key (default 1). One key wanted as soon as possible: 2,
   * so both primes are searched on two cores and the key takes the longer of two searches
   * instead of their sum (src/enroll/rsa-keygen.ts).
   */
  searchesAtOnce?: number;
}

/** Hands out the key pairs of many devices, generated ahead of them. */
export interface KeyPairSupply {
  take(): Promise<DeviceKeyPair>;
  /** Once no more keys are wanted (all taken, or interrupted): no new searches start. */
  stop(): void;
}

export const deviceKeySource: {
  generate: (options?: GenerateOptions) => Promise<DeviceKeyPair>;
  /**
   * Key pairs for `total` devices (bulk enrollment): `searchesAtOnce` prime searches keep going,
   * ahead of the devices, until every device has its key (src/enroll/rsa-keygen.ts).
   */
  supply: (total: number, searchesAtOnce: number) => KeyPairSupply;
} = {
  generate: (options) => generateDeviceKeyPair(options?.searchesAtOnce ?? 1),
  supply: (total, searchesAtOnce) => new RsaKeySupply(DEVICE_KEY_SHAPE, total, searchesAtOnce),
};

/**
 * How many prime searches this process runs at once at most: one per core, but leaving a thread
 * of Node's pool (UV_THREADPOOL_SIZE, 4 unless set) free for the file reads and name lookups of
 * the enrollments going on meanwhile. A search cannot be stopped once started.
 */
export function searchSlots(env: NodeJS.ProcessEnv = process.env): number {
  const size = Number(env.UV_THREADPOOL_SIZE);
  const pool = Number.isInteger(size) && size >= 1 && size <= 1024 ? size : 4;
  return Math.max(1, Math.min(availableParallelism(), pool - 1));
}

/**
 * Where device key pairs come from. A module of its own, light to load, so `ksctl enroll` can
 * start the RSA-3072 generation before it loads anything else. Tests swap in a pre-generated
 * pair; there is deliberately no flag for that.
 */
import { availableParallelism } from 'node:os';
import { type DeviceKeyPair, generateDeviceKeyPair } from './protocol.js';

export interface GenerateOptions {
  /**
   * Prime searches run at once for this key (default 1). One key wanted as soon as possible: 2,
   * so both primes are searched on two cores and the key takes the longer of two searches
   * instead of their sum (src/enroll/rsa-keygen.ts).
   */
  searchesAtOnce?: number;
}

export const deviceKeySource: { generate: (options?: GenerateOptions) => Promise<DeviceKeyPair> } =
  {
    generate: (options) => generateDeviceKeyPair(options?.searchesAtOnce ?? 1),
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

/**
 * Key pairs for `total` devices, generated ahead of the devices that use them: up to `ahead`
 * generations at once (each searching its primes one after the other, so `ahead` cores), each holding its slot until its pair is both generated and taken. Device
 * i registers over the network while the key of device i + `ahead` is being generated, so the
 * cores stay busy without piling up unused keys.
 */
export class KeyPairSupply {
  private readonly waiting: { keys: Promise<DeviceKeyPair>; taken: boolean; done: boolean }[] = [];
  private started = 0;
  private held = 0;

  constructor(
    private readonly total: number,
    private readonly ahead: number,
  ) {
    this.fill();
  }

  /** The next key pair (generated or on its way). */
  take(): Promise<DeviceKeyPair> {
    if (this.waiting.length === 0) this.start();
    const entry = this.waiting.shift()!;
    entry.taken = true;
    if (entry.done) this.release();
    return entry.keys;
  }

  private fill(): void {
    while (this.held < Math.max(1, this.ahead) && this.started < this.total) this.start();
  }

  private start(): void {
    this.started++;
    this.held++;
    const entry = { keys: deviceKeySource.generate(), taken: false, done: false };
    // Not taken after an interruption: not an unhandled error.
    entry.keys.catch(() => undefined);
    void entry.keys
      .catch(() => undefined)
      .then(() => {
        entry.done = true;
        if (entry.taken) this.release();
      });
    this.waiting.push(entry);
  }

  private release(): void {
    this.held--;
    this.fill();
  }
}

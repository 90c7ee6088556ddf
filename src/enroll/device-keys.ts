/**
 * Where device key pairs come from. A module of its own, light to load, so `ksctl enroll` can
 * start the RSA-3072 generation (seconds) before it loads anything else. Tests swap in a
 * pre-generated pair; there is deliberately no flag for that.
 */
import { spawn } from 'node:child_process';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { RSA_MODULUS_BITS } from './crypto.js';
import { type DeviceKeyPair, generateDeviceKeyPair } from './protocol.js';

export interface GenerateOptions {
  /**
   * One key pair wanted as soon as possible: with a second core, two generations race and the
   * first one wins.
   */
  race?: boolean;
}

export const deviceKeySource: { generate: (options?: GenerateOptions) => Promise<DeviceKeyPair> } =
  {
    generate: (options) =>
      options?.race && availableParallelism() >= 2 ? firstOfTwo() : generateDeviceKeyPair(),
  };

/*
 * Finding the primes of an RSA key is a random search: one generation takes anywhere from a
 * fraction of the median to several times it, so the first of two is much faster than one in the
 * median. The racers run in child processes because only a process can be stopped in the middle
 * of a generation: a losing generation on Node's own thread pool would run to its end, and the
 * process waits for it before it exits.
 */
const CHILD_SCRIPT = `
const { generateKeyPairSync } = require('node:crypto');
const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: ${RSA_MODULUS_BITS},
  privateKeyEncoding: { type: 'pkcs8', format: 'der' },
  publicKeyEncoding: { type: 'spki', format: 'der' },
});
process.stdout.end(privateKey);
`;

interface Racer {
  keys: Promise<DeviceKeyPair>;
  stop(): void;
}

function generateInChild(): Racer {
  const child = spawn(process.execPath, ['-e', CHILD_SCRIPT], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const keys = new Promise<DeviceKeyPair>((resolve, reject) => {
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`key generation process exited with ${code}`));
      try {
        const privateKey = createPrivateKey({
          key: Buffer.concat(chunks),
          format: 'der',
          type: 'pkcs8',
        });
        resolve({ privateKey, publicKey: createPublicKey(privateKey) });
      } catch (error) {
        reject(error);
      }
    });
  });
  return { keys, stop: () => void (child.exitCode === null && child.kill('SIGKILL')) };
}

/** The first of two generations; the other is stopped unused. Falls back to one in-process. */
async function firstOfTwo(): Promise<DeviceKeyPair> {
  const racers = [generateInChild(), generateInChild()];
  try {
    return await Promise.any(racers.map((r) => r.keys));
  } catch {
    // Child processes unavailable (a process limit, a sandbox): the same generation in-process.
    return generateDeviceKeyPair();
  } finally {
    for (const racer of racers) racer.stop();
  }
}

/**
 * Key pairs for `total` devices, generated ahead of the devices that use them: up to `ahead`
 * generations at once, each holding its slot until its pair is both generated and taken. Device
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

/**
 * The RSA work of registrations (OAEP decryption, key parsing, PSS verification: most of a
 * registration's time) on a few worker threads, one per core, so that during an enrollment storm
 * the mock still answers health checks and markings requests at once. Started on first use,
 * closed with the server. Run from the TypeScript sources (the tests), where no compiled worker
 * exists, the same function runs on the calling thread.
 */
import type { KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type OpenedRegistration, openRegistration } from './service-side.js';
import { executableText } from '../../../common/package-root.js';

export interface OpenJob {
  id: number;
  body: unknown;
  keyspace: string;
  privateKey: KeyObject;
}

export type OpenResult = { id: number; opened: OpenedRegistration } | { id: number; error: string };

const WORKER_FILE = new URL('./crypto-worker.js', import.meta.url);
/**
 * In the single executable, the worker is an asset: its CommonJS build (scripts/bundle.js
 * --standalone), run from its text.
 */
const WORKER_SOURCE = executableText('bundle/crypto-worker.cjs');

interface PoolWorker {
  worker: Worker;
  pending: Map<number, { resolve: (o: OpenedRegistration) => void; reject: (e: Error) => void }>;
}

export class CryptoPool {
  private readonly workers: PoolWorker[] = [];
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly size = availableParallelism(),
    private readonly useThreads = WORKER_SOURCE !== undefined ||
      existsSync(fileURLToPath(WORKER_FILE)),
  ) {}

  /** openRegistration (src/mock/model/enrollment/service-side.ts), on the least busy worker. */
  async open(body: unknown, keyspace: string, privateKey: KeyObject): Promise<OpenedRegistration> {
    if (!this.useThreads || this.closed) return openRegistration(body, keyspace, privateKey);
    const target = this.leastBusy();
    const id = this.nextId++;
    const opened = await new Promise<OpenedRegistration>((resolve, reject) => {
      target.pending.set(id, { resolve, reject });
      target.worker.postMessage({ id, body, keyspace, privateKey } satisfies OpenJob);
    });
    // Buffers arrive as plain Uint8Arrays.
    return opened.ok ? { ...opened, aesKey: Buffer.from(opened.aesKey) } : opened;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.splice(0).map((w) => w.worker.terminate()));
  }

  private leastBusy(): PoolWorker {
    let best: PoolWorker | undefined;
    for (const w of this.workers) if (!best || w.pending.size < best.pending.size) best = w;
    if (best && (best.pending.size === 0 || this.workers.length >= Math.max(1, this.size))) {
      return best;
    }
    return this.start();
  }

  private start(): PoolWorker {
    const worker =
      WORKER_SOURCE === undefined
        ? new Worker(WORKER_FILE)
        : new Worker(WORKER_SOURCE, { eval: true });
    const entry: PoolWorker = { worker, pending: new Map() };
    const { pending } = entry;
    // An idle pool never keeps the process alive; close() ends it with the server.
    worker.unref();
    worker.on('message', (result: OpenResult) => {
      const waiting = pending.get(result.id);
      pending.delete(result.id);
      if ('opened' in result) waiting?.resolve(result.opened);
      else waiting?.reject(new Error(`crypto worker: ${result.error}`));
    });
    const fail = (error: Error) => {
      const index = this.workers.indexOf(entry);
      if (index >= 0) this.workers.splice(index, 1);
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`crypto worker exited with ${code}`)));
    this.workers.push(entry);
    return entry;
  }
}

/**
 * Request bodies as JSON, bounded (docs/design.md 3.2.1): strict UTF-8, at most MAX_JSON_DEPTH levels
 * of nesting (checked on the bytes, before parsing: V8 parses a 30 MiB `[[[[…` for seconds and
 * gigabytes), and large bodies parsed off the main thread, so a maximal body that is then
 * rejected never holds up the other clients' requests.
 */
import { Worker } from 'node:worker_threads';

/** Deeper than any body the service accepts (a marking is 4 levels); enough for any client. */
export const MAX_JSON_DEPTH = 64;

/** Bodies up to this size parse in a few milliseconds: on the main thread. */
export const OFF_THREAD_BYTES = 256 * 1024;

/** Heap of the parsing thread: a pathological body costs it, never the server. */
const WORKER_HEAP_MB = 512;

/**
 * Limits of what a body may hold, checked where it is parsed: a value the routes would reject
 * anyway is rejected before it reaches the main thread, where building it could take seconds
 * (16 M array items, or counting the characters of a 32 MiB name).
 */
export interface JsonLimits {
  /** Most items in any one array. */
  maxArrayLength: number;
  /** Longest string or member name, in UTF-16 units. */
  maxStringLength: number;
  /** Most values in the whole body (objects, arrays, strings, numbers and literals). */
  maxValues?: number;
}

export type ParsedJson =
  | { ok: true; value: unknown }
  | { ok: false; problem: 'encoding' | 'syntax' | 'depth' | 'array' | 'string' | 'values' };

/**
 * Parses `bytes` within the bounds. Self-contained (no outside names), because the parsing
 * thread runs its source text.
 */
function parseBounded(bytes: Uint8Array, maxDepth: number, limits?: JsonLimits): ParsedJson {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return { ok: false, problem: 'depth' };
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, problem: 'encoding' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'syntax' };
  }
  const pending = limits ? [value] : [];
  let values = 0;
  const maxValues = limits?.maxValues ?? Infinity;
  while (pending.length > 0) {
    if (++values > maxValues) return { ok: false, problem: 'values' };
    const item = pending.pop();
    if (typeof item === 'string') {
      if (item.length > limits!.maxStringLength) return { ok: false, problem: 'string' };
    } else if (Array.isArray(item)) {
      if (item.length > limits!.maxArrayLength) return { ok: false, problem: 'array' };
      for (const element of item) pending.push(element);
    } else if (typeof item === 'object' && item !== null) {
      for (const [name, member] of Object.entries(item)) {
        if (name.length > limits!.maxStringLength) return { ok: false, problem: 'string' };
        pending.push(member);
      }
    }
  }
  return { ok: true, value };
}

/**
 * The parsing thread checks the body (encoding, syntax, depth, limits) and answers with its text,
 * which the main thread parses again: cloning the parsed value across threads costs about twice
 * a JSON.parse of its text on the main thread alone (1 MiB of a bulk request: ~25 ms against
 * ~12 ms), while a string crosses in one copy. A body that fails a check never reaches the main
 * thread.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const parseBounded = ${parseBounded.toString()};
parentPort.on('message', ({ id, bytes, maxDepth, limits }) => {
  const result = parseBounded(bytes, maxDepth, limits);
  const text = result.ok ? new TextDecoder().decode(bytes) : undefined;
  parentPort.postMessage({ id, result: result.ok ? { ok: true, text } : result });
});
`;

/** What the parsing thread answers: the checked text instead of the value. */
type CheckedJson = { ok: true; text: string } | Extract<ParsedJson, { ok: false }>;

interface Job {
  resolve(result: ParsedJson): void;
  reject(error: Error): void;
}

/**
 * One parsing thread for the whole process, started on first use and not keeping the process
 * alive. Jobs run one after the other; a thread that dies (out of memory on a pathological
 * body) fails its jobs and is replaced on the next use.
 */
class JsonThread {
  private worker: Worker | undefined;
  private readonly jobs = new Map<number, Job>();
  private nextId = 0;

  parse(bytes: Uint8Array, limits: JsonLimits | undefined): Promise<ParsedJson> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.jobs.set(id, { resolve, reject });
      // A body in shared memory is shared, others are copied: either way the request keeps it.
      worker.postMessage({ id, bytes, maxDepth: MAX_JSON_DEPTH, limits });
      worker.ref();
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    worker.unref();
    worker.on('message', ({ id, result }: { id: number; result: CheckedJson }) => {
      this.jobs.get(id)?.resolve(result.ok ? { ok: true, value: JSON.parse(result.text) } : result);
      this.jobs.delete(id);
      if (this.jobs.size === 0) worker.unref();
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const job of this.jobs.values()) job.reject(error);
      this.jobs.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the JSON parsing thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}

const thread = new JsonThread();

/** `bytes` as JSON within the bounds; large bodies are parsed on the parsing thread. */
export function parseJsonBody(bytes: Uint8Array, limits?: JsonLimits): Promise<ParsedJson> {
  if (bytes.length <= OFF_THREAD_BYTES) {
    return Promise.resolve(parseBounded(bytes, MAX_JSON_DEPTH, limits));
  }
  return thread.parse(bytes, limits);
}

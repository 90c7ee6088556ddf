/**
 * Request bodies as JSON, bounded (docs/design.md 3.2.1): strict UTF-8, at most MAX_JSON_DEPTH levels
 * of nesting (checked on the bytes, before parsing: V8 parses a 30 MiB `[[[[…` for seconds and
 * gigabytes), and large bodies parsed off the main thread, so a maximal body that is then
 * rejected never holds up the other clients' requests.
 */
import { Worker } from 'node:worker_threads';
import { Pacer } from './pacing.js';

/** Deeper than any body the service accepts (a marking is 4 levels); enough for any client. */
export const MAX_JSON_DEPTH = 64;

/**
 * Bodies up to this size parse in well under a millisecond: on the main thread. Larger ones go to
 * the parsing thread: eight clients sending 200 KiB bodies, each decoded and parsed here, held
 * health checks for hundreds of milliseconds (issue 34, `npm run bench -- --only journal-flood`).
 */
export const OFF_THREAD_BYTES = 64 * 1024;

/** Heap of the parsing thread: a pathological body costs it, never the server. */
const WORKER_HEAP_MB = 512;
/**
 * Its young generation: what it parses is handed over at once and dies there, so a small one
 * costs a few more collections off the main thread, and saves the mock the tens of MiB a
 * default one grows to while clients send large bodies (issue 34).
 */
const WORKER_YOUNG_MB = 4;

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

/** A limit gone over, in words: `what` (the body, the envelope's content) holds too much. */
export function overLimit(
  problem: 'array' | 'string' | 'values',
  limits: JsonLimits,
  what: string,
): string {
  if (problem === 'array')
    return `${what} holds an array of more than ${limits.maxArrayLength} items`;
  if (problem === 'string') {
    return `${what} holds a string longer than ${limits.maxStringLength} characters`;
  }
  return `${what} holds more than ${String(limits.maxValues)} values`;
}

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
  // A value takes a byte at least, an array of n items or a string of n UTF-16 units n bytes at
  // least: a body no longer than the smallest limit cannot go over one (nor need walking).
  const smallest = limits
    ? Math.min(limits.maxArrayLength, limits.maxStringLength, limits.maxValues ?? Infinity)
    : Infinity;
  const pending = bytes.length > smallest ? [value] : [];
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
      // Names, then each member by its name: no [name, member] pair made for every member.
      for (const name of Object.keys(item)) {
        if (name.length > limits!.maxStringLength) return { ok: false, problem: 'string' };
        pending.push((item as Record<string, unknown>)[name]);
      }
    }
  }
  return { ok: true, value };
}

/** The kinds of piece the parsing thread hands over (given to toPieces there). */
const PIECE = {
  /** A whole value (a small one: at most PIECE_VALUES values). */
  value: 0,
  /** The name of the next member, as JSON text. */
  name: 1,
  openArray: 2,
  openObject: 3,
  close: 4,
} as const;

/** Values in one piece at most: parsed on the main thread in a fraction of a millisecond. */
const PIECE_VALUES = 2000;

/**
 * The body as pieces: `text` holds them one after the other, `ops` three numbers a piece (its
 * kind, start and end in `text`). Small values are one piece; a large array or object opens, its
 * members follow, and it closes. Self-contained, like parseBounded (the parsing thread runs it).
 */
function toPieces(
  value: unknown,
  pieceValues: number,
  kind: typeof PIECE,
): { text: string; ops: Int32Array } {
  const isContainer = (v: unknown): v is object => typeof v === 'object' && v !== null;
  const members = (v: object): unknown[] => (Array.isArray(v) ? v : Object.values(v));
  // Values in each container, counted leaves first without recursion.
  const sizes = new Map<object, number>();
  const pending: [object, boolean][] = isContainer(value) ? [[value, false]] : [];
  while (pending.length > 0) {
    const [container, counted] = pending.pop()!;
    if (counted) {
      let size = 1;
      for (const m of members(container)) size += isContainer(m) ? sizes.get(m)! : 1;
      sizes.set(container, size);
    } else {
      pending.push([container, true]);
      for (const m of members(container)) if (isContainer(m)) pending.push([m, false]);
    }
  }
  const parts: string[] = [];
  const ops: number[] = [];
  let at = 0;
  const piece = (kind: number, text = '') => {
    parts.push(text);
    ops.push(kind, at, at + text.length);
    at += text.length;
  };
  // Depth is bounded by the check before (MAX_JSON_DEPTH), so recursion is safe here.
  const write = (v: unknown): void => {
    if (!isContainer(v) || sizes.get(v)! <= pieceValues) piece(kind.value, JSON.stringify(v));
    else if (Array.isArray(v)) {
      piece(kind.openArray);
      for (const m of v) write(m);
      piece(kind.close);
    } else {
      piece(kind.openObject);
      for (const [name, m] of Object.entries(v)) {
        piece(kind.name, JSON.stringify(name));
        write(m);
      }
      piece(kind.close);
    }
  };
  write(value);
  return { text: parts.join(''), ops: Int32Array.from(ops) };
}

/**
 * The parsing thread checks the body (encoding, syntax, depth, limits) and hands it over in
 * pieces (toPieces), which the main thread parses one after the other with pauses between
 * slices (pacing.ts): a 32 MiB body parsed again in one JSON.parse held the mock for a few
 * hundred milliseconds. Cloning the parsed value across threads costs more than parsing its text
 * (and all on the main thread), while a string and an Int32Array cross in one copy each. A body
 * that fails a check never reaches the main thread.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const parseBounded = ${parseBounded.toString()};
const toPieces = ${toPieces.toString()};
parentPort.on('message', ({ id, bytes, maxDepth, limits }) => {
  const result = parseBounded(bytes, maxDepth, limits);
  if (!result.ok) return parentPort.postMessage({ id, result });
  const { text, ops } = toPieces(result.value, ${PIECE_VALUES}, ${JSON.stringify(PIECE)});
  parentPort.postMessage({ id, result: { ok: true, text, ops } }, [ops.buffer]);
});
`;

/** What the parsing thread answers: the checked body in pieces instead of the value. */
type CheckedJson = { ok: true; text: string; ops: Int32Array } | Extract<ParsedJson, { ok: false }>;

/** The value of a body in pieces (toPieces), parsed piece by piece in slices. */
async function fromPieces(text: string, ops: Int32Array): Promise<unknown> {
  const pacer = new Pacer();
  const open: (unknown[] | Record<string, unknown>)[] = [];
  let name = '';
  let root: unknown;
  const add = (value: unknown) => {
    const parent = open.at(-1);
    if (parent === undefined) root = value;
    else if (Array.isArray(parent)) parent.push(value);
    // As JSON.parse does: a member named __proto__ is a member, not the prototype.
    else
      Object.defineProperty(parent, name, {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
      });
  };
  for (let i = 0; i < ops.length; i += 3) {
    if (pacer.due()) await pacer.pause();
    const kind = ops[i];
    const piece = () => text.slice(ops[i + 1], ops[i + 2]);
    if (kind === PIECE.value) add(JSON.parse(piece()));
    else if (kind === PIECE.name) name = JSON.parse(piece()) as string;
    else if (kind === PIECE.close) open.pop();
    else {
      const container = kind === PIECE.openArray ? [] : {};
      add(container);
      open.push(container);
    }
  }
  return root;
}

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
      resourceLimits: {
        maxOldGenerationSizeMb: WORKER_HEAP_MB,
        maxYoungGenerationSizeMb: WORKER_YOUNG_MB,
      },
    });
    worker.unref();
    worker.on('message', ({ id, result }: { id: number; result: CheckedJson }) => {
      const job = this.jobs.get(id);
      this.jobs.delete(id);
      if (this.jobs.size === 0) worker.unref();
      if (!result.ok) job?.resolve(result);
      else {
        fromPieces(result.text, result.ops).then(
          (value) => job?.resolve({ ok: true, value }),
          (error: unknown) => job?.reject(error as Error),
        );
      }
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

/**
 * The state's files: lines of `{"k": kind, "d": data}` after a header line that names the format
 * version and the generation. The journal is append-only; a write is on disk (fdatasync) before
 * the request that made it is answered. Records of requests that arrive together share one write
 * and one flush (group commit).
 */
import { type FileHandle, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InputError } from '../../errors.js';
import { syncDirectory } from '../../files/atomic-write.js';
import { RECORD_KINDS, type StateRecord } from './records.js';

export const STATE_FILE_FORMAT = 'ksctl-mock-state';
/** Raise when a record changes meaning; an older ksctl then refuses the files instead of misreading them. */
export const STATE_FORMAT_VERSION = 1;

export function headerLine(generation: number): string {
  return `${JSON.stringify({ format: STATE_FILE_FORMAT, version: STATE_FORMAT_VERSION, generation })}\n`;
}

export function recordLine(kind: string, data: unknown): string {
  return `${JSON.stringify({ k: kind, d: data })}\n`;
}

export interface StateFile {
  generation: number;
  records: StateRecord[];
  /** Bytes of the file up to the last whole record (a torn tail is cut there). */
  goodBytes: number;
  /** Set when the last line was torn (a crash while it was written) and has been left out. */
  tornTail?: string;
}

/**
 * Reads a journal or snapshot. A torn last line is left out (it was never acknowledged); anything
 * else that does not read is an error, and so is a newer format version: such files are refused,
 * never rewritten.
 */
export function parseStateFile(text: string, name: string, generation: number): StateFile {
  const lines = text.split('\n');
  // After the last newline: empty when the file ends with a whole line.
  const tail = lines.pop()!;
  let tornBytes = Buffer.byteLength(tail);
  let torn = tail !== '' ? 'an incomplete last line' : undefined;
  const parsed: unknown[] = [];
  for (let i = 0; i < lines.length; i++) {
    try {
      parsed.push(JSON.parse(lines[i]!));
    } catch {
      if (i === lines.length - 1 && torn === undefined) {
        torn = 'a last line that does not parse';
        tornBytes += Buffer.byteLength(lines.pop()!) + 1;
        break;
      }
      throw new InputError(`${name}:${i + 1}: not a state record; the state is damaged`, {
        hint: 'start with another --state directory, or restore this one from a backup',
      });
    }
  }
  const goodBytes = Buffer.byteLength(text) - (torn === undefined ? 0 : tornBytes);
  if (parsed.length === 0) return { generation, records: [], goodBytes, tornTail: torn };
  const header = parsed[0] as { format?: unknown; version?: unknown; generation?: unknown };
  if (header.format !== STATE_FILE_FORMAT || typeof header.version !== 'number') {
    throw new InputError(`${name} is not a ksctl mock state file`);
  }
  if (header.version > STATE_FORMAT_VERSION) {
    throw new InputError(
      `${name} was written by a newer ksctl (state format ${header.version}; this ksctl reads format ${STATE_FORMAT_VERSION})`,
      { hint: 'run the newer ksctl on this directory, or use another --state directory' },
    );
  }
  const records = parsed.slice(1).map((line, i): StateRecord => {
    const { k, d } = (line ?? {}) as { k?: unknown; d?: unknown };
    if (typeof k !== 'string' || !Object.hasOwn(RECORD_KINDS, k)) {
      throw new InputError(`${name}:${i + 2}: unknown state record ${JSON.stringify(k)}`);
    }
    return [k, d];
  });
  const fileGeneration = typeof header.generation === 'number' ? header.generation : generation;
  return { generation: fileGeneration, records, goodBytes, tornTail: torn };
}

interface Waiter {
  upTo: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** One journal file open for appending, with group commit. */
export class JournalFile {
  private pending: string[] = [];
  /** Lines appended so far, and how many of them are on disk. */
  private appended = 0;
  private durable = 0;
  private waiters: Waiter[] = [];
  private flushing: Promise<void> | undefined;

  private constructor(
    private readonly handle: FileHandle,
    /** Bytes on disk: where a failed write is cut back to. */
    private bytes: number,
  ) {}

  /** Opens a journal for appending, cut back to `goodBytes`; a new one gets its header first. */
  static async open(path: string, generation: number, goodBytes?: number): Promise<JournalFile> {
    const handle = await open(path, goodBytes === undefined ? 'wx' : 'r+', 0o600);
    try {
      if (goodBytes === undefined || goodBytes === 0) {
        const header = headerLine(generation);
        await handle.truncate(0);
        await handle.write(header, 0);
        await handle.datasync();
        // The new name must survive a crash as well as its contents.
        await syncDirectory(dirname(path));
        return new JournalFile(handle, Buffer.byteLength(header));
      }
      // A torn tail was never acknowledged: cut it, so new records do not follow half a line.
      await handle.truncate(goodBytes);
      await handle.datasync();
      return new JournalFile(handle, goodBytes);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  get size(): number {
    return this.bytes;
  }

  append(line: string): void {
    this.pending.push(line);
    this.appended++;
    this.schedule();
  }

  /** Resolves once every line appended so far is on disk. */
  sync(): Promise<void> {
    if (this.durable >= this.appended) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ upTo: this.appended, resolve, reject });
      this.schedule();
    });
  }

  /** Flushes what is pending, then closes the file. */
  async close(): Promise<void> {
    try {
      await this.sync();
    } finally {
      await this.flushing;
      await this.handle.close();
    }
  }

  private schedule(): void {
    // Everything appended in this turn of the event loop goes into the same write.
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
      this.flushAll(),
    );
  }

  private async flushAll(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        const upTo = this.durable + batch.length;
        this.pending = [];
        const data = Buffer.from(batch.join(''), 'utf8');
        try {
          await this.handle.write(data, 0, data.length, this.bytes);
          await this.handle.datasync();
        } catch (error) {
          // Keep the file whole and the lines in order: the batch is retried with the next one.
          await this.handle.truncate(this.bytes).catch(() => undefined);
          this.pending = [...batch, ...this.pending];
          this.settle(Number.POSITIVE_INFINITY, error);
          return;
        }
        this.bytes += data.length;
        this.durable = upTo;
        this.settle(upTo);
      }
    } finally {
      this.flushing = undefined;
    }
  }

  private settle(upTo: number, error?: unknown): void {
    const done = this.waiters.filter((w) => w.upTo <= upTo);
    this.waiters = this.waiters.filter((w) => w.upTo > upTo);
    for (const w of done) {
      if (error === undefined) w.resolve();
      else w.reject(error);
    }
  }
}

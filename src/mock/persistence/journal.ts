/**
 * The journal file: records appended after a header line (their format: integrity.ts). It is
 * append-only; a write is on disk (fdatasync) before the request that made it is answered.
 * Records of requests that arrive together share one write and one flush (group commit).
 */
import { type FileHandle, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { syncDirectory } from '../../common/files/atomic-write.js';
import { fileError } from '../../common/files/fs-errors.js';

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
  private before: Promise<unknown> | undefined;

  private constructor(
    private readonly handle: FileHandle,
    /** Bytes on disk: where a failed write is cut back to. */
    private bytes: number,
  ) {}

  /**
   * Opens a journal for appending: a new one (`replace`: over a file that holds nothing) gets its
   * header first; an existing one is cut back to `goodBytes` (a torn tail a crash left). Errors
   * name the file.
   */
  static async open(
    path: string,
    options: { header: string; replace?: boolean } | { goodBytes: number },
  ): Promise<JournalFile> {
    let handle: FileHandle;
    try {
      handle = await open(path, 'header' in options ? (options.replace ? 'w' : 'wx') : 'r+', 0o600);
    } catch (error) {
      throw fileError('open', path, error);
    }
    try {
      if ('header' in options) {
        await handle.write(options.header, 0);
        await handle.datasync();
        // The new name must survive a crash as well as its contents.
        await syncDirectory(dirname(path));
        return new JournalFile(handle, Buffer.byteLength(options.header));
      }
      // A torn tail was never acknowledged: cut it, so new records do not follow half a line.
      if ((await handle.stat()).size > options.goodBytes) {
        await handle.truncate(options.goodBytes);
        await handle.datasync();
      }
      return new JournalFile(handle, options.goodBytes);
    } catch (error) {
      await handle.close();
      throw fileError('write', path, error);
    }
  }

  /** This journal's writes wait for `before` (the journal it follows, being closed). */
  after(before: Promise<unknown>): void {
    this.before = before.catch(() => undefined);
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
      // Never on disk ahead of the journal before it: a crash must not leave a gap between them.
      await this.before;
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

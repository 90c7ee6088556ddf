/**
 * The console's live journal (`GET /_mock/console/api/events`), as server-sent events: each
 * browser gets `event: requests` with a JSON array of the entries recorded since the last one, at
 * most every 250 ms, so 500 requests a second are 4 events a second. A comment every 15 s keeps
 * idle connections open. The console's own requests are not sent (they are in the journal).
 *
 * A browser that reads slower than the mock writes never makes the mock hold more than a bounded
 * amount for it: past MAX_PENDING entries waiting, or while its connection holds more than
 * MAX_BUFFERED_BYTES unsent, entries are dropped and counted, and the browser is told with
 * `event: missed` and `data: {"missed": N}` once it reads again.
 */
import type { ServerResponse } from 'node:http';
import type { JournalEntry } from '../../../common/mock/wire.js';
import { CONSOLE_PATH } from '../../model/console/sign-in.js';

export const BATCH_MS = 250;
export const HEARTBEAT_MS = 15_000;
/** Entries waiting for the next event, at most. */
export const MAX_PENDING = 2_000;
/** Bytes written but not yet taken by the connection, past which nothing more is written. */
export const MAX_BUFFERED_BYTES = 512 * 1024;

/** Where entries come from: called with each one as it is recorded; returns an unsubscribe. */
export type EntryFeed = (listener: (entry: JournalEntry) => void) => () => void;

class EventStream {
  private pending: JournalEntry[] = [];
  private missed = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    private readonly batchMs: number,
    heartbeatMs: number,
  ) {
    this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), heartbeatMs);
    this.heartbeat.unref();
    res.on('drain', () => this.schedule());
  }

  push(entry: JournalEntry): void {
    if (this.pending.length >= MAX_PENDING) this.missed++;
    else this.pending.push(entry);
    this.schedule();
  }

  private schedule(): void {
    if (this.timer !== undefined || (this.pending.length === 0 && this.missed === 0)) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.batchMs);
  }

  private flush(): void {
    if (this.res.writableLength > MAX_BUFFERED_BYTES) {
      // The browser is behind: what waits is dropped, and it is told once it catches up.
      this.missed += this.pending.length;
      this.pending = [];
      return;
    }
    if (this.missed > 0) {
      this.write(`event: missed\ndata: ${JSON.stringify({ missed: this.missed })}\n\n`);
      this.missed = 0;
    }
    if (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      this.write(`event: requests\ndata: ${JSON.stringify(batch)}\n\n`);
    }
  }

  private write(text: string): void {
    if (!this.res.destroyed && !this.res.writableEnded) this.res.write(text);
  }

  end(): void {
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    this.pending = [];
    if (!this.res.writableEnded) this.res.end();
  }
}

/** The open event streams, fed from the journal while there is at least one. */
export class EventStreams {
  private readonly streams = new Set<EventStream>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly feed: EntryFeed,
    private readonly batchMs = BATCH_MS,
    private readonly heartbeatMs = HEARTBEAT_MS,
  ) {}

  /** Starts the stream on an answer whose head is written. */
  open(res: ServerResponse): void {
    const stream = new EventStream(res, this.batchMs, this.heartbeatMs);
    this.streams.add(stream);
    this.unsubscribe ??= this.feed((entry) => {
      if (entry.path.startsWith(`${CONSOLE_PATH}/`)) return;
      for (const s of this.streams) s.push(entry);
    });
    res.on('close', () => {
      stream.end();
      this.streams.delete(stream);
      if (this.streams.size === 0) {
        this.unsubscribe?.();
        this.unsubscribe = undefined;
      }
    });
    // Reconnect after 2 s when the connection drops; the comment sends the head at once.
    res.write('retry: 2000\n: connected\n\n');
  }

  get size(): number {
    return this.streams.size;
  }

  /** Ends every stream (the mock is closing). */
  closeAll(): void {
    for (const s of this.streams) s.end();
  }
}

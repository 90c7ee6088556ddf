/**
 * The request journal (`GET /_mock/requests`, docs/design.md 3.4): the last requests, oldest first,
 * bounded in entries and in bytes. It is not state: it records what the mock was asked, for people
 * debugging a client (`ksctl mock requests`, the console).
 *
 * Each entry has an id (1, 2, 3 … never reused while the mock runs, a reset goes on counting), its
 * side (markings, enrollment, device, admin) and the device a device request came from. Beside
 * the entry the journal keeps both messages: headers and the first 64 KiB of each body, with the
 * body's full size. Those count towards a byte bound of their own (JOURNAL_BODIES_MAX_BYTES): the
 * oldest entries' messages are let go first, their summaries stay.
 *
 * Nothing read from the journal holds a secret, whoever reads it: each message is redacted
 * (redaction.ts, the journal's one redaction) before anything of it is given out. Recording takes
 * a copy of what will be kept (unredacted.ts: headers and at most 64 KiB of each body, with a
 * little more to find a secret the cut splits, each a Latin-1 string of its own so nothing holds
 * a large body alive) and queues it; the redaction runs in slices beside the other clients' work
 * (kit/pacing.ts), at most 64 entries and 4 MiB behind (past that, recording redacts the oldest
 * at once), and whatever reads an entry's messages redacts them first if they still wait. Only
 * device requests and registrations keep their bodies as they came too (sealed envelopes and
 * packages, which hold no secret in clear), for request-detail.ts to open with the mock's keys
 * (`sealed()`); nothing it gives is sent as is.
 *
 * Cost: recording a large exchange takes copies of its two bodies' first bytes; redacting them is
 * a millisecond or two (two passes over each), which eight answers ending in one turn of the
 * event loop made tens of milliseconds that health checks waited for (issue 34).
 *
 * - `record(request)`: what server.ts hands over after each answer.
 * - `get(id)`: the entry with its messages, or undefined.
 * - `list(filter?)`: entries, oldest first, or newest first with `newestFirst`; with `bodies` each
 *   with its messages (the library's `requests()`).
 * - `page(filter, pacer)`: a page of them as JSON text, bounded in entries and bytes, made in
 *   slices (`GET /_mock/requests`, page.ts).
 * - `subscribe(listener)`: the listener is told each entry's summary as it is recorded (what the
 *   console's events send); it must be cheap, and what it throws is ignored. Returns the
 *   unsubscribe function.
 *
 * The filter of `list` is filter.ts; how the messages are given out, redacted,
 * messages.ts.
 */
import { JournalSecrets } from './redaction.js';
import {
  firstBytes,
  type KeptMessage,
  redact,
  take,
  type TakenMessage,
  takenSize,
} from './unredacted.js';
import {
  type JournalEntry,
  type JournalEntryWithBodies,
  type RequestJournal,
} from '../../common/mock/wire.js';
import { entryOf, entrySize, type RecordedRequest } from './entry.js';
import { BoundedLog } from '../kit/bounded-log.js';
import { type JournalFilter, matches } from './filter.js';
import { message } from './messages.js';
import { Pacer } from '../kit/pacing.js';

export type { RecordedRequest };

export const JOURNAL_MAX_ENTRIES = 10_000;
/** Bytes of the entries themselves (their summaries). */
export const JOURNAL_MAX_BYTES = 4 * 1024 * 1024;
/** Bytes of the headers and bodies kept with the newest entries. */
export const JOURNAL_BODIES_MAX_BYTES = 16 * 1024 * 1024;
/** How much of each body is kept. */
export const JOURNAL_BODY_KEPT_BYTES = 64 * 1024;
/** Entries a page of `GET /_mock/requests?bodies=true` holds at most unless asked for fewer. */
export const JOURNAL_PAGE_ENTRIES = 100;
/** Entries a page of `GET /_mock/requests` (without bodies) holds at most unless asked for fewer. */
export const JOURNAL_LIST_PAGE_ENTRIES = 1000;
/**
 * Bytes of JSON a page's entries take at most, with or without bodies (a page holds one entry
 * whatever its size): what the mock holds for one reader, and makes in slices.
 */
export const JOURNAL_PAGE_BYTES = 4 * 1024 * 1024;
/**
 * Entries whose messages wait for their redaction at most, and their bytes (part of the journal's
 * bound): past either, recording redacts the oldest at once (the slices have fallen behind).
 */
const WAITING_MAX_ENTRIES = 64;
export const JOURNAL_WAITING_MAX_BYTES = 4 * 1024 * 1024;
/** The redaction's slices: background work, never grown to the others' share of a turn. */
const REDACTION_SLICE_MS = 8;
/** Member names, punctuation and object headers of one entry's messages, roughly. */
const MESSAGES_OVERHEAD_BYTES = 256;

/** An entry's messages as kept: redacted, bodies as Latin-1 strings of at most 64 KiB. */
interface KeptMessages {
  request: KeptMessage;
  response: KeptMessage;
  /** A device request's or registration's bodies as they came, for opening; else undefined. */
  sealed: SealedBodies | undefined;
}

interface Stored {
  entry: JournalEntry;
  /** Undefined while the messages wait for their redaction, and once let go for the byte bound. */
  kept: KeptMessages | undefined;
  /** The messages as they came, until they are redacted (unredacted.ts): never given out. */
  taken: TakenMessages | undefined;
  /** The kept messages' bytes, as the bound counts them. */
  size: number;
}

interface TakenMessages {
  request: TakenMessage;
  response: TakenMessage;
  sealed: SealedBodies | undefined;
  /** Their bytes, as the bound of what waits counts them. */
  size: number;
}

/** A device request's or registration's bodies as they came: only for opening with the keys. */
export interface SealedBodies {
  requestBody: Buffer | undefined;
  responseBody: Buffer;
}

/** Requests whose bodies request-detail.ts opens: device requests and registrations. */
const SEALED_PATH = /^\/v2\.[34]\//;

/** The journal with each entry's messages (`bodies: true`). */
export interface RequestJournalWithBodies extends RequestJournal {
  requests: JournalEntryWithBodies[];
}

/** Where the following page starts: newer entries after `after`, else older ones before `before`. */
export type JournalPageNext = { after: number } | { before: number };

/**
 * A page of the journal, each entry as its JSON text (with its messages when the filter asks for
 * bodies), in the order the page lists them; `next` when more entries match.
 */
export interface JournalPageText {
  total: number;
  entries: string[];
  /** The entries' UTF-8 bytes together. */
  bytes: number;
  next?: JournalPageNext;
}

export type JournalListener = (entry: JournalEntry) => void;

/**
 * Other bounds than the mock's own, for a journal that must keep more of each body (what `ksctl
 * mock record` writes to its recording, which a replay sends again).
 */
export interface JournalBounds {
  /** How much of each body is kept (JOURNAL_BODY_KEPT_BYTES when left out). */
  bodyKeptBytes?: number;
  /** Bytes of the headers and bodies kept with the newest entries (JOURNAL_BODIES_MAX_BYTES). */
  bodiesMaxBytes?: number;
}

function headersSize(headers: Record<string, string>): number {
  let size = 0;
  for (const name in headers) size += name.length + headers[name]!.length;
  return size;
}

function keptSize(kept: KeptMessages): number {
  return (
    MESSAGES_OVERHEAD_BYTES +
    (kept.request.body?.length ?? 0) +
    (kept.response.body?.length ?? 0) +
    headersSize(kept.request.headers) +
    headersSize(kept.response.headers) +
    (kept.sealed?.requestBody?.length ?? 0) +
    (kept.sealed?.responseBody.length ?? 0)
  );
}

export class Journal {
  private nextId = 1;
  private readonly log = new BoundedLog<Stored>(JOURNAL_MAX_ENTRIES, JOURNAL_MAX_BYTES);
  /** The same entries again, for the bytes of their messages: letting go drops only those. */
  private readonly messages: BoundedLog<Stored>;
  private readonly listeners = new Set<JournalListener>();
  private readonly bodyKeptBytes: number;
  /** Entries whose messages wait for their redaction, oldest first, from `waitingFirst`. */
  private waiting: Stored[] = [];
  private waitingFirst = 0;
  private waitingBytes = 0;
  private draining = false;

  /** The mock's secrets, told to the journal as they come to be; scrubbed from all it keeps. */
  readonly secrets = new JournalSecrets();

  constructor(bounds: JournalBounds = {}) {
    this.bodyKeptBytes = bounds.bodyKeptBytes ?? JOURNAL_BODY_KEPT_BYTES;
    this.messages = new BoundedLog<Stored>(
      JOURNAL_MAX_ENTRIES,
      bounds.bodiesMaxBytes ?? JOURNAL_BODIES_MAX_BYTES,
      false,
      (stored) => (stored.kept = undefined),
    );
  }

  record(request: RecordedRequest): JournalEntry {
    const entry = entryOf(request, this.nextId++);
    const requestChunks = request.requestBody === undefined ? undefined : [request.requestBody];
    const taken: TakenMessages = {
      request: take(request.requestHeaders, requestChunks, this.bodyKeptBytes),
      response: take(request.responseHeaders, request.responseBody, this.bodyKeptBytes),
      sealed: SEALED_PATH.test(entry.path)
        ? {
            requestBody:
              requestChunks &&
              Buffer.from(firstBytes(requestChunks, JOURNAL_BODY_KEPT_BYTES), 'latin1'),
            responseBody: Buffer.from(
              firstBytes(request.responseBody, JOURNAL_BODY_KEPT_BYTES),
              'latin1',
            ),
          }
        : undefined,
      size: 0,
    };
    taken.size = takenSize(taken.request) + takenSize(taken.response);
    const stored: Stored = { entry, kept: undefined, taken, size: 0 };
    this.log.add(stored, entrySize(entry));
    this.wait(stored);
    for (const listener of this.listeners) {
      try {
        listener(entry);
      } catch {
        // A listener's failure is its own; the request was answered.
      }
    }
    return entry;
  }

  /** Every entry ever recorded since the start or the last clear, kept or not. */
  get total(): number {
    return this.log.total;
  }

  list(filter: JournalFilter & { bodies: true }): RequestJournalWithBodies;
  list(filter?: JournalFilter): RequestJournal;
  list(filter: JournalFilter = {}): RequestJournal {
    // All at once, oldest first, so the bound lets the same messages go as if none had waited.
    if (filter.bodies) this.settleWaiting(Infinity);
    const found: Stored[] = [];
    const limit = filter.limit ?? Infinity;
    // From the newest back, so a limit stops early; `after` pages forward from the oldest.
    if (filter.after !== undefined && !filter.newestFirst) {
      for (let i = this.firstIndexAfter(filter.after); i < this.log.length; i++) {
        const stored = this.log.at(i)!;
        if (matches(stored.entry, filter)) found.push(stored);
        if (found.length >= limit) break;
      }
    } else {
      for (let i = this.log.length - 1; i >= 0 && found.length < limit; i--) {
        const stored = this.log.at(i)!;
        if (filter.after !== undefined && stored.entry.id <= filter.after) break;
        if (matches(stored.entry, filter)) found.push(stored);
      }
      if (!filter.newestFirst) found.reverse();
    }
    return {
      total: this.log.total,
      requests: found.map((stored) => (filter.bodies ? this.withMessages(stored) : stored.entry)),
    };
  }

  /**
   * A page of `GET /_mock/requests`, each entry's JSON text made as it is chosen, in slices
   * (pacing.ts), so a page of megabytes never holds the mock: at most `limit` entries
   * (JOURNAL_PAGE_ENTRIES with bodies, JOURNAL_LIST_PAGE_ENTRIES without, unless given) and
   * JOURNAL_PAGE_BYTES of JSON, counted as made (a body of control characters is six times its
   * size in JSON). With `after`, the oldest entries after it, forward; else the newest before
   * `before` (or at all), oldest first unless `newestFirst`.
   */
  async page(filter: JournalFilter, pacer: Pacer): Promise<JournalPageText> {
    const limit = Math.min(
      filter.limit ?? (filter.bodies ? JOURNAL_PAGE_ENTRIES : JOURNAL_LIST_PAGE_ENTRIES),
      JOURNAL_MAX_ENTRIES,
    );
    if (filter.bodies) {
      // What waits now, oldest first, in slices (what comes meanwhile is redacted when read).
      for (let left = this.waiting.length - this.waitingFirst; left > 0; left--) {
        this.settleWaiting(1);
        if (pacer.used()) await pacer.pause();
      }
    }
    const forward = filter.after !== undefined && !filter.newestFirst;
    const entries: string[] = [];
    let bytes = 0;
    let last: number | undefined;
    let more = false;
    const start = forward ? this.firstIndexAfter(filter.after!) : this.log.length - 1;
    for (let i = start; forward ? i < this.log.length : i >= 0; i += forward ? 1 : -1) {
      const stored = this.log.at(i)!;
      if (!forward && filter.after !== undefined && stored.entry.id <= filter.after) break;
      if (!matches(stored.entry, filter)) {
        if (pacer.due()) await pacer.pause();
        continue;
      }
      if (entries.length >= limit) {
        more = true;
        break;
      }
      const text = JSON.stringify(filter.bodies ? this.withMessages(stored) : stored.entry);
      const size = Buffer.byteLength(text, 'utf8');
      if (entries.length > 0 && bytes + size > JOURNAL_PAGE_BYTES) {
        more = true;
        break;
      }
      entries.push(text);
      bytes += size;
      last = stored.entry.id;
      // An entry with its messages is up to 64 KiB twice over: the clock is looked at after each.
      if (filter.bodies ? pacer.used() : pacer.due()) await pacer.pause();
    }
    if (!forward && !filter.newestFirst) entries.reverse();
    const page: JournalPageText = { total: this.log.total, entries, bytes };
    if (more && last !== undefined) page.next = forward ? { after: last } : { before: last };
    return page;
  }

  get(id: number): JournalEntryWithBodies | undefined {
    const stored = this.find(id);
    return stored && this.withMessages(stored);
  }

  /**
   * A device request's or a registration's bodies as they came (sealed envelopes and packages):
   * for request-detail.ts to open with the mock's keys. Never to be sent or shown as they are.
   */
  sealed(id: number): SealedBodies | undefined {
    const stored = this.find(id);
    if (stored !== undefined) this.settle(stored);
    return stored?.kept?.sealed;
  }

  subscribe(listener: JournalListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Forgets every entry; ids go on from where they were. */
  clear(): void {
    for (let i = this.waitingFirst; i < this.waiting.length; i++)
      this.waiting[i]!.taken = undefined;
    this.waiting = [];
    this.waitingFirst = 0;
    this.waitingBytes = 0;
    this.log.clear();
    this.messages.clear();
  }

  /**
   * Queues the entry's messages for their redaction in slices, beside the other clients' work;
   * past the queue's bounds, the oldest are redacted at once.
   */
  private wait(stored: Stored): void {
    this.waiting.push(stored);
    this.waitingBytes += stored.taken!.size;
    while (
      this.waiting.length - this.waitingFirst > WAITING_MAX_ENTRIES ||
      this.waitingBytes > JOURNAL_WAITING_MAX_BYTES
    ) {
      this.settleWaiting(1);
    }
    if (this.draining) return;
    this.draining = true;
    void this.drain();
  }

  /** Redacts what waits, a slice a turn, oldest first, until nothing waits. */
  private async drain(): Promise<void> {
    const pacer = new Pacer(REDACTION_SLICE_MS, REDACTION_SLICE_MS);
    try {
      while (this.waitingFirst < this.waiting.length) {
        await pacer.pause();
        while (this.waitingFirst < this.waiting.length && !pacer.used()) {
          this.settleWaiting(1);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /** Redacts the messages of the `count` oldest entries that wait (fewer when fewer wait). */
  private settleWaiting(count: number): void {
    for (let i = 0; i < count && this.waitingFirst < this.waiting.length; i++) {
      this.settle(this.waiting[this.waitingFirst++]!);
    }
    if (this.waitingFirst > 1024 && this.waitingFirst * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.waitingFirst);
      this.waitingFirst = 0;
    }
  }

  /**
   * The entry's messages redacted and kept, if they still wait: whatever reads them calls this
   * first, so nothing read from the journal holds a secret.
   */
  private settle(stored: Stored): void {
    const taken = stored.taken;
    if (taken === undefined) return;
    stored.taken = undefined;
    this.waitingBytes -= taken.size;
    let kept: KeptMessages;
    try {
      kept = {
        request: redact(this.secrets, taken.request, this.bodyKeptBytes),
        response: redact(this.secrets, taken.response, this.bodyKeptBytes),
        sealed: taken.sealed,
      };
    } catch {
      // Messages that could not be redacted are not kept: the entry says they were let go.
      return;
    }
    stored.kept = kept;
    stored.size = keptSize(kept);
    this.messages.add(stored, stored.size);
  }

  private withMessages(stored: Stored): JournalEntryWithBodies {
    this.settle(stored);
    const { entry, kept } = stored;
    return {
      ...entry,
      request: message(kept?.request, entry.requestBytes),
      response: message(kept?.response, entry.responseBytes),
    };
  }

  /** Index of the first kept entry with an id above `id` (ids only grow). */
  private firstIndexAfter(id: number): number {
    let low = 0;
    let high = this.log.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.log.at(mid)!.entry.id <= id) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private find(id: number): Stored | undefined {
    const index = this.firstIndexAfter(id - 1);
    const stored = this.log.at(index);
    return stored?.entry.id === id ? stored : undefined;
  }
}

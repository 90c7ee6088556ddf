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
 * Recording redacts (redaction.ts, the journal's one redaction): nothing the
 * journal keeps holds a secret, whoever reads it. Only device requests and registrations keep
 * their bodies as they came too (sealed envelopes and packages, which hold no secret in clear),
 * for request-detail.ts to open with the mock's keys (`sealed()`); nothing it gives is sent as is.
 *
 * Cost: recording copies at most 64 KiB (and a little more to find a secret the cut splits) of
 * each body into a Latin-1 string of its own (so a kept slice never holds a large body alive),
 * redacts it in two passes over those bytes, and keeps the redacted headers.
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
import type { IncomingHttpHeaders } from 'node:http';
import { isSecretKey, REDACTED_TEXT } from '../../common/http/redact.js';
import { JournalSecrets, type RedactedMessage, redactMessage } from './redaction.js';
import {
  type JournalEntry,
  type JournalEntryWithBodies,
  type RequestJournal,
  type RequestSide,
} from '../../common/mock/wire.js';
import { parseCid } from '../../common/device/cid.js';
import { BoundedLog } from '../kit/bounded-log.js';
import { type JournalFilter, matches } from './filter.js';
import { message } from './messages.js';
import type { Pacer } from '../kit/pacing.js';

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
/** Bytes read past the cut so that a secret the cut splits is still found and replaced. */
const SECRET_LOOKAHEAD_BYTES = 4 * 1024;
const PATH_MAX_CHARS = 512;
const CID_MAX_CHARS = 128;
const METHOD_MAX_CHARS = 32;
const TIME_MAX_CHARS = 32;
/** Numbers, member names and punctuation of one entry in JSON, roughly. */
const ENTRY_OVERHEAD_BYTES = 160;
/** Member names, punctuation and object headers of one entry's messages, roughly. */
const MESSAGES_OVERHEAD_BYTES = 256;

/**
 * `new Date(ms).toISOString()`, its date and time of day made once a second: formatting a date
 * cost more than the rest of a journal entry, and the mock answers hundreds of requests a second.
 */
let isoSecond = Number.NaN;
let isoPrefix = '';
export function isoTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    isoSecond = second;
    // `2026-11-28T14:55:34.` of `2026-11-28T14:55:34.123Z`.
    isoPrefix = new Date(second * 1000).toISOString().slice(0, -4);
  }
  const milli = ms - second * 1000;
  return `${isoPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

/** `?a=1&token=…` as `?a=1&token=[redacted]`; the empty string without parameters. */
export function redactQuery(params: URLSearchParams): string {
  const parts: string[] = [];
  for (const [name, value] of params) {
    // The same names the client's --debug trace hides (one list, src/common/http/redact.ts).
    const shown = isSecretKey(name) ? REDACTED_TEXT : value;
    parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(shown)}`);
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/**
 * The text, at most `max` characters, as a string of its own. A slice of a long string keeps the
 * whole parent alive (V8 shares its characters), so the journal's byte bound would count the
 * slice while the parent's megabytes stay held; a copy through UTF-16 bytes owns only its own.
 */
function cut(text: string, max: number): string {
  const kept = text.length <= max ? text : `${text.slice(0, max - 1)}…`;
  return Buffer.from(kept, 'utf16le').toString('utf16le');
}

function entrySize(entry: JournalEntry): number {
  // A UTF-16 unit is at most 3 bytes of UTF-8.
  const chars =
    entry.time.length +
    entry.method.length +
    entry.path.length +
    entry.cid.length +
    (entry.device?.length ?? 0);
  return ENTRY_OVERHEAD_BYTES + chars * 3;
}

/** The side of the service a path belongs to. */
export function requestSide(path: string): RequestSide {
  if (path.startsWith('/_mock/') || path === '/_mock') return 'admin';
  // The portal and the key server key, under `{enrollment_url}` (routes/enrollment/portal.ts).
  if (path.startsWith('/enrollment/')) return 'enrollment';
  if (/^\/v2\.\d+\/(?:register|kns)\//.test(path)) return 'enrollment';
  if (/^\/v2\.\d+\//.test(path)) return 'device';
  return 'markings';
}

/** A device request's `"cid": "CID|<device>|…"`, found in the body's first bytes without parsing. */
const BODY_CID = /"cid"\s*:\s*"(CID\|[^"]{1,600})"/;

/** The device a device request names in its cid: the header's, else the body's. */
function deviceOf(cid: string, body: Uint8Array | undefined): string | undefined {
  const fromHeader = parseCid(cid)?.deviceId;
  if (fromHeader !== undefined || body === undefined) return fromHeader;
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 1024));
  const quoted = BODY_CID.exec(head.toString('latin1'))?.[1];
  return quoted === undefined ? undefined : parseCid(quoted)?.deviceId;
}

/**
 * What server.ts hands over once a request is answered: an entry's summary (the journal gives it
 * its id, side and device) and the messages themselves.
 */
export interface RecordedRequest extends Omit<JournalEntry, 'id' | 'side' | 'device'> {
  /** As received; redacted when read. */
  requestHeaders: IncomingHttpHeaders;
  /** As sent. */
  responseHeaders: Record<string, string>;
  /** The whole body as read, when the mock read it. */
  requestBody?: Uint8Array;
  /** The answer's body as written, in its chunks; a string is bytes as Latin-1 text. */
  responseBody: readonly (Uint8Array | string)[];
}

/** An entry's messages as kept: redacted, bodies as Latin-1 strings of at most 64 KiB. */
interface KeptMessages {
  request: KeptMessage;
  response: KeptMessage;
  /** A device request's or registration's bodies as they came, for opening; else undefined. */
  sealed: SealedBodies | undefined;
}

interface KeptMessage extends RedactedMessage {
  /** More than the kept bytes came. */
  truncated: boolean;
}

interface Stored {
  entry: JournalEntry;
  /** Undefined once let go for the byte bound. */
  kept: KeptMessages | undefined;
  /** The kept messages' bytes, as the bound counts them. */
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

/**
 * The first `max` bytes of the chunks as a Latin-1 string (one character a byte): a copy of its
 * own, made on the JavaScript heap, which costs less than a buffer of its own for each request.
 * A chunk that is already bytes as Latin-1 text is kept as it is when whole (it holds nothing
 * but itself), copied when cut (a slice would hold the whole).
 */
function firstBytes(chunks: readonly (Uint8Array | string)[], max: number): string {
  let out = '';
  let left = max;
  for (const chunk of chunks) {
    if (left <= 0) break;
    const take = Math.min(chunk.length, left);
    if (typeof chunk === 'string') {
      out +=
        take === chunk.length
          ? chunk
          : Buffer.from(chunk.slice(0, take), 'latin1').toString('latin1');
    } else {
      const buffer =
        chunk instanceof Buffer ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
      out += buffer.toString('latin1', 0, take);
    }
    left -= take;
  }
  return out;
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

/** The chunks' total size. */
function chunksSize(chunks: readonly (Uint8Array | string)[]): number {
  let size = 0;
  for (const chunk of chunks) size += chunk.length;
  return size;
}

function wholeOf(chunks: readonly (Uint8Array | string)[]): Uint8Array {
  return Buffer.concat(
    chunks.map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk)),
  );
}

export class Journal {
  private nextId = 1;
  private readonly log = new BoundedLog<Stored>(JOURNAL_MAX_ENTRIES, JOURNAL_MAX_BYTES);
  /** The same entries again, for the bytes of their messages: letting go drops only those. */
  private readonly messages: BoundedLog<Stored>;
  private readonly listeners = new Set<JournalListener>();
  private readonly bodyKeptBytes: number;

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
    const side = requestSide(request.path);
    const device = side === 'device' ? deviceOf(request.cid, request.requestBody) : undefined;
    const entry: JournalEntry = {
      id: this.nextId++,
      time: cut(request.time, TIME_MAX_CHARS),
      method: cut(request.method, METHOD_MAX_CHARS),
      path: cut(request.path, PATH_MAX_CHARS),
      status: request.status,
      cid: cut(request.cid, CID_MAX_CHARS),
      durationMs: request.durationMs,
      requestBytes: request.requestBytes,
      responseBytes: request.responseBytes,
      side,
      ...(device === undefined ? {} : { device: cut(device, CID_MAX_CHARS) }),
      ...(request.deviceCode === undefined ? {} : { deviceCode: request.deviceCode }),
    };
    const requestChunks = request.requestBody === undefined ? undefined : [request.requestBody];
    const kept: KeptMessages = {
      request: this.keep(request.requestHeaders, requestChunks),
      response: this.keep(request.responseHeaders, request.responseBody),
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
    };
    const stored: Stored = { entry, kept, size: keptSize(kept) };
    this.log.add(stored, entrySize(entry));
    this.messages.add(stored, stored.size);
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
    return this.find(id)?.kept?.sealed;
  }

  subscribe(listener: JournalListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Forgets every entry; ids go on from where they were. */
  clear(): void {
    this.log.clear();
    this.messages.clear();
  }

  /** A message redacted, its body cut to what is kept (`undefined`: the mock read no body). */
  private keep(
    headers: IncomingHttpHeaders | Record<string, string>,
    chunks: readonly (Uint8Array | string)[] | undefined,
  ): KeptMessage {
    if (chunks === undefined) {
      return { ...redactMessage(this.secrets, headers, undefined), truncated: false };
    }
    const redacted = redactMessage(this.secrets, headers, {
      bytes: firstBytes(chunks, this.bodyKeptBytes + SECRET_LOOKAHEAD_BYTES),
      cut: this.bodyKeptBytes,
      whole: () => wholeOf(chunks),
    });
    return { ...redacted, truncated: chunksSize(chunks) > this.bodyKeptBytes };
  }

  private withMessages(stored: Stored): JournalEntryWithBodies {
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

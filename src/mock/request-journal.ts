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
 * Cost: recording copies at most 64 KiB of each body into a Latin-1 string of its own (so a kept
 * slice never holds a large body alive, and no buffer is made per request) and keeps the headers objects as they are. Nothing is parsed,
 * decoded or redacted then: secrets are redacted when the journal is read, with the one list of
 * src/api/redact.ts (`--debug` redacts with it too), and the dev token is replaced wherever it
 * appears. Everything the journal gives out is redacted; only `unredacted()`, for opening
 * envelopes in request-detail.ts, is not, and nothing it gives is ever sent as it is.
 *
 * - `record(request)`: what server.ts hands over after each answer.
 * - `get(id)`: the entry with its messages, or undefined.
 * - `list(filter?)`: entries, oldest first, or newest first with `newestFirst`; with `bodies` each
 *   with its messages.
 * - `subscribe(listener)`: the listener is told each entry's summary as it is recorded (what the
 *   console's events send); it must be cheap, and what it throws is ignored. Returns the
 *   unsubscribe function.
 *
 * The filter of `list` is request-journal-filter.ts; how the messages are given out, redacted,
 * request-journal-messages.ts.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isSecretKey, REDACTED_TEXT } from '../api/redact.js';
import {
  type JournalEntry,
  type JournalEntryWithBodies,
  type RequestJournal,
  type RequestSide,
} from './wire.js';
import { parseCid } from '../device/cid.js';
import { BoundedLog } from './bounded-log.js';
import { type JournalFilter, matches } from './request-journal-filter.js';
import { bytesOf, message } from './request-journal-messages.js';

export const JOURNAL_MAX_ENTRIES = 10_000;
/** Bytes of the entries themselves (their summaries). */
export const JOURNAL_MAX_BYTES = 4 * 1024 * 1024;
/** Bytes of the headers and bodies kept with the newest entries. */
export const JOURNAL_BODIES_MAX_BYTES = 16 * 1024 * 1024;
/** How much of each body is kept. */
export const JOURNAL_BODY_KEPT_BYTES = 64 * 1024;
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
    // The same names the client's --debug trace hides (one list, src/api/redact.ts).
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
  // The portal and the key server key, under `{enrollment_url}` (enrollment/portal.ts).
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

/** An entry's messages as kept, unredacted: the journal's own. Bodies as Latin-1 strings. */
interface KeptMessages {
  requestHeaders: IncomingHttpHeaders;
  responseHeaders: Record<string, string>;
  requestBody: string | undefined;
  responseBody: string;
}

interface Stored {
  entry: JournalEntry;
  /** Undefined once let go for the byte bound. */
  kept: KeptMessages | undefined;
}

/** The unredacted messages of an entry: only for opening envelopes and packages. */
export interface UnredactedMessages {
  requestBody: Buffer | undefined;
  responseBody: Buffer;
  requestHeaders: IncomingHttpHeaders;
  responseHeaders: Record<string, string>;
}

/** The journal with each entry's messages (`bodies: true`). */
export interface RequestJournalWithBodies extends RequestJournal {
  requests: JournalEntryWithBodies[];
}

export type JournalListener = (entry: JournalEntry) => void;

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

function requestHeadersSize(headers: IncomingHttpHeaders): number {
  let size = 0;
  for (const name in headers) {
    const value = headers[name];
    size += name.length + (Array.isArray(value) ? value.join(', ').length : (value?.length ?? 0));
  }
  return size;
}

function responseHeadersSize(headers: Record<string, string>): number {
  let size = 0;
  for (const name in headers) size += name.length + headers[name]!.length;
  return size;
}

export class Journal {
  private nextId = 1;
  private readonly log = new BoundedLog<Stored>(JOURNAL_MAX_ENTRIES, JOURNAL_MAX_BYTES);
  /** The same entries again, for the bytes of their messages: letting go drops only those. */
  private readonly messages = new BoundedLog<Stored>(
    JOURNAL_MAX_ENTRIES,
    JOURNAL_BODIES_MAX_BYTES,
    false,
    (stored) => (stored.kept = undefined),
  );
  private readonly listeners = new Set<JournalListener>();

  /** `secrets`: values replaced wherever they appear in what the journal gives (the dev token). */
  constructor(private readonly secrets: () => string[] = () => []) {}

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
    const requestBody =
      request.requestBody === undefined
        ? undefined
        : firstBytes([request.requestBody], JOURNAL_BODY_KEPT_BYTES);
    const kept: KeptMessages = {
      requestHeaders: request.requestHeaders,
      responseHeaders: request.responseHeaders,
      requestBody,
      responseBody: firstBytes(request.responseBody, JOURNAL_BODY_KEPT_BYTES),
    };
    const stored: Stored = { entry, kept };
    this.log.add(stored, entrySize(entry));
    this.messages.add(
      stored,
      MESSAGES_OVERHEAD_BYTES +
        (requestBody?.length ?? 0) +
        kept.responseBody.length +
        requestHeadersSize(kept.requestHeaders) +
        responseHeadersSize(kept.responseHeaders),
    );
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
    const secrets = filter.bodies ? this.secrets() : [];
    return {
      total: this.log.total,
      requests: found.map((stored) =>
        filter.bodies ? this.withMessages(stored, secrets) : stored.entry,
      ),
    };
  }

  get(id: number): JournalEntryWithBodies | undefined {
    const stored = this.find(id);
    return stored && this.withMessages(stored, this.secrets());
  }

  /**
   * The messages of an entry as they were, secrets and all: for request-detail.ts to open
   * envelopes and packages with. Never to be sent or shown as they are.
   */
  unredacted(id: number): UnredactedMessages | undefined {
    const kept = this.find(id)?.kept;
    if (!kept) return undefined;
    return {
      requestHeaders: kept.requestHeaders,
      responseHeaders: kept.responseHeaders,
      requestBody:
        kept.requestBody === undefined ? undefined : Buffer.from(kept.requestBody, 'latin1'),
      responseBody: Buffer.from(kept.responseBody, 'latin1'),
    };
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

  private withMessages(stored: Stored, secrets: string[]): JournalEntryWithBodies {
    const { entry, kept } = stored;
    return {
      ...entry,
      request: message(
        kept?.requestHeaders,
        bytesOf(kept?.requestBody),
        entry.requestBytes,
        secrets,
      ),
      response: message(
        kept?.responseHeaders,
        bytesOf(kept?.responseBody),
        entry.responseBytes,
        secrets,
      ),
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

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
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  isSecretKey,
  REDACTED_TEXT,
  redactFormText,
  redactHeaders,
  redactJsonText,
  scrubSecrets,
} from '../api/redact.js';
import {
  type JournalEntry,
  type JournalEntryWithBodies,
  type JournalMessage,
  REQUEST_SIDES,
  type RequestJournal,
  type RequestSide,
} from './wire.js';
import { parseCid } from '../device/cid.js';
import { BoundedLog } from './bounded-log.js';

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
  /** The answer's body as written, in its chunks. */
  responseBody: readonly Uint8Array[];
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

/** Filters of `list`; each one given must hold. */
export interface JournalFilter {
  side?: RequestSide;
  method?: string;
  /** A part of the path (and query). */
  path?: string;
  /** A status (404), or a class of them ('4xx'). */
  status?: number | string;
  device?: string;
  cid?: string;
  /** Only entries older than this id (paging back). */
  before?: number;
  /** Only entries newer than this id (what came since). */
  after?: number;
  /** At most this many (the newest of those matching, unless `newestFirst` pages from the top). */
  limit?: number;
  newestFirst?: boolean;
  /** Each entry with its messages. */
  bodies?: boolean;
}

const FILTER_PARAMS = new Set([
  'side',
  'method',
  'path',
  'status',
  'device',
  'cid',
  'before',
  'after',
  'limit',
  'order',
  'bodies',
]);

/**
 * A filter from query parameters (`GET /_mock/requests`, the console's `api/requests`): `side`,
 * `method`, `path`, `status` (404 or 4xx), `device`, `cid`, `before`, `after`, `limit`,
 * `order=newest`, `bodies=true`. A string saying what is wrong when a value is not understood.
 */
export function filterFromQuery(query: URLSearchParams): JournalFilter | string {
  const filter: JournalFilter = {};
  for (const name of query.keys()) {
    if (!FILTER_PARAMS.has(name)) return `unknown parameter ${JSON.stringify(name.slice(0, 50))}`;
  }
  const text = (name: string) => query.get(name) ?? undefined;
  const side = text('side');
  if (side !== undefined) {
    if (!REQUEST_SIDES.includes(side as RequestSide)) {
      return `side must be one of ${REQUEST_SIDES.join(', ')}`;
    }
    filter.side = side as RequestSide;
  }
  for (const name of ['method', 'path', 'device', 'cid'] as const) {
    const value = text(name);
    if (value !== undefined && value !== '') filter[name] = value;
  }
  const status = text('status');
  if (status !== undefined && status !== '') {
    if (!/^(?:[1-5]\d\d|[1-5]xx)$/i.test(status)) {
      return 'status must be a status (404) or a class of them (4xx)';
    }
    filter.status = /x/i.test(status) ? status.toLowerCase() : Number(status);
  }
  for (const name of ['before', 'after', 'limit'] as const) {
    const value = text(name);
    if (value === undefined || value === '') continue;
    if (!/^\d{1,15}$/.test(value)) return `${name} must be a whole number`;
    filter[name] = Number(value);
  }
  const order = text('order');
  if (order !== undefined && order !== 'newest' && order !== 'oldest') {
    return 'order must be newest or oldest';
  }
  if (order === 'newest') filter.newestFirst = true;
  const bodies = text('bodies');
  if (bodies !== undefined && bodies !== 'true' && bodies !== 'false') {
    return 'bodies must be true or false';
  }
  if (bodies === 'true') filter.bodies = true;
  return filter;
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
 */
function firstBytes(chunks: readonly Uint8Array[], max: number): string {
  let out = '';
  let left = max;
  for (const chunk of chunks) {
    if (left <= 0) break;
    const take = Math.min(chunk.length, left);
    const buffer =
      chunk instanceof Buffer ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    out += buffer.toString('latin1', 0, take);
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

function statusMatches(status: number, wanted: number | string): boolean {
  if (typeof wanted === 'number') return status === wanted;
  const klass = /^([1-5])xx$/i.exec(wanted)?.[1];
  return klass !== undefined
    ? Math.floor(status / 100) === Number(klass)
    : String(status) === wanted;
}

function matches(entry: JournalEntry, filter: JournalFilter): boolean {
  return (
    (filter.side === undefined || entry.side === filter.side) &&
    (filter.method === undefined || entry.method === filter.method.toUpperCase()) &&
    (filter.path === undefined || entry.path.includes(filter.path)) &&
    (filter.status === undefined || statusMatches(entry.status, filter.status)) &&
    (filter.device === undefined || entry.device === filter.device) &&
    (filter.cid === undefined || entry.cid === filter.cid) &&
    (filter.before === undefined || entry.id < filter.before) &&
    (filter.after === undefined || entry.id > filter.after)
  );
}

const bytesOf = (kept: string | undefined) =>
  kept === undefined ? undefined : Buffer.from(kept, 'latin1');

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The kept bytes as text when they are UTF-8 (a character the 64 KiB cut in two is left out),
 * else undefined.
 */
function utf8Text(bytes: Buffer, truncated: boolean): string | undefined {
  for (let cut = 0; cut <= (truncated ? 3 : 0) && cut <= bytes.length; cut++) {
    try {
      return UTF8.decode(bytes.subarray(0, bytes.length - cut));
    } catch {
      // a shorter prefix may end before a cut character
    }
  }
  return undefined;
}

function isForm(contentType: string | undefined): boolean {
  return /^application\/x-www-form-urlencoded/i.test(contentType ?? '');
}

/** Body text with its secrets redacted: JSON, a form, or anything with the known secrets. */
function redactBody(text: string, contentType: string | undefined, secrets: string[]): string {
  let out = text;
  if (/^\s*[[{]/.test(text)) out = redactJsonText(text);
  else if (isForm(contentType) || /^[^\s=&{}[\]"]+=[^\s]*$/.test(text)) out = redactFormText(text);
  return scrubSecrets(out, secrets);
}

function redactedHeaders(
  headers: IncomingHttpHeaders | Record<string, string>,
  secrets: string[],
): Record<string, string> {
  const out = redactHeaders(headers);
  for (const name of Object.keys(out)) out[name] = scrubSecrets(out[name]!, secrets);
  return out;
}

function message(
  headers: IncomingHttpHeaders | Record<string, string> | undefined,
  body: Buffer | undefined,
  bytes: number,
  secrets: string[],
): JournalMessage {
  if (headers === undefined) {
    return { headers: {}, body: '', encoding: 'utf8', bytes, truncated: bytes > 0, dropped: true };
  }
  const kept = body ?? Buffer.alloc(0);
  const truncated = kept.length < bytes;
  const text = utf8Text(kept, truncated);
  const contentType = headers['content-type'];
  return {
    headers: redactedHeaders(headers, secrets),
    ...(text === undefined
      ? { body: kept.toString('base64'), encoding: 'base64' as const }
      : {
          body: redactBody(
            text,
            typeof contentType === 'string' ? contentType : undefined,
            secrets,
          ),
          encoding: 'utf8' as const,
        }),
    bytes,
    truncated,
  };
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

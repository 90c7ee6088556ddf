/**
 * A journal entry's summary, as the journal lists it without bodies: made from what server.ts
 * hands over once a request is answered, each text cut to a bound of its own and copied (so no
 * entry holds a request's larger strings alive).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isSecretKey, REDACTED_TEXT } from '../../common/http/redact.js';
import type { JournalEntry, RequestSide } from '../../common/mock/wire.js';
import { parseCid } from '../../common/device/cid.js';

const PATH_MAX_CHARS = 512;
const CID_MAX_CHARS = 128;
const METHOD_MAX_CHARS = 32;
const TIME_MAX_CHARS = 32;
/** Numbers, member names and punctuation of one entry in JSON, roughly. */
const ENTRY_OVERHEAD_BYTES = 160;
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

export function entrySize(entry: JournalEntry): number {
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

/** The entry's summary for a recorded request, with its id. */
export function entryOf(request: RecordedRequest, id: number): JournalEntry {
  const side = requestSide(request.path);
  const device = side === 'device' ? deviceOf(request.cid, request.requestBody) : undefined;
  return {
    id,
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
}

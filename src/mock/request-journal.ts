/**
 * The request journal (`GET /_mock/requests`, docs/design.md 3.4): the last requests, oldest first,
 * bounded in entries and in bytes (long paths and ids are cut), secrets in query strings
 * redacted. It is not state: it records what the mock was asked, for people debugging a client.
 */
import { isSecretKey, REDACTED_TEXT } from '../api/redact.js';
import type { JournalEntry, RequestJournal } from '../api/wire.js';
import { BoundedLog } from './bounded-log.js';

export const JOURNAL_MAX_ENTRIES = 10_000;
export const JOURNAL_MAX_BYTES = 4 * 1024 * 1024;
const PATH_MAX_CHARS = 512;
const CID_MAX_CHARS = 128;
const METHOD_MAX_CHARS = 32;
const TIME_MAX_CHARS = 32;
/** Numbers, member names and punctuation of one entry in JSON, roughly. */
const ENTRY_OVERHEAD_BYTES = 120;

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
  const chars = entry.time.length + entry.method.length + entry.path.length + entry.cid.length;
  return ENTRY_OVERHEAD_BYTES + chars * 3;
}

export class Journal {
  private readonly log = new BoundedLog<JournalEntry>(JOURNAL_MAX_ENTRIES, JOURNAL_MAX_BYTES);

  record(entry: JournalEntry): void {
    const kept: JournalEntry = {
      ...entry,
      time: cut(entry.time, TIME_MAX_CHARS),
      method: cut(entry.method, METHOD_MAX_CHARS),
      path: cut(entry.path, PATH_MAX_CHARS),
      cid: cut(entry.cid, CID_MAX_CHARS),
    };
    this.log.add(kept, entrySize(kept));
  }

  list(): RequestJournal {
    return { total: this.log.total, requests: this.log.list() };
  }

  clear(): void {
    this.log.clear();
  }
}

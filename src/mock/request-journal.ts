/**
 * The request journal (`GET /_mock/requests`, docs/design.md 3.4): the last requests, oldest first,
 * bounded in entries and in bytes (long paths and ids are cut), secrets in query strings
 * redacted. It is not state: it records what the mock was asked, for people debugging a client.
 */
import { isSecretKey, REDACTED_TEXT } from '../api/redact.js';
import type { JournalEntry, RequestJournal } from '../api/wire.js';

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
  private entries: JournalEntry[] = [];
  /** Index of the oldest kept entry: dropping from the front is O(1) until compaction. */
  private first = 0;
  private bytes = 0;
  private total = 0;

  record(entry: JournalEntry): void {
    const kept: JournalEntry = {
      ...entry,
      time: cut(entry.time, TIME_MAX_CHARS),
      method: cut(entry.method, METHOD_MAX_CHARS),
      path: cut(entry.path, PATH_MAX_CHARS),
      cid: cut(entry.cid, CID_MAX_CHARS),
    };
    this.entries.push(kept);
    this.bytes += entrySize(kept);
    this.total++;
    while (
      this.entries.length - this.first > JOURNAL_MAX_ENTRIES ||
      this.bytes > JOURNAL_MAX_BYTES
    ) {
      const dropped = this.entries[this.first++]!;
      this.bytes -= entrySize(dropped);
    }
    if (this.first > JOURNAL_MAX_ENTRIES / 10) {
      this.entries = this.entries.slice(this.first);
      this.first = 0;
    }
  }

  list(): RequestJournal {
    return { total: this.total, requests: this.entries.slice(this.first) };
  }

  clear(): void {
    this.entries = [];
    this.first = 0;
    this.bytes = 0;
    this.total = 0;
  }
}

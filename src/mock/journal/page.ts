/**
 * The answer of `GET /_mock/requests` (docs/design.md 3.4), with or without bodies: a page of the
 * journal, `{"total", "requests", "next"?}`, its `next` (and a Link header) the path and query of
 * the following page when more entries match. Served by the mock and by `ksctl mock record`.
 *
 * The page's text is made an entry at a time (Journal.page) and gathered into chunks of about
 * 64 KiB as it is made, in slices: a page of megabytes is never one string, nor one encoding of
 * it, and the mock answers others between the slices (issue 34).
 */
import type { Journal, JournalPageNext } from './request-journal.js';
import type { JournalFilter } from './filter.js';
import type { Pacer } from '../kit/pacing.js';

/** Text gathered into one chunk of bytes. */
const CHUNK_CHARS = 64 * 1024;

export interface JournalPageAnswer {
  /** The page's JSON in UTF-8, in chunks. */
  chunks: Buffer[];
  headers: Record<string, string>;
}

/**
 * The path and query of the page after this one: the same query, paging on from `next` (paging
 * back keeps an `after` given, which bounds the pages from below).
 */
export function nextPageLink(
  query: URLSearchParams,
  filter: JournalFilter,
  next: JournalPageNext,
): string {
  const link = new URLSearchParams(query);
  link.delete('after');
  link.delete('before');
  for (const [name, id] of Object.entries(next)) link.set(name, String(id));
  if ('before' in next && filter.after !== undefined) link.set('after', String(filter.after));
  return `/_mock/requests?${link.toString()}`;
}

/** A page of the journal as `GET /_mock/requests` answers it, for the filter read from `query`. */
export async function journalPageAnswer(
  journal: Journal,
  query: URLSearchParams,
  filter: JournalFilter,
  pacer: Pacer,
): Promise<JournalPageAnswer> {
  const page = await journal.page(filter, pacer);
  const link = page.next === undefined ? undefined : nextPageLink(query, filter, page.next);
  const chunks: Buffer[] = [];
  let text = `{"total":${page.total},"requests":[`;
  for (const [i, entry] of page.entries.entries()) {
    text += i > 0 ? `,${entry}` : entry;
    if (text.length >= CHUNK_CHARS) {
      chunks.push(Buffer.from(text, 'utf8'));
      text = '';
      if (pacer.used()) await pacer.pause();
    }
  }
  text += `]${link === undefined ? '' : `,"next":${JSON.stringify(link)}`}}`;
  chunks.push(Buffer.from(text, 'utf8'));
  return {
    chunks,
    headers: {
      'content-type': 'application/json',
      ...(link === undefined ? {} : { link: `<${link}>; rel="next"` }),
    },
  };
}

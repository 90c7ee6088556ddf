/**
 * The journal with bodies comes a page at a time (issue 34): at most 100 requests (or `limit`)
 * and 4 MiB of messages a page, each page naming the next in `next` and a Link header, back from
 * the newest or forward after an id; `mock requests --bodies` walks the pages it needs.
 */
import { describe, expect, it } from 'vitest';
import type { JournalEntryWithBodies } from '../../src/mock/wire.js';
import {
  JOURNAL_BODY_KEPT_BYTES,
  JOURNAL_PAGE_BYTES,
  JOURNAL_PAGE_ENTRIES,
} from '../../src/mock/request-journal.js';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite();

interface Page {
  total: number;
  requests: JournalEntryWithBodies[];
  next?: string;
}

async function page(path: string): Promise<{ page: Page; link: string | null }> {
  const answer = await fetch(suite.mock.info.url + path, {
    headers: { authorization: `Bearer ${suite.mock.token}` },
  });
  expect(answer.status).toBe(200);
  return { page: (await answer.json()) as Page, link: answer.headers.get('link') };
}

async function post(count: number, bytes: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const answer = await fetch(`${suite.mock.baseUrl}/markings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${suite.mock.token}` },
      body: JSON.stringify({ name: `page-${i}`, detail: { description: 'x'.repeat(bytes) } }),
    });
    await answer.arrayBuffer();
  }
}

/** Every page from `first` on, following `next`. */
async function walk(first: string): Promise<Page[]> {
  const pages: Page[] = [];
  for (let path: string | undefined = first; path !== undefined && pages.length < 100;) {
    const { page: one, link } = await page(path);
    expect(link).toBe(one.next === undefined ? null : `<${one.next}>; rel="next"`);
    pages.push(one);
    path = one.next;
  }
  return pages;
}

describe('the journal with bodies, a page at a time', () => {
  it('pages back from the newest and forward after an id, each page naming the next', async () => {
    await post(250, 10);
    const back = await walk('/_mock/requests?bodies=true&side=markings');
    expect(back.map((p) => p.requests.length)).toEqual([JOURNAL_PAGE_ENTRIES, 100, 50]);
    expect(back.at(-1)!.next).toBeUndefined();
    // Each page oldest first; the pages newest first; every request once.
    const ids = back.reverse().flatMap((p) => p.requests.map((r) => r.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(250);

    const forward = await walk(`/_mock/requests?bodies=true&side=markings&after=0&limit=90`);
    expect(forward.map((p) => p.requests.length)).toEqual([90, 90, 70]);
    expect(forward.flatMap((p) => p.requests.map((r) => r.id))).toEqual(ids);
    expect(forward[0]!.next).toMatch(
      /^\/_mock\/requests\?bodies=true&side=markings&limit=90&after=\d+$/,
    );
  });

  it('holds at most its bytes of messages, however many requests were asked for', async () => {
    await post(80, JOURNAL_BODY_KEPT_BYTES);
    const { page: first } = await page('/_mock/requests?bodies=true&side=markings&limit=1000');
    const kept = first.requests.reduce(
      (sum, r) => sum + Buffer.byteLength(r.request.body) + Buffer.byteLength(r.response.body),
      0,
    );
    expect(kept).toBeLessThanOrEqual(JOURNAL_PAGE_BYTES);
    expect(first.requests.length).toBeLessThan(80);
    expect(first.next).toMatch(/before=\d+/);
    const all = await walk('/_mock/requests?bodies=true&side=markings&limit=1000');
    expect(all.flatMap((p) => p.requests).length).toBe(80);
  });

  it('mock requests --bodies shows the last N however many pages they take', async () => {
    await post(150, 10);
    const shown = await suite.ksctl([
      'mock',
      'requests',
      '--bodies',
      '--tail',
      '150',
      '-o',
      'json',
    ]);
    expect(shown.code, shown.stderr).toBe(0);
    const entries = JSON.parse(shown.stdout) as JournalEntryWithBodies[];
    expect(entries).toHaveLength(150);
    expect(entries.map((e) => JSON.parse(e.request.body).name)).toEqual(
      Array.from({ length: 150 }, (_, i) => `page-${i}`),
    );
  });
});

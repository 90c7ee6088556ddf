/**
 * The journal comes a page at a time (issue 34), with or without bodies: at most 1,000 requests
 * (100 with bodies, or `limit`) and 4 MiB of JSON a page, each page naming the next in `next` and
 * a Link header, back from the newest or forward after an id; the same entries however it is
 * paged; `mock requests` walks the pages it needs.
 */
import { describe, expect, it } from 'vitest';
import type { JournalEntryWithBodies } from '../../src/common/mock/wire.js';
import {
  JOURNAL_BODY_KEPT_BYTES,
  JOURNAL_PAGE_BYTES,
  JOURNAL_PAGE_ENTRIES,
} from '../../src/mock/journal/request-journal.js';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite();

/** A page without bodies holds at most this many requests unless asked for fewer (the README). */
const LIST_PAGE_ENTRIES = 1000;

interface Page {
  total: number;
  requests: JournalEntryWithBodies[];
  next?: string;
}

async function page(path: string): Promise<{ page: Page; link: string | null; bytes: number }> {
  const answer = await fetch(suite.mock.info.url + path, {
    headers: { authorization: `Bearer ${suite.mock.token}` },
  });
  expect(answer.status).toBe(200);
  const raw = Buffer.from(await answer.arrayBuffer());
  return {
    page: JSON.parse(raw.toString('utf8')) as Page,
    link: answer.headers.get('link'),
    bytes: raw.length,
  };
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
async function walk(first: string, sizes: number[] = []): Promise<Page[]> {
  const pages: Page[] = [];
  for (let path: string | undefined = first; path !== undefined && pages.length < 100;) {
    const { page: one, link, bytes } = await page(path);
    sizes.push(bytes);
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

/** A fixed sequence of pseudo-random numbers below `range`, so that a failure can be run again. */
function randoms(seed: number): (range: number) => number {
  let x = seed;
  return (range) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % range;
  };
}

/** Sends `count` requests of generated bodies: JSON, text with control characters, bytes. */
async function generated(count: number, seed: number): Promise<void> {
  const random = randoms(seed);
  for (let i = 0; i < count; i++) {
    const length = random(2048);
    const kind = random(4);
    const body =
      kind === 0
        ? Buffer.from(
            JSON.stringify({
              name: `gen-${i}-${'é✓'.repeat(random(5))}`,
              detail: { description: 'd'.repeat(length) },
            }),
          )
        : kind === 1
          ? Buffer.from(Array.from({ length }, () => random(32)))
          : kind === 2
            ? Buffer.from(Array.from({ length }, () => random(256)))
            : Buffer.alloc(0);
    const answer = await fetch(`${suite.mock.baseUrl}/markings${kind === 3 ? '?x=1' : ''}`, {
      method: kind === 3 ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${suite.mock.token}` },
      ...(kind === 3 ? {} : { body }),
    });
    await answer.arrayBuffer();
  }
}

describe('the journal without bodies, a page at a time', () => {
  it('pages back from the newest by default, each page naming the next', async () => {
    const count = LIST_PAGE_ENTRIES + 150;
    for (let sent = 0; sent < count; sent += 50) {
      await Promise.all(
        Array.from({ length: 50 }, () =>
          fetch(`${suite.mock.info.url}/_mock/health`).then((a) => a.arrayBuffer()),
        ),
      );
    }
    const { page: first, link } = await page('/_mock/requests?path=/_mock/health');
    expect(first.requests).toHaveLength(LIST_PAGE_ENTRIES);
    expect(first.total).toBeGreaterThanOrEqual(count);
    expect(first.next).toMatch(/^\/_mock\/requests\?path=%2F_mock%2Fhealth&before=\d+$/);
    expect(link).toBe(`<${first.next}>; rel="next"`);
    // The newest page holds the newest requests, oldest first.
    const ids = first.requests.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const all = await walk('/_mock/requests?path=/_mock/health');
    expect(all.map((p) => p.requests.length)).toEqual([LIST_PAGE_ENTRIES, 150]);
    expect(all.at(-1)!.next).toBeUndefined();
    // Without bodies, entries carry no messages.
    expect(all[1]!.requests[0]).not.toHaveProperty('request');
  });

  it('mock requests shows the last N however many pages they take', async () => {
    await post(20, 10);
    for (let sent = 0; sent < LIST_PAGE_ENTRIES; sent += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          fetch(`${suite.mock.baseUrl}/markings/none-${sent + i}`, {
            headers: { authorization: `Bearer ${suite.mock.token}` },
          }).then((a) => a.arrayBuffer()),
        ),
      );
    }
    const shown = await suite.ksctl(['mock', 'requests', '--tail', '1010', '-o', 'json']);
    expect(shown.code, shown.stderr).toBe(0);
    const entries = JSON.parse(shown.stdout) as JournalEntryWithBodies[];
    expect(entries).toHaveLength(1010);
    // The oldest ten shown are the last ten creates, from before the newest page.
    expect(entries.slice(0, 10).every((e) => e.method === 'POST')).toBe(true);
    expect(entries.slice(10).every((e) => e.status === 404)).toBe(true);
  });
});

describe('however the journal is paged', () => {
  it.each([1, 2])(
    'gives the same entries in one page as in many, with bodies and without (seed %i)',
    async (seed) => {
      await generated(60, seed);
      const random = randoms(seed * 7919);
      for (const bodies of ['', 'bodies=true&']) {
        const { page: one } = await page(`/_mock/requests?${bodies}side=markings&limit=10000`);
        expect(one.next).toBeUndefined();
        expect(one.requests).toHaveLength(60);
        for (let round = 0; round < 3; round++) {
          const limit = 1 + random(9);
          const back = await walk(`/_mock/requests?${bodies}side=markings&limit=${limit}`);
          expect(back.reverse().flatMap((p) => p.requests)).toEqual(one.requests);
          const forward = await walk(
            `/_mock/requests?${bodies}side=markings&limit=${limit}&after=0`,
          );
          expect(forward.flatMap((p) => p.requests)).toEqual(one.requests);
          const newest = await walk(
            `/_mock/requests?${bodies}side=markings&limit=${limit}&order=newest`,
          );
          expect(newest.flatMap((p) => p.requests)).toEqual([...one.requests].reverse());
          expect(back.length).toBe(Math.ceil(60 / limit));
        }
      }
    },
  );

  it('never sends a page over its bytes of JSON, however the bodies escape', async () => {
    // 64 KiB of control characters: each one is six bytes of JSON (\u0001).
    const count = 24;
    for (let i = 0; i < count; i++) {
      const answer = await fetch(`${suite.mock.baseUrl}/markings`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${suite.mock.token}`,
        },
        body: Buffer.alloc(JOURNAL_BODY_KEPT_BYTES, 1),
      });
      await answer.arrayBuffer();
    }
    const sizes: number[] = [];
    const pages = await walk('/_mock/requests?bodies=true&side=markings', sizes);
    expect(pages.flatMap((p) => p.requests)).toHaveLength(count);
    expect(pages[0]!.requests[0]!.request.body).toBe('\u0001'.repeat(JOURNAL_BODY_KEPT_BYTES));
    expect(pages.length).toBeGreaterThan(1);
    // The page's entries within the bound; around them only the total and the next link.
    for (const size of sizes) expect(size).toBeLessThanOrEqual(JOURNAL_PAGE_BYTES + 512);
  });
});

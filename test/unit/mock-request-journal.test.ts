import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/api/wire.js';
import {
  JOURNAL_MAX_BYTES,
  JOURNAL_MAX_ENTRIES,
  Journal,
  redactQuery,
} from '../../src/mock/request-journal.js';

const entry = (i: number, path: string, cid = `cid-${i}`): JournalEntry => ({
  time: new Date(0).toISOString(),
  method: 'GET',
  path,
  status: 200,
  cid,
  durationMs: 1,
  requestBytes: 0,
});

describe('the request journal', () => {
  it('keeps the last 10,000 entries, oldest first, and counts them all', () => {
    const journal = new Journal();
    for (let i = 0; i < JOURNAL_MAX_ENTRIES + 2_500; i++) journal.record(entry(i, `/p/${i}`));
    const { total, requests } = journal.list();
    expect(total).toBe(JOURNAL_MAX_ENTRIES + 2_500);
    expect(requests).toHaveLength(JOURNAL_MAX_ENTRIES);
    expect(requests[0]!.path).toBe('/p/2500');
    expect(requests.at(-1)!.path).toBe(`/p/${JOURNAL_MAX_ENTRIES + 2_499}`);
  });

  it('is bounded in bytes: long paths and ids are cut, and old entries make room', () => {
    const journal = new Journal();
    for (let i = 0; i < JOURNAL_MAX_ENTRIES; i++) {
      journal.record(entry(i, `/${'漢'.repeat(100_000)}`, 'c'.repeat(100_000)));
    }
    const { requests } = journal.list();
    expect(requests[0]!.path.length).toBeLessThanOrEqual(512);
    expect(requests[0]!.cid.length).toBeLessThanOrEqual(128);
    expect(Buffer.byteLength(JSON.stringify(requests))).toBeLessThanOrEqual(JOURNAL_MAX_BYTES);
    expect(requests.length).toBeLessThan(JOURNAL_MAX_ENTRIES);
    expect(requests.length).toBeGreaterThan(1_000);
  });

  it('holds what it keeps, not the long strings it was cut from (issue 17)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heldBytes = () => {
      gc();
      return getHeapStatistics().used_heap_size;
    };
    const journal = new Journal();
    const before = heldBytes();
    // 1,000 paths of 50,000 characters: 50 MB that a slice would keep alive.
    for (let i = 0; i < 1_000; i++) {
      const path = Buffer.from(`/${i}/${'p'.repeat(50_000)}`, 'latin1').toString('latin1');
      journal.record(entry(i, path, path));
    }
    const held = heldBytes() - before;
    expect(journal.list().requests).toHaveLength(1_000);
    expect(held).toBeLessThan(8 * 1024 * 1024);
  });

  it('redacts secret query parameters whatever their case, and keeps the others', () => {
    const query = new URLSearchParams('a=1&Token=t&password=p&UIDAUTH=%2CIx&code=9&name=x%20y');
    expect(redactQuery(query)).toBe(
      '?a=1&Token=%5Bredacted%5D&password=%5Bredacted%5D&UIDAUTH=%5Bredacted%5D&code=%5Bredacted%5D&name=x%20y',
    );
    expect(redactQuery(new URLSearchParams())).toBe('');
  });
});

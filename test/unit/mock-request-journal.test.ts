import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  JOURNAL_BODIES_MAX_BYTES,
  JOURNAL_BODY_KEPT_BYTES,
  JOURNAL_MAX_BYTES,
  JOURNAL_MAX_ENTRIES,
  JOURNAL_WAITING_MAX_BYTES,
  Journal,
} from '../../src/mock/journal/request-journal.js';
import { type RecordedRequest, redactQuery } from '../../src/mock/journal/entry.js';

const entry = (i: number, path: string, cid = `cid-${i}`): RecordedRequest => ({
  time: new Date(0).toISOString(),
  method: 'GET',
  path,
  status: 200,
  cid,
  durationMs: 1,
  requestBytes: 0,
  responseBytes: 0,
  requestHeaders: {},
  responseHeaders: {},
  responseBody: [],
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
    const path = `/${'漢'.repeat(100_000)}`;
    const cid = 'c'.repeat(100_000);
    for (let i = 0; i < JOURNAL_MAX_ENTRIES; i++) journal.record(entry(i, path, cid));
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

  it('keeps bodies within its byte bound: the oldest messages go first, their entries stay', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heldBytes = () => {
      // Buffers' memory is given back by the second collection.
      gc();
      gc();
      return getHeapStatistics().used_heap_size + process.memoryUsage().arrayBuffers;
    };
    const journal = new Journal();
    const before = heldBytes();
    // 2,000 requests of 1 MiB each way: 4 GB if all were kept, 256 MiB if each kept 64 KiB.
    const body = Buffer.alloc(1024 * 1024, 'a');
    for (let i = 0; i < 2_000; i++) {
      journal.record({
        ...entry(i, `/p/${i}`),
        requestBytes: body.length,
        responseBytes: body.length,
        requestHeaders: { 'content-type': 'text/plain' },
        requestBody: body,
        responseBody: [body.subarray(0, 10), body.subarray(10)],
      });
    }
    // What is kept, and what waits for its redaction (recorded in one go, nothing was redacted
    // in slices meanwhile: the queue is full).
    const held = heldBytes() - before;
    expect(held).toBeLessThan(
      JOURNAL_BODIES_MAX_BYTES + JOURNAL_WAITING_MAX_BYTES + 8 * 1024 * 1024,
    );
    const { requests } = journal.list({ bodies: true });
    expect(requests).toHaveLength(2_000);
    const withBodies = requests.filter((r) => !r.request.dropped);
    const keptBytes = withBodies.length * 2 * JOURNAL_BODY_KEPT_BYTES;
    expect(keptBytes).toBeLessThanOrEqual(JOURNAL_BODIES_MAX_BYTES);
    expect(withBodies.length).toBeGreaterThan(100);
    // The newest keep theirs; the oldest say theirs were let go.
    const newest = journal.get(requests.at(-1)!.id)!;
    expect(newest.request).toMatchObject({ bytes: body.length, truncated: true });
    expect(newest.request.body).toHaveLength(JOURNAL_BODY_KEPT_BYTES);
    expect(newest.response.body).toHaveLength(JOURNAL_BODY_KEPT_BYTES);
    expect(journal.get(requests[0]!.id)!.request).toMatchObject({ dropped: true, body: '' });
  });

  it('finds entries by id and filters them, newest first when asked', () => {
    const journal = new Journal();
    for (let i = 0; i < 30; i++) {
      journal.record({ ...entry(i, i % 3 === 0 ? `/_mock/x${i}` : `/v2/dev/markings/${i}`) });
    }
    const ids = journal.list().requests.map((r) => r.id);
    expect(ids).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(journal.get(8)?.path).toBe('/v2/dev/markings/7');
    expect(journal.get(31)).toBeUndefined();
    const admin = journal.list({ side: 'admin', newestFirst: true, limit: 2 }).requests;
    expect(admin.map((r) => r.path)).toEqual(['/_mock/x27', '/_mock/x24']);
    expect(journal.list({ after: 28 }).requests.map((r) => r.id)).toEqual([29, 30]);
    journal.clear();
    journal.record(entry(0, '/after-reset'));
    expect(journal.list().requests[0]!.id).toBe(31);
  });

  it('redacts secret query parameters whatever their case, and keeps the others', () => {
    const query = new URLSearchParams('a=1&Token=t&password=p&UIDAUTH=%2CIx&code=9&name=x%20y');
    expect(redactQuery(query)).toBe(
      '?a=1&Token=%5Bredacted%5D&password=%5Bredacted%5D&UIDAUTH=%5Bredacted%5D&code=%5Bredacted%5D&name=x%20y',
    );
    expect(redactQuery(new URLSearchParams())).toBe('');
  });
});

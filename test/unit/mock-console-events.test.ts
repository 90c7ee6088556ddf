/**
 * The console's event streams (src/mock/routes/console/events.ts): entries batched into one event per
 * interval, the console's own requests left out, and a reader that falls behind costs the mock a
 * bounded amount: what it cannot take is dropped, counted and reported once it reads again.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JournalEntry } from '../../src/common/mock/wire.js';
import { BATCH_MS, EventStreams, MAX_PENDING } from '../../src/mock/routes/console/events.js';
import { sleep } from '../../src/common/sleep.js';

class FakeResponse extends EventEmitter {
  written: string[] = [];
  writableLength = 0;
  destroyed = false;
  writableEnded = false;
  write(text: string): boolean {
    this.written.push(text);
    return true;
  }
  end(): void {
    this.writableEnded = true;
  }
  events(): { event: string; data: unknown }[] {
    return this.written
      .filter((text) => text.startsWith('event: '))
      .map((text) => {
        const [event, data] = text.trim().split('\n');
        return { event: event!.slice(7), data: JSON.parse(data!.slice(6)) as unknown };
      });
  }
}

let ids = 0;
const entry = (path: string): JournalEntry => ({
  id: ++ids,
  side: path.startsWith('/_mock/') ? 'admin' : 'markings',
  responseBytes: 0,
  time: new Date().toISOString(),
  method: 'GET',
  path,
  status: 200,
  cid: 'c',
  durationMs: 1,
  requestBytes: 0,
});

function feed() {
  const listeners = new Set<(e: JournalEntry) => void>();
  return {
    subscribe: (listener: (e: JournalEntry) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    record: (e: JournalEntry) => listeners.forEach((l) => l(e)),
    get listeners() {
      return listeners.size;
    },
  };
}

describe('console event streams', () => {
  it('sends the entries of an interval as one event, without the console’s own', async () => {
    const source = feed();
    const streams = new EventStreams(source.subscribe, 20, 60_000);
    const res = new FakeResponse();
    streams.open(res as unknown as ServerResponse);
    for (let i = 0; i < 100; i++) source.record(entry(`/v2/dev/markings/${i}`));
    source.record(entry('/_mock/console/api/stats'));
    await sleep(60);
    const events = res.events();
    expect(events).toHaveLength(1);
    expect(events[0]!.event).toBe('requests');
    expect((events[0]!.data as JournalEntry[]).map((e) => e.path)).toEqual(
      Array.from({ length: 100 }, (_, i) => `/v2/dev/markings/${i}`),
    );
    res.emit('close');
    expect(source.listeners).toBe(0);
    expect(res.writableEnded).toBe(true);
  });

  describe('at 500 requests a second for ten seconds', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('sends at most one requests event per 250 ms on each connection, and every entry', () => {
      vi.useFakeTimers();
      const source = feed();
      const streams = new EventStreams(source.subscribe);
      const connections = [new FakeResponse(), new FakeResponse()];
      const sentAt = connections.map(() => [] as number[]);
      connections.forEach((res, i) => {
        const write = res.write.bind(res);
        res.write = (text: string) => {
          if (text.startsWith('event: requests')) sentAt[i]!.push(Date.now());
          return write(text);
        };
        streams.open(res as unknown as ServerResponse);
      });
      // One entry every 2 ms; the connections drain now and then, which must not flush early.
      for (let ms = 0; ms < 10_000; ms += 2) {
        source.record(entry(`/v2/dev/markings/${ms}`));
        if (ms % 50 === 0) connections.forEach((res) => res.emit('drain'));
        vi.advanceTimersByTime(2);
      }
      vi.advanceTimersByTime(BATCH_MS);
      for (const [i, res] of connections.entries()) {
        const times = sentAt[i]!;
        expect(times.length).toBeLessThanOrEqual(10_000 / BATCH_MS + 1);
        expect(times.length).toBeGreaterThanOrEqual(10_000 / BATCH_MS - 1);
        const gaps = times.slice(1).map((t, j) => t - times[j]!);
        expect(Math.min(...gaps)).toBeGreaterThanOrEqual(BATCH_MS);
        const delivered = res
          .events()
          .filter((e) => e.event === 'requests')
          .reduce((n, e) => n + (e.data as unknown[]).length, 0);
        expect(delivered).toBe(5_000);
      }
      streams.closeAll();
    });
  });

  it('holds a bounded number of entries for a reader that falls behind, and tells it what it missed', async () => {
    const source = feed();
    const streams = new EventStreams(source.subscribe, 10, 60_000);
    const res = new FakeResponse();
    streams.open(res as unknown as ServerResponse);
    res.writableLength = 10 * 1024 * 1024;
    const sent = 3 * MAX_PENDING;
    for (let i = 0; i < sent; i++) source.record(entry(`/v2/dev/markings/${i}`));
    await sleep(40);
    for (let i = 0; i < 10; i++) source.record(entry('/v2/dev/markings/late'));
    await sleep(40);
    expect(res.events()).toEqual([]);

    res.writableLength = 0;
    res.emit('drain');
    await sleep(40);
    expect(res.events()).toEqual([{ event: 'missed', data: { missed: sent + 10 } }]);
    source.record(entry('/v2/dev/markings/after'));
    await sleep(40);
    expect(res.events().at(-1)).toMatchObject({
      event: 'requests',
      data: [{ path: '/v2/dev/markings/after' }],
    });
    streams.closeAll();
  });
});

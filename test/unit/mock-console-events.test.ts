/**
 * The console's event streams (src/mock/console/events.ts): entries batched into one event per
 * interval, the console's own requests left out, and a reader that falls behind costs the mock a
 * bounded amount: what it cannot take is dropped, counted and reported once it reads again.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/api/wire.js';
import { EventStreams, MAX_PENDING } from '../../src/mock/console/events.js';
import { sleep } from '../../src/sleep.js';

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

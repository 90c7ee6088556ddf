/**
 * Issue 26: the mock sorts the values of a large marking in steps (src/mock/kit/pacing.ts), runs sorted
 * natively and merged, so a sort of 100,000 values never holds it. The order must be exactly that
 * of one native sort, ties included.
 */
import { describe, expect, it } from 'vitest';
import { Pacer, runWhole, sortSteps } from '../../src/mock/kit/pacing.js';

/** A fixed sequence of pseudo-random numbers, so that a failure can be run again. */
function numbers(count: number, seed: number, range: number): number[] {
  let x = seed;
  return Array.from({ length: count }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % range;
  });
}

describe('sortSteps', () => {
  it.each([0, 1, 4095, 4096, 4097, 8192, 12_289, 40_000])(
    'orders %i items as one native sort does, equal keys in their first order',
    (count) => {
      // Few distinct keys: many ties, whose order only a stable sort keeps.
      const items = numbers(count, count + 1, 97).map((key, at) => ({ key, at }));
      const compare = (a: { key: number }, b: { key: number }) => a.key - b.key;
      const sorted = runWhole(sortSteps(items, compare));
      expect(sorted).toEqual([...items].sort(compare));
      expect(items.map((item) => item.at)).toEqual(items.map((_, at) => at));
    },
  );

  it('gives way while it sorts a large list, and not for a small one', () => {
    const count = (items: number[]) => {
      const steps = sortSteps(items, (a, b) => a - b);
      let yields = 0;
      while (!steps.next().done) yields++;
      return yields;
    };
    expect(count(numbers(100_000, 7, 1_000_000))).toBeGreaterThan(100);
    expect(count(numbers(1000, 7, 1_000_000))).toBe(0);
  });
});

describe('Pacer: the work in progress has its share of each turn (issue 34)', () => {
  /** The other clients' turn: the thread held for at least `ms`. */
  const busy = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      // held
    }
  };

  it('gets as long a slice as the turn it gave way to took, up to 50 ms', async () => {
    const pacer = new Pacer();
    expect(pacer.sliceMs).toBe(8);
    // Others that hold the thread 30 ms of the turn: the next slice is as long, not 8 ms.
    setImmediate(() => busy(30));
    await pacer.pause();
    expect(pacer.sliceMs).toBeGreaterThanOrEqual(30);
    expect(pacer.sliceMs).toBeLessThanOrEqual(50);
    // Longer than 50 ms: the slice stops at 50, so health checks wait no longer than that.
    setImmediate(() => busy(80));
    await pacer.pause();
    expect(pacer.sliceMs).toBe(50);
    // A slice is never shorter than the one asked for.
    const short = new Pacer(20);
    await short.pause();
    expect(short.sliceMs).toBeGreaterThanOrEqual(20);
  });
});

describe('Pacer: the slices of all work take turns (issue 34)', () => {
  /** The thread held for `ms`, as a slice of work holds it. */
  const hold = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      // held
    }
  };

  /**
   * Works in slices, each slice marked `S`, beside a timer that marks each turn of the event loop
   * `T`: what runs between two turns is what a health check waits for.
   */
  async function trace(works: number, slices: number): Promise<string> {
    const marks: string[] = [];
    let done = false;
    const tick = () => {
      marks.push('T');
      if (!done) setTimeout(tick, 0);
    };
    const work = async (pacer: Pacer) => {
      for (let i = 0; i < slices; i++) {
        hold(2);
        marks.push('S');
        // The slice is used up (1 ms asked for, 2 held): it gives way.
        expect(pacer.used()).toBe(true);
        await pacer.pause();
      }
    };
    setTimeout(tick, 0);
    // The first turn of the timer comes before any slice: the works start from a timer too.
    await new Promise((resolve) => setTimeout(resolve, 0));
    await Promise.all(Array.from({ length: works }, () => work(new Pacer(1, 1))));
    done = true;
    return marks.join('');
  }

  it('runs one slice a turn however many works are in progress', async () => {
    const marks = await trace(6, 5);
    expect(marks.match(/S/g)).toHaveLength(30);
    // The works' first slices run as they start; after those, never two slices in one turn.
    const afterStart = marks.slice(marks.indexOf('T', marks.indexOf('S')));
    expect(afterStart).not.toMatch(/SS/);
  });

  it('starts new work behind the work that waits its turn', async () => {
    const marks: string[] = [];
    const waiting = new Pacer(1, 1);
    hold(2);
    const first = waiting.pause().then(() => marks.push('waited'));
    // New work while other work waits: its slice is used up at once, so it queues behind it.
    const fresh = new Pacer(50, 50);
    expect(fresh.used()).toBe(true);
    await fresh.pause();
    marks.push('new');
    await first;
    expect(marks).toEqual(['waited', 'new']);
    // With nothing waiting, new work has its slice.
    expect(new Pacer(50, 50).used()).toBe(false);
  });
});

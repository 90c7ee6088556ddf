/**
 * Issue 26: the mock sorts the values of a large marking in steps (src/mock/pacing.ts), runs sorted
 * natively and merged, so a sort of 100,000 values never holds it. The order must be exactly that
 * of one native sort, ties included.
 */
import { describe, expect, it } from 'vitest';
import { runWhole, sortSteps } from '../../src/mock/pacing.js';

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

/**
 * Issue 17: the markings writes run in steps (src/mock/pacing.ts), so a request of 100,000 values
 * never holds the mock; the store must still change in one step. Driven step by step here, with
 * other writes between the steps, as other clients' requests come between the slices.
 */
import { describe, expect, it } from 'vitest';
import type { Marking } from '../../src/markings/wire.js';
import { IdGenerator } from '../../src/mock/ids.js';
import { MarkingsStore } from '../../src/mock/markings/store.js';
import type { Steps } from '../../src/mock/pacing.js';

const actor = { name: 'dev' };
const values = (count: number, prefix = 'value') =>
  Array.from({ length: count }, (_, i) => ({ name: `${prefix}-${String(i).padStart(5, '0')}` }));

/** Runs the steps, calling `between` after each yield; returns the result and the yields. */
function drive<T>(steps: Steps<T>, between: (step: number) => void = () => undefined) {
  for (let step = 0; ; step++) {
    const next = steps.next();
    if (next.done) return { result: next.value, steps: step };
    between(step);
  }
}

describe('markings writes in steps', () => {
  it('a create takes a step a value, and the marking appears whole at the end', () => {
    const store = new MarkingsStore(new IdGenerator());
    const seen: number[] = [];
    const { result, steps } = drive(
      store.createSteps({ name: 'large', detail: { values: values(5000) } }, actor),
      () => seen.push(store.size),
    );
    expect(steps).toBeGreaterThanOrEqual(10_000);
    // Every step but the last few (the answer's) sees no marking at all.
    expect(seen.filter((size) => size === 0).length).toBeGreaterThanOrEqual(10_000);
    expect(seen.at(-1)).toBe(1);
    expect(result.detail.values).toHaveLength(5000);
    expect(store.get(result.id).detail.valueCount).toBe(5000);
  });

  it('a name taken by another write meanwhile is a conflict, and the store keeps the other', () => {
    const store = new MarkingsStore(new IdGenerator());
    const steps = store.createSteps({ name: 'contested', detail: { values: values(100) } }, actor);
    expect(() =>
      drive(steps, (step) => {
        if (step === 50) store.create({ name: 'contested' }, actor);
      }),
    ).toThrow(/already exists|contested/);
    expect(store.size).toBe(1);
    expect(store.list({ terms: [] } as never, 0, 10, undefined).items[0]!.detail.valueCount).toBe(
      0,
    );
  });

  it('an update is worked out against the marking it finds, and again if it changed meanwhile', () => {
    const store = new MarkingsStore(new IdGenerator());
    const { id } = store.create({ name: 'm', detail: { values: values(1000) } }, actor);
    const wanted = values(1000).map((v) => ({ ...v, description: 'new' }));
    let added = false;
    const { result } = drive(
      store.updateSteps(id, { detail: { values: wanted } }, actor, undefined),
      (step) => {
        // Another client adds a value half-way: the update is the complete set, so it goes again.
        if (step === 500 && !added) {
          store.createValue(id, { name: 'interloper' }, actor);
          added = true;
        }
      },
    );
    expect(added).toBe(true);
    const check = (marking: Marking) => {
      expect(marking.detail.values).toHaveLength(1000);
      expect(marking.detail.values!.every((v) => v.description === 'new')).toBe(true);
      expect(marking.detail.values!.some((v) => v.name === 'interloper')).toBe(false);
    };
    check(result);
    check(store.get(id));
    // One version for the update, one for the value added meanwhile.
    expect(store.version(id)).toBe(3);
  });

  it('an update that changes nothing keeps the version and every value', () => {
    const store = new MarkingsStore(new IdGenerator());
    const created = store.create({ name: 'same', detail: { values: values(50) } }, actor);
    const updated = store.update(created.id, { detail: { values: values(50) } }, actor, undefined);
    expect(updated._version).toBe(1);
    expect(updated.detail.values!.map((v) => v.id)).toEqual(
      created.detail.values!.map((v) => v.id),
    );
  });

  it('a bulk write makes its markings apart: none is there until all are', () => {
    const store = new MarkingsStore(new IdGenerator());
    const bulk = Array.from({ length: 20 }, (_, i) => ({
      name: `bulk-${i}`,
      detail: { values: values(50) },
    }));
    const sizes: number[] = [];
    const { result } = drive(store.bulkSteps(bulk, actor, undefined), () => sizes.push(store.size));
    expect(result).toHaveLength(20);
    expect(new Set(sizes)).toEqual(new Set([0, 20]));
    expect(sizes.filter((size) => size === 0).length).toBeGreaterThan(1000);
  });
});

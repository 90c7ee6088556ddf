/**
 * Issue 17: the markings writes run in steps (src/mock/kit/pacing.ts), so a request of 100,000 values
 * never holds the mock; the store must still change in one step. Driven step by step here, with
 * other writes between the steps, as other clients' requests come between the slices.
 */
import { describe, expect, it } from 'vitest';
import type { Marking } from '../../src/common/markings/wire.js';
import { IdGenerator } from '../../src/mock/kit/ids.js';
import { MarkingsStore } from '../../src/mock/model/markings/store.js';
import type { Steps } from '../../src/mock/kit/pacing.js';
import type { StoredMarking } from '../../src/mock/model/markings/stored.js';

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

/** The stored form of marking `id`, as the store holds it (for counting its lookups). */
function stored(store: MarkingsStore, id: string): StoredMarking {
  return (store as unknown as { byId: Map<string, StoredMarking> }).byId.get(id)!;
}

/**
 * Counts the lookups of the markings' values (get and has, by id or by name): the per-value work
 * a step does. A step that does it for 10,000 values holds the mock; one that does none does not.
 */
function countLookups(markings: StoredMarking[]): { count: number } {
  const counter = { count: 0 };
  for (const m of markings) {
    for (const map of [m.valuesById, m.valuesByName]) {
      const get = map.get.bind(map);
      const has = map.has.bind(map);
      map.get = (key) => (counter.count++, get(key));
      map.has = (key) => (counter.count++, has(key));
    }
  }
  return counter;
}

/** Each value's description is the same, and the version says which write it is from. */
function wholeAt(marking: Marking, described: Record<number, string>): boolean {
  const wanted = described[marking._version];
  return wanted !== undefined && marking.detail.values!.every((v) => v.description === wanted);
}

describe('a large marking read and written in steps (issue 26)', () => {
  const LARGE = 10_000;

  it('a read makes its answer in steps', () => {
    const store = new MarkingsStore(new IdGenerator());
    const { id } = store.create({ name: 'read', detail: { values: values(LARGE) } }, actor);
    const { result, steps } = drive(store.getSteps(id));
    expect(steps).toBeGreaterThanOrEqual(LARGE / 100);
    expect(result).toEqual(store.get(id));
    expect(result.detail.values!.map((v) => v.name)).toEqual(values(LARGE).map((v) => v.name));
  });

  it('the step in which an update changes the marking looks up none of its values', () => {
    const store = new MarkingsStore(new IdGenerator());
    const { id } = store.create({ name: 'checked', detail: { values: values(LARGE) } }, actor);
    const lookups = countLookups([stored(store, id)]);
    const steps = store.updateSteps(
      id,
      { detail: { values: values(LARGE).map((v) => ({ ...v, description: 'new' })) } },
      actor,
      undefined,
    );
    let changing: number | undefined;
    for (;;) {
      const before = lookups.count;
      const next = steps.next();
      if (changing === undefined && store.version(id) === 2) changing = lookups.count - before;
      if (next.done) break;
    }
    // Checked and worked out before: by name, each value at least once.
    expect(lookups.count).toBeGreaterThanOrEqual(LARGE);
    expect(changing).toBe(0);
    expect(store.get(id).detail.values!.every((v) => v.description === 'new')).toBe(true);
  });

  it('the step in which a bulk update changes its markings looks up none of their values', () => {
    const store = new MarkingsStore(new IdGenerator());
    const made = store.bulk(
      Array.from({ length: 20 }, (_, i) => ({ name: `b-${i}`, detail: { values: values(500) } })),
      actor,
      0,
    );
    const lookups = countLookups(made.map((m) => stored(store, m.id)));
    const items = made.map((m) => ({
      id: m.id,
      detail: { values: values(500).map((v) => ({ ...v, description: 'new' })) },
    }));
    const steps = store.bulkSteps(items, actor, 0);
    let changing: number | undefined;
    for (;;) {
      const before = lookups.count;
      const next = steps.next();
      if (changing === undefined && store.version(made[0]!.id) === 2) {
        changing = lookups.count - before;
      }
      if (next.done) break;
    }
    expect(lookups.count).toBeGreaterThanOrEqual(20 * 500);
    expect(changing).toBe(0);
    expect(made.every((m) => store.version(m.id) === 2)).toBe(true);
  });

  it.each([
    ['before the read starts', 0],
    ['while the read sorts the values', 3],
    ['while the read writes the values', 150],
    ['after the read', Infinity],
  ])(
    'a read in steps while an update commits %s sees all of the update or none of it',
    (_, readFirst) => {
      const store = new MarkingsStore(new IdGenerator());
      const { id } = store.create({ name: 'both', detail: { values: values(LARGE) } }, actor);
      stored(store, id).sorted = undefined;
      const described = values(LARGE).map((v) => ({ ...v, description: 'new' }));
      const read = store.getSteps(id);
      const write = store.updateSteps(id, { detail: { values: described } }, actor, undefined);
      let answer: Marking | undefined;
      for (let step = 0; answer === undefined && step < readFirst; step++) {
        const next = read.next();
        if (next.done) answer = next.value;
      }
      while (!write.next().done);
      while (answer === undefined) {
        const next = read.next();
        if (next.done) answer = next.value;
      }
      expect(answer.detail.values).toHaveLength(LARGE);
      expect(wholeAt(answer, { 1: '', 2: 'new' })).toBe(true);
    },
  );

  it('a read in steps while one value is changed sees the marking before or after the change', () => {
    const store = new MarkingsStore(new IdGenerator());
    const created = store.create({ name: 'one', detail: { values: values(LARGE) } }, actor);
    const last = created.detail.values!.at(-1)!;
    const read = store.getSteps(created.id);
    for (let step = 0; step < 150; step++) read.next();
    store.updateValue(created.id, last.id, { description: 'changed' }, actor);
    const answer = drive(read).result;
    expect(answer._version).toBe(2);
    expect(answer.detail.values!.at(-1)!.description).toBe('changed');
    expect(answer).toEqual(store.get(created.id));
  });

  it('a whole read between any two steps of an update sees the marking before or after it', () => {
    const store = new MarkingsStore(new IdGenerator());
    const { id } = store.create({ name: 'whole', detail: { values: values(LARGE) } }, actor);
    const described = values(LARGE).map((v) => ({ ...v, description: 'new' }));
    const seen = new Set<number>();
    drive(store.updateSteps(id, { detail: { values: described } }, actor, undefined), (step) => {
      if (step % 97 !== 0) return;
      const marking = store.get(id);
      expect(wholeAt(marking, { 1: '', 2: 'new' })).toBe(true);
      seen.add(marking._version);
    });
    expect(seen).toEqual(new Set([1, 2]));
  });
  it('a listing of the values is made in steps, and of one moment', () => {
    const store = new MarkingsStore(new IdGenerator());
    const created = store.create({ name: 'listed', detail: { values: values(LARGE) } }, actor);
    stored(store, created.id).sorted = undefined;
    const all = { terms: [] } as never;
    const whole = store.listValues(created.id, all, 100, 50);
    const { result, steps } = drive(store.listValuesSteps(created.id, all, 100, 50));
    expect(steps).toBeGreaterThanOrEqual(LARGE / 100);
    expect(result).toEqual(whole);
    expect(result.items.map((v) => v.name)).toEqual(
      values(LARGE)
        .slice(100, 150)
        .map((v) => v.name),
    );
    // A value of the page renamed half-way: the page is listed again as it is then.
    const renamed = result.items[0]!;
    const { result: after } = drive(store.listValuesSteps(created.id, all, 100, 50), (step) => {
      if (step === 150) store.updateValue(created.id, renamed.id, { name: 'zzz' }, actor);
    });
    expect(after.items.some((v) => v.id === renamed.id)).toBe(false);
    expect(after).toEqual(store.listValues(created.id, all, 100, 50));
  });

  it('an update whose value named by id is deleted meanwhile fails, and nothing changes', () => {
    const store = new MarkingsStore(new IdGenerator());
    const created = store.create({ name: 'gone', detail: { values: values(LARGE) } }, actor);
    const named = created.detail.values![0]!;
    const wanted = [{ id: named.id, name: 'renamed' }, ...values(LARGE).slice(1)];
    let deleted = false;
    expect(() =>
      drive(
        store.updateSteps(created.id, { detail: { values: wanted } }, actor, undefined),
        (step) => {
          // Once the body has been read and checked (a step a value each): while it is worked out.
          if (step === 2 * LARGE + 100 && !deleted) {
            store.deleteValue(created.id, named.id, actor);
            deleted = true;
          }
        },
      ),
    ).toThrow(`detail.values[0].id: no value with id ${named.id} in this marking`);
    expect(deleted).toBe(true);
    const after = store.get(created.id);
    expect(after._version).toBe(2);
    expect(after.detail.values!.map((v) => v.name)).toEqual(
      values(LARGE)
        .slice(1)
        .map((v) => v.name),
    );
  });
});

describe('a bulk write checked in steps, against the store as it is when it changes (issue 26)', () => {
  const setUp = (count = 5) => {
    const store = new MarkingsStore(new IdGenerator());
    const made = store.bulk(
      Array.from({ length: count }, (_, i) => ({
        name: `m-${i}`,
        detail: { values: values(200) },
      })),
      actor,
      undefined,
    );
    return { store, made };
  };
  /** Every marking of the store, whole. */
  const everything = (store: MarkingsStore) =>
    store.list({ terms: [] } as never, 0, 100, undefined);

  it('a whole read between any two steps sees every item of a bulk write or none', () => {
    const { store, made } = setUp();
    const items = made.map((m) => ({
      id: m.id,
      detail: { values: values(200).map((v) => ({ ...v, description: 'new' })) },
    }));
    const seen = new Set<string>();
    drive(store.bulkSteps(items, actor, undefined), (step) => {
      if (step % 13 !== 0) return;
      const versions = everything(store).items.map((m) => {
        expect(wholeAt(m, { 1: '', 2: 'new' })).toBe(true);
        return m._version;
      });
      seen.add(versions.join());
    });
    expect(seen).toEqual(new Set(['1,1,1,1,1', '2,2,2,2,2']));
  });

  it('a marking deleted meanwhile fails the request with a 404, and nothing changes', () => {
    const { store, made } = setUp();
    const before = everything(store);
    const items = [
      ...made.map((m) => ({ id: m.id, detail: { description: 'changed', values: values(200) } })),
      { name: 'new-one', detail: { values: values(10) } },
    ];
    const victim = made[3]!;
    let deleted = false;
    let failure: unknown;
    try {
      drive(store.bulkSteps(items, actor, undefined), (step) => {
        // Once the items have been read and checked (a step a value each): while they are planned.
        if (step === 3000 && !deleted) {
          store.delete(victim.id, undefined);
          deleted = true;
        }
      });
    } catch (error) {
      failure = error;
    }
    expect(deleted).toBe(true);
    expect(failure).toMatchObject({
      status: 404,
      message: `no marking with id ${victim.id}`,
      details: [{ path: '[3].id', message: `no marking with id ${victim.id}` }],
    });
    expect(everything(store)).toEqual({
      total: 4,
      items: before.items.filter((m) => m.id !== victim.id),
    });
  });

  it('a value deleted meanwhile that an item names by id fails the request, and nothing changes', () => {
    const { store, made } = setUp();
    const target = made[1]!;
    const named = target.detail.values![7]!;
    const items = made.map((m) => ({
      id: m.id,
      detail: {
        description: 'changed',
        values:
          m === target
            ? [{ id: named.id, name: 'renamed' }, ...target.detail.values!.slice(8)]
            : values(200),
      },
    }));
    let failure: unknown;
    let changedMeanwhile = false;
    try {
      drive(store.bulkSteps(items, actor, undefined), (step) => {
        if (step === 2000 && !changedMeanwhile) {
          store.deleteValue(target.id, named.id, actor);
          changedMeanwhile = true;
        }
      });
    } catch (error) {
      failure = error;
    }
    expect(changedMeanwhile).toBe(true);
    expect(failure).toMatchObject({
      status: 400,
      details: [
        {
          path: '[1].detail.values[0].id',
          message: `no value with id ${named.id} in this marking`,
        },
      ],
    });
    const after = everything(store).items;
    expect(after.map((m) => m.detail.description)).toEqual(['', '', '', '', '']);
    expect(after.map((m) => m._version)).toEqual([1, 2, 1, 1, 1]);
  });

  it('a marking changed meanwhile is worked out again as it is then', () => {
    const { store, made } = setUp(3);
    const items = made.map((m) => ({ id: m.id, detail: { values: values(200) } }));
    let added = false;
    const { result } = drive(store.bulkSteps(items, actor, undefined), (step) => {
      // While its values are worked out, after it was checked.
      if (step === 1500 && !added) {
        store.createValue(made[2]!.id, { name: 'interloper' }, actor);
        added = true;
      }
    });
    expect(added).toBe(true);
    // The complete set leaves the interloper out: deleted by the bulk write, which it came before.
    expect(result.map((m) => m.detail.valueCount)).toEqual([200, 200, 200]);
    expect(store.get(made[2]!.id).detail.values!.some((v) => v.name === 'interloper')).toBe(false);
    expect(result.map((m) => m._version)).toEqual([1, 1, 3]);
  });

  it('items for the same marking are applied in their order', () => {
    const { store, made } = setUp(1);
    const id = made[0]!.id;
    const { result } = drive(
      store.bulkSteps(
        [
          { id, detail: { description: 'first', values: values(300, 'first') } },
          { id, detail: { values: values(100, 'second') } },
        ],
        actor,
        undefined,
      ),
    );
    expect(result[1]!.detail.description).toBe('first');
    expect(result[1]!.detail.values!.map((v) => v.name)).toEqual(
      values(100, 'second').map((v) => v.name),
    );
    expect(store.version(id)).toBe(3);
    expect(store.get(id)).toEqual(result[1]);
  });
});

/**
 * Every key a device creates without a marking's attribute receives the marking's default, so the
 * store keeps the list of defaults until the markings change (MarkingsStore.defaults). Random
 * sequences of every write there is (creates, updates with renames and new defaults, bulk writes,
 * value renames and deletes, marking deletes, and a store replayed from its records), some driven
 * step by step with reads between the steps: after each, and between steps, the kept list is the
 * one a scan of the markings gives.
 */
import { describe, expect, it } from 'vitest';
import { IdGenerator } from '../../src/mock/kit/ids.js';
import { MarkingsStore } from '../../src/mock/model/markings/store.js';
import type { MarkingChanges } from '../../src/mock/model/markings/stored.js';
import type { Steps } from '../../src/mock/kit/pacing.js';
import { prng, type Random } from '../helpers/random.js';

const actor = { name: 'dev' };
const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
const VALUES = ['red', 'green', 'blue', 'amber'];

/** The defaults as a scan of the markings finds them, by name. */
function scanned(store: MarkingsStore) {
  return [...store.records()]
    .map((r) => r.marking)
    .filter((m) => m.defaultValue !== null)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((m) => ({ name: m.name, defaultValue: m.defaultValue }));
}

function drive<T>(steps: Steps<T>, between: () => void): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    between();
  }
}

/** A random subset of VALUES, and maybe one of them as the default. */
function valuesAndDefault(r: Random) {
  const values = VALUES.filter(() => r.next() < 0.6);
  const defaultValue = values.length > 0 && r.next() < 0.6 ? r.pick(values) : null;
  return { values: values.map((name) => ({ name })), defaultValue };
}

/** One random write (a refused one changes nothing, as the store's own tests show). */
function randomWrite(store: MarkingsStore, r: Random, check: () => void): void {
  const markings = [...store.records()].map((x) => x.marking);
  const some = markings.length > 0 ? r.pick(markings) : undefined;
  const { values, defaultValue } = valuesAndDefault(r);
  const valuesOf = (id: string) => store.get(id).detail.values ?? [];
  switch (r.int(9)) {
    case 0:
      store.create({ name: r.pick(NAMES), defaultValue, detail: { values } }, actor);
      return;
    case 1:
      drive(
        store.createSteps({ name: r.pick(NAMES), defaultValue, detail: { values } }, actor),
        check,
      );
      return;
    case 2:
      if (some) store.update(some.id, { defaultValue, detail: { values } }, actor, undefined);
      return;
    case 3:
      if (some) {
        const steps = store.updateSteps(some.id, { name: r.pick(NAMES) }, actor, undefined);
        drive(steps, check);
      }
      return;
    case 4: {
      const items = [
        { name: `${r.pick(NAMES)}-${r.int(3)}`, defaultValue, detail: { values } },
        ...(some ? [{ id: some.id, defaultValue: null }] : []),
      ];
      drive(store.bulkSteps(items, actor, undefined), check);
      return;
    }
    case 5:
      if (some) store.createValue(some.id, { name: r.pick(VALUES) }, actor);
      return;
    case 6:
      if (some && valuesOf(some.id).length > 0) {
        const value = r.pick(valuesOf(some.id));
        store.updateValue(some.id, value.id, { name: `${value.name}-${r.int(3)}` }, actor);
      }
      return;
    case 7:
      if (some && valuesOf(some.id).length > 0) {
        store.deleteValue(some.id, r.pick(valuesOf(some.id)).id, actor);
      }
      return;
    default:
      if (some) store.delete(some.id, undefined);
  }
}

/** A store that replays what `store` reports, as a restart from the state directory does. */
function replaying(replica: MarkingsStore): MarkingChanges {
  return {
    marking: (record) => replica.restoreMarking({ ...record }),
    markingDeleted: (id) => replica.forgetMarking(id),
    value: (markingId, record) => replica.restoreValue(markingId, { ...record }),
    valueDeleted: (markingId, id) => replica.forgetValue(markingId, id),
  };
}

describe('the marking defaults a key receives', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])(
    'stay what a scan of the markings gives through random writes (seed %i)',
    (seed) => {
      const r = prng(seed);
      const replica = new MarkingsStore(new IdGenerator());
      const store = new MarkingsStore(new IdGenerator(), '', Date.now, replaying(replica));
      const check = () => {
        expect(store.defaults()).toEqual(scanned(store));
        expect(replica.defaults()).toEqual(scanned(replica));
      };
      let changed = 0;
      for (let i = 0; i < 300; i++) {
        const before = JSON.stringify(scanned(store));
        try {
          randomWrite(store, r, check);
        } catch {
          // Refused: a duplicate name, a default that is not a value, and the like.
        }
        if (JSON.stringify(scanned(store)) !== before) changed++;
        check();
        expect(replica.defaults()).toEqual(store.defaults());
      }
      // The runs do change the defaults, again and again.
      expect(changed).toBeGreaterThan(30);
    },
  );

  it('is the same list until the markings change', () => {
    const store = new MarkingsStore(new IdGenerator());
    store.create(
      { name: 'colour', defaultValue: 'red', detail: { values: [{ name: 'red' }] } },
      actor,
    );
    const first = store.defaults();
    expect(store.defaults()).toBe(first);
    store.create({ name: 'size', detail: { values: [{ name: 'large' }] } }, actor);
    expect(store.defaults()).not.toBe(first);
    expect(store.defaults()).toEqual([{ name: 'colour', defaultValue: 'red' }]);
  });
});

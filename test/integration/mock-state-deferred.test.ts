/**
 * Issue 26: a restart from state format 4 makes a marking's values only when something first asks
 * for them. Random markings (names in several scripts, empty descriptions, values whose members
 * differ from their neighbours', deleted values) are written, changed after their snapshot (journal
 * records replayed over markings a restart does not read) and restarted: every read path and
 * every write then answers exactly as the store that never restarted, and what needs no values
 * reads none.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { NO_FILTER } from '../../src/common/markings/filters.js';
import { deferredOf } from '../../src/mock/model/markings/deferred.js';
import type { MarkingsStore } from '../../src/mock/model/markings/store.js';
import type { StoredMarking } from '../../src/mock/model/markings/stored.js';
import { tempDirs } from '../helpers/temp.js';
import { openDurableState } from '../helpers/durable-state.js';

const dirs = tempDirs();
afterAll(() => dirs.removeAll());
afterEach(() => vi.restoreAllMocks());

/** One clock for both stores, moved on by hand: the same write gets the same times in each. */
let clock = 1_800_000_000_000;

/** A small seeded generator (mulberry32): the same markings on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = random(26);
const below = (n: number) => Math.floor(rand() * n);
const pick = <T>(list: readonly T[]): T => list[below(list.length)]!;
const PIECES = [
  'a',
  'Z',
  '7',
  'é',
  'ß',
  'Ж',
  'λ',
  '日本',
  '한',
  '🙂',
  'e\u0301',
  'ع',
  ' ',
  '-',
  '.',
];
const DESCRIPTIONS = ['', '', '', 'd', 'Größe', '説明 🙂'];

/** A name of one to five pieces that `taken` does not hold yet (then holds). */
function freshName(taken: Set<string>): string {
  for (;;) {
    const name = Array.from({ length: 1 + below(5) }, () => pick(PIECES))
      .join('')
      .trim();
    if (name !== '' && !taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}

const actors = [{ name: 'alice' }, { name: 'bob' }];

const openState = (dir: string) => openDurableState(dir, 'ksdev.deferred');

function stored(store: MarkingsStore): StoredMarking[] {
  return [...(store as unknown as { byId: Map<string, StoredMarking> }).byId.values()];
}

/** The markings whose values are not made yet. */
const deferredCount = (store: MarkingsStore) =>
  stored(store).filter((m) => deferredOf(m) !== undefined).length;

/** What needs no values: counts (the console's), names, a listing without values, defaults. */
const withoutValues = (store: MarkingsStore) => ({
  size: store.size,
  values: store.valueCount,
  listed: store.list(NO_FILTER, 0, 1000, 0),
  defaults: store.defaults(),
});

/** Every read path with values, marking by marking and value by value. */
function everyRead(store: MarkingsStore) {
  const listed = store.list(NO_FILTER, 0, 1000, undefined);
  return {
    listed,
    cut: store.list(NO_FILTER, 0, 1000, 2),
    markings: listed.items.map((m) => ({
      got: store.get(m.id),
      values: store.listValues(m.id, NO_FILTER, 0, 1000),
      each: m.detail.values!.map((v) => store.getValue(m.id, v.id)),
      rule: store.attributeRule(m.name)?.valueNames(),
    })),
  };
}

/** Makes random markings in `store`, changes some values, deletes some, sets defaults. */
function populate(store: MarkingsStore): void {
  const names = new Set<string>();
  for (let i = 0; i < 40; i++) {
    clock += 10;
    const valueNames = new Set<string>();
    const name = freshName(names);
    const description = pick(DESCRIPTIONS);
    // Some markings' values all share the marking's description, or its name (a single value):
    // a snapshot then gives that member once, with the marking.
    const values =
      i % 7 === 0
        ? [{ name, description }]
        : Array.from({ length: below(4) === 0 ? 0 : 1 + below(25) }, () => ({
            name: freshName(valueNames),
            description: i % 3 === 0 ? description : pick(DESCRIPTIONS),
          }));
    valueNames.add(name);
    const m = store.create({ name, detail: { description, values } }, pick(actors));
    for (const v of m.detail.values!) {
      clock += 1;
      const roll = rand();
      if (roll < 0.15) store.deleteValue(m.id, v.id, pick(actors));
      else if (roll < 0.3)
        store.updateValue(m.id, v.id, { description: pick(DESCRIPTIONS) }, pick(actors));
      else if (roll < 0.4)
        store.updateValue(m.id, v.id, { name: freshName(valueNames) }, pick(actors));
    }
    const left = store.get(m.id).detail.values!;
    if (left.length > 0 && rand() < 0.3) {
      store.update(m.id, { defaultValue: pick(left).name }, pick(actors), undefined);
    }
  }
}

/** Changes after the snapshot: journal records over markings a restart leaves unread. */
function changeSome(store: MarkingsStore): void {
  const markings = store.list(NO_FILTER, 0, 1000, undefined).items;
  for (const m of markings.filter((_, i) => i % 4 === 0)) {
    clock += 10;
    const values = m.detail.values!;
    const actor = pick(actors);
    const ops = [
      () => store.update(m.id, { name: `${m.name} ✎` }, actor, undefined),
      () => store.update(m.id, { detail: { description: 'changed after' } }, actor, undefined),
      () =>
        values[0] && store.updateValue(m.id, values[0].id, { name: `${values[0].name}!` }, actor),
      () => values[1] && store.updateValue(m.id, values[1].id, { description: 'later' }, actor),
      () => {
        const last = values.at(-1);
        if (last && last.name !== m.defaultValue) store.deleteValue(m.id, last.id, actor);
      },
      () => store.delete(m.id, undefined),
    ];
    pick(ops)();
  }
}

describe('a restart from state format 4', () => {
  it('answers every read and every write as the store that never restarted', async () => {
    vi.spyOn(Date, 'now').mockImplementation(() => clock);
    const dir = await dirs.make();
    const original = await openState(dir);
    populate(original.markings);
    await original.durable.compact();
    changeSome(original.markings);
    await original.durable.close();
    // Detached from the directory, it goes on as the store that never restarted.
    const kept = original.markings;

    let restarted = await openState(dir);
    let store = restarted.markings;
    const unread = deferredCount(store);
    // The journal's records read the markings they change, and only those.
    expect(unread).toBeGreaterThan(15);
    expect(unread).toBeLessThan(store.size);
    expect(withoutValues(store)).toEqual(withoutValues(kept));
    expect(deferredCount(store)).toBe(unread);
    expect(everyRead(store)).toEqual(everyRead(kept));
    expect(deferredCount(store)).toBe(0);
    await restarted.durable.close();

    // Writes over markings not read yet, one by one on both stores, then bulk.
    restarted = await openState(dir);
    store = restarted.markings;
    expect(deferredCount(store)).toBe(unread);
    const markings = kept.list(NO_FILTER, 0, 1000, undefined).items;
    const newIds: [string[], string[]] = [[], []];
    for (const [i, m] of markings.entries()) {
      clock += 10;
      const values = m.detail.values!;
      const both = (write: (s: MarkingsStore) => unknown) => {
        const expected = write(kept);
        expect(write(store)).toEqual(expected);
      };
      const actor = actors[i % 2]!;
      if (i % 5 === 0)
        both((s) => s.update(m.id, { detail: { description: 'now' } }, actor, m._version));
      else if (i % 5 === 1 && values[0]) {
        both((s) => s.updateValue(m.id, values[0]!.id, { name: `${values[0]!.name}~` }, actor));
      } else if (i % 5 === 2 && values[0] && values[0].name !== m.defaultValue) {
        both((s) => s.deleteValue(m.id, values[0]!.id, actor));
      } else if (i % 5 === 3) {
        // A new value's id is the one thing that differs: each store's own, told apart below.
        const made = [kept, store].map((s) => s.createValue(m.id, { name: 'new ✓' }, actor));
        expect({ ...made[1], id: '' }).toEqual({ ...made[0], id: '' });
        made.forEach((v, k) => newIds[k]!.push(v.id));
      }
    }
    // Whole sets of values: each keeps its values but one (the new ones, each store's own, go).
    const bulk = kept.list(NO_FILTER, 0, 6, undefined).items.map((m, i) => {
      const values = m.detail.values!.filter((v) => v.name !== 'new ✓');
      const dropped = values.find((v) => v.name !== m.defaultValue);
      return {
        id: m.id,
        ...(i % 2 === 0 ? { name: `${m.name} (bulk)` } : {}),
        detail: {
          values: values
            .filter((v) => v !== dropped)
            .map((v) => ({ id: v.id, name: v.name, description: 'from bulk' })),
        },
      };
    });
    clock += 10;
    expect(store.bulk(bulk, actors[0]!, 0)).toEqual(kept.bulk(bulk, actors[0]!, 0));
    /** Every read, the ids of the values made above named by their order. */
    const created = (s: MarkingsStore, ids: string[]) =>
      JSON.parse(
        ids.reduce((text, id, n) => text.replaceAll(id, `new-${n}`), JSON.stringify(everyRead(s))),
      ) as unknown;
    expect(withoutValues(store)).toEqual(withoutValues(kept));
    expect(created(store, newIds[1])).toEqual(created(kept, newIds[0]));
    await restarted.durable.close();
  });
});

describe('a marking of many values', () => {
  it('is read at start: its first use would hold the mock for as long as reading it takes', async () => {
    const dir = await dirs.make();
    const s = await openState(dir);
    const values = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `v${i}` }));
    s.markings.create({ name: 'many', detail: { values: values(2001) } }, actors[0]!);
    s.markings.create({ name: 'few', detail: { values: values(2000) } }, actors[0]!);
    await s.durable.compact();
    await s.durable.close();

    const again = await openState(dir);
    const unread = stored(again.markings).filter((m) => deferredOf(m) !== undefined);
    expect(unread.map((m) => m.name)).toEqual(['few']);
    expect(again.markings.valueCount).toBe(4001);
    await again.durable.close();
  });
});

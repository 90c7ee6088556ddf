/**
 * Issue 26: a marking's values packed for a snapshot (src/mock/model/markings/packed.ts) come back
 * exactly, every member of every value, in their order: generated values on their own, and
 * generated markings through the durable state (a snapshot, then a restart).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { packValues, unpackValues } from '../../src/mock/model/markings/packed.js';
import type { MarkingRecord, StoredValue } from '../../src/mock/model/markings/stored.js';
import { DurableState, stateRecords } from '../../src/mock/model/durable-state.js';
import { MockState } from '../../src/mock/model/state.js';
import { prng, type Random } from '../helpers/random.js';
import { tempDirs } from '../helpers/temp.js';

const dirs = tempDirs();
afterAll(() => dirs.removeAll());

const SEED = Number(process.env.KSCTL_PACKED_SEED ?? 26);

/** Pieces of names: several scripts, a combining mark, an emoji, JSON's own characters. */
const PIECES = [
  'a',
  'Z',
  '9',
  'é',
  'e\u0301',
  'ß',
  '青',
  'あ',
  '🟦',
  '"',
  '\\',
  ',"c":"',
  '}',
  '-',
  ' ',
];

function nameOf(random: Random): string {
  let name = '';
  const length = 1 + random.int(6);
  for (let i = 0; i < length; i++) name += random.pick(PIECES);
  // A name neither starts nor ends with a space.
  return `n${name}n`;
}

const marking = (overrides: Partial<MarkingRecord> = {}): MarkingRecord => ({
  id: 'm-1',
  name: 'colours',
  public: false,
  adminOnly: false,
  defaultValue: null,
  description: '',
  createdTs: 1_000,
  createdBy: 'alice',
  updatedTs: 2_000,
  updatedBy: 'bob',
  version: 3,
  defaultVersion: 0,
  ...overrides,
});

/** Values that share some members, differ in others, and now and then hold another list. */
function valuesOf(random: Random, owner: MarkingRecord): StoredValue[] {
  const count = random.int(8);
  const shared = {
    description: random.pick(['', owner.description, 'shared ✓']),
    createdTs: random.pick([owner.createdTs, 5_000]),
    createdBy: random.pick([owner.createdBy, 'carol']),
  };
  return Array.from({ length: count }, (_, i) => {
    const value: Record<string, unknown> = {
      id: `v-${i}`,
      name: nameOf(random),
      description: random.int(3) === 0 ? nameOf(random) : shared.description,
      createdTs: random.int(4) === 0 ? 6_000 + i : shared.createdTs,
      createdBy: shared.createdBy,
      updatedTs: random.pick([owner.updatedTs, 7_000 + random.int(3)]),
      updatedBy: random.pick(['bob', 'dave']),
      version: 1 + random.int(3),
    };
    // Members a later ksctl might add, and members in another order: kept as objects then.
    if (random.int(10) === 0) value.extra = random.pick([null, true, 0, 'x', { nested: [1] }]);
    if (random.int(20) === 0) {
      delete value.version;
      value.version = 1;
    }
    return value as unknown as StoredValue;
  });
}

describe('packed values', () => {
  it(`come back exactly from their JSON, or are not packed when their members differ (seed ${SEED})`, () => {
    const random = prng(SEED);
    let packed = 0;
    for (let round = 0; round < 500; round++) {
      const owner = marking({ description: random.pick(['', 'Farben']) });
      const values = valuesOf(random, owner);
      const record = packValues(owner, values);
      const lists = new Set(values.map((v) => Object.keys(v).join(',')));
      if (record === undefined) {
        expect(lists.size, `round ${round}`).toBeGreaterThan(1);
        continue;
      }
      packed++;
      expect(lists.size, `round ${round}`).toBeLessThanOrEqual(1);
      const read = JSON.parse(JSON.stringify(record)) as typeof record;
      const back = unpackValues(read);
      expect(back, `round ${round}`).toEqual(values);
      expect(JSON.stringify(back), `round ${round}`).toBe(JSON.stringify(values));
    }
    expect(packed).toBeGreaterThan(250);
  });

  it('hold a member all values share once, and not at all when the marking has it', () => {
    const owner = marking();
    const values = ['a', 'b'].map(
      (name, i) =>
        ({
          id: `v-${i}`,
          name,
          description: '',
          createdTs: 1_000,
          createdBy: 'alice',
          updatedTs: 9_000,
          updatedBy: 'alice',
          version: 1,
        }) as StoredValue,
    );
    expect(packValues(owner, values)).toEqual({
      marking: owner,
      n: 2,
      same: { updatedTs: 9_000, updatedBy: 'alice', version: 1 },
      columns: { id: ['v-0', 'v-1'], name: ['a', 'b'] },
    });
  });

  it('that do not hold their values whole are refused, not read as fewer values', () => {
    const value = (id: string, name: string): StoredValue => ({
      id,
      name,
      description: '',
      createdTs: 1,
      createdBy: 'x',
      updatedTs: 1,
      updatedBy: 'x',
      version: 1,
    });
    const record = packValues(marking(), [value('v', 'a'), value('w', 'b')])!;
    expect(() => unpackValues({ ...record, n: 3 })).toThrow(/does not hold 3 entries/);
    const { createdTs: _dropped, ...owner } = marking();
    const missing = { marking: owner as MarkingRecord, n: 1, columns: { id: ['v'], name: ['a'] } };
    expect(() => unpackValues(missing)).toThrow(/"createdTs" of the values is given nowhere/);
    expect(() => unpackValues({ ...record, n: -1 })).toThrow(/not a count/);
  });
});

describe('generated markings through a snapshot and a restart', () => {
  it(`keep every member of every value (seed ${SEED})`, async () => {
    const random = prng(SEED);
    const dir = await dirs.make();
    let durable = await DurableState.open({ dir });
    let state = new MockState('ksdev.packed');
    state.addTenant('dev');
    await durable.attach(state);
    let clock = 1_700_000_000_000;
    const store = state.addTenant('dev').markings as unknown as { now: () => number };
    store.now = () => (clock += 1 + random.int(3) * 1000);
    const markings = state.addTenant('dev').markings;
    const actors = [{ name: 'alice' }, { name: 'bob' }, { name: 'ß-青' }];
    const names = new Set<string>();
    const fresh = () => {
      let name = nameOf(random);
      while (names.has(name)) name = nameOf(random);
      names.add(name);
      return name;
    };
    for (let i = 0; i < 40; i++) {
      const values = Array.from({ length: random.int(12) }, () => ({
        name: fresh(),
        ...(random.int(3) === 0 ? { description: random.pick(['', nameOf(random)]) } : {}),
      }));
      const m = markings.create(
        {
          name: fresh(),
          detail: { description: random.pick(['', 'Farben ✓']), values },
        },
        random.pick(actors),
      );
      for (const value of m.detail.values ?? []) {
        const change = random.int(4);
        if (change === 0) markings.deleteValue(m.id, value.id, random.pick(actors));
        if (change === 1) {
          markings.updateValue(
            m.id,
            value.id,
            { description: nameOf(random) },
            random.pick(actors),
          );
        }
        if (change === 2)
          markings.updateValue(m.id, value.id, { name: fresh() }, random.pick(actors));
      }
    }
    await durable.compact();
    const before = [...stateRecords(state)].filter(([kind]) => kind !== 'idPart');
    expect(before.filter(([kind]) => kind === 'marking.packed')).toHaveLength(40);
    const held = [...state.addTenant('dev').markings.records()];
    await durable.close();

    durable = await DurableState.open({ dir });
    state = new MockState('ksdev.packed');
    await durable.attach(state);
    const after = [...state.addTenant('dev').markings.records()];
    expect(after).toEqual(held);
    expect(JSON.stringify(after)).toBe(JSON.stringify(held));
    expect([...stateRecords(state)].filter(([kind]) => kind !== 'idPart')).toEqual(before);
    await durable.close();
  });
});

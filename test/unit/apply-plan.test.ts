import { describe, expect, it } from 'vitest';
import { computePlan, markingsNeedingValues, planIsEmpty } from '../../src/client/apply/plan.js';
import type { DesiredMarking } from '../../src/common/markings/desired.js';
import { InputError, InternalError } from '../../src/common/errors.js';
import { serviceMarking, withoutValues } from './apply-fixtures.js';

const at = { file: 'm.yaml', line: 1, column: 1 };
const desired = (name: string, rest: Omit<DesiredMarking, 'name' | 'source'> = {}) => ({
  name,
  ...rest,
  source: at,
});

describe('computePlan', () => {
  it('creates markings the service lacks, in name order', () => {
    const plan = computePlan([desired('zeta', { values: [{ name: 'a' }] }), desired('alpha')], [], {
      prune: false,
    });
    expect(plan.create.map((marking) => marking.name)).toEqual(['alpha', 'zeta']);
    expect(plan.update).toEqual([]);
    expect(planIsEmpty(plan)).toBe(false);
  });

  it('counts markings that already match, including fields given with the service value', () => {
    const current = [
      serviceMarking('a', { description: 'A', public: true, values: ['x', ['y', 'Why']] }),
      withoutValues(serviceMarking('b', { defaultValue: 'q', values: ['q'] })),
    ];
    const plan = computePlan(
      [
        desired('a', {
          description: 'A',
          public: true,
          adminOnly: false,
          defaultValue: null,
          values: [{ name: 'y' }, { name: 'x', description: '' }],
        }),
        desired('b', { defaultValue: 'q' }),
      ],
      current,
      { prune: false },
    );
    expect(plan).toEqual({ create: [], update: [], delete: [], unchanged: 2 });
    expect(planIsEmpty(plan)).toBe(true);
  });

  it('records field changes with old and new values', () => {
    const current = [
      serviceMarking('region', {
        description: 'old',
        defaultValue: 'eu',
        values: ['eu', 'us'],
        version: 7,
      }),
    ];
    const plan = computePlan(
      [
        desired('region', {
          description: 'new',
          public: true,
          adminOnly: false,
          defaultValue: 'us',
        }),
      ],
      current.map(withoutValues),
      { prune: false },
    );
    expect(plan.update).toEqual([
      {
        id: current[0]?.id,
        name: 'region',
        version: 7,
        valueCount: 2,
        fieldChanges: [
          { field: 'description', from: 'old', to: 'new' },
          { field: 'public', from: false, to: true },
          { field: 'defaultValue', from: 'eu', to: 'us' },
        ],
        valuesAdded: [],
        valuesRemoved: [],
        valuesChanged: [],
      },
    ]);
  });

  it('adds, removes and re-describes values, and keeps the complete set with existing ids', () => {
    const current = serviceMarking('region', {
      values: [['eu-west', 'Ireland'], 'us-old', ['us-east', 'Virginia'], 'keep'],
    });
    const ids = new Map(current.detail.values?.map((value) => [value.name, value.id]));
    const plan = computePlan(
      [
        desired('region', {
          values: [
            { name: 'eu-west', description: 'Dublin' },
            { name: 'us-east' },
            { name: 'keep' },
            { name: 'ap-south', description: 'Mumbai' },
            { name: 'eu-central' },
          ],
        }),
      ],
      [current],
      { prune: false },
    );
    const [update] = plan.update;
    expect(update?.fieldChanges).toEqual([]);
    expect(update?.valuesAdded).toEqual([
      { name: 'ap-south', description: 'Mumbai' },
      { name: 'eu-central' },
    ]);
    expect(update?.valuesRemoved).toEqual([{ id: ids.get('us-old'), name: 'us-old' }]);
    expect(update?.valuesChanged).toEqual([
      { id: ids.get('eu-west'), name: 'eu-west', from: 'Ireland', to: 'Dublin' },
    ]);
    expect(update?.targetValues).toEqual([
      { name: 'ap-south', description: 'Mumbai' },
      { name: 'eu-central' },
      { id: ids.get('eu-west'), name: 'eu-west', description: 'Dublin' },
      { id: ids.get('keep'), name: 'keep', description: '' },
      { id: ids.get('us-east'), name: 'us-east', description: 'Virginia' },
    ]);
  });

  it('keeps the values of a marking whose entry lists none', () => {
    const current = withoutValues(serviceMarking('big', { values: ['a', 'b', 'c'] }));
    const plan = computePlan([desired('big', { description: 'Big' })], [current], { prune: false });
    expect(plan.update[0]?.valuesRemoved).toEqual([]);
    expect(plan.update[0]?.targetValues).toBeUndefined();
  });

  it('leaves markings outside the files alone unless pruning', () => {
    const current = [
      serviceMarking('legacy', { values: ['a', 'b'], version: 3 }),
      serviceMarking('kept'),
      serviceMarking('aged'),
    ].map(withoutValues);
    const wanted = [desired('kept')];
    expect(computePlan(wanted, current, { prune: false }).delete).toEqual([]);
    const plan = computePlan(wanted, current, { prune: true });
    expect(
      plan.delete.map(({ name, valueCount, version }) => ({ name, valueCount, version })),
    ).toEqual([
      { name: 'aged', valueCount: 0, version: 1 },
      { name: 'legacy', valueCount: 2, version: 3 },
    ]);
    expect(plan.unchanged).toBe(1);
  });

  it('rejects a file that keeps a defaultValue its value list removes', () => {
    const current = serviceMarking('c', { defaultValue: 'old', values: ['old', 'new'] });
    expect(() =>
      computePlan([desired('c', { values: [{ name: 'new' }] })], [current], { prune: false }),
    ).toThrow(InputError);
    expect(() =>
      computePlan([desired('c', { values: [{ name: 'new' }], defaultValue: 'new' })], [current], {
        prune: false,
      }),
    ).not.toThrow();
  });

  it('rejects a new marking whose defaultValue has no values to name', () => {
    let thrown: unknown;
    try {
      computePlan([desired('n', { defaultValue: 'x' })], [], { prune: false });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InputError);
    expect((thrown as InputError).details[0]).toMatchObject({
      path: 'm.yaml:1:1',
      message: expect.stringMatching(/^marking "n" is new, so its defaultValue "x" must be one of/),
    });
  });

  it('needs the values of exactly the markings whose entries list them', () => {
    const wanted = [
      desired('a', { values: [] }),
      desired('b'),
      desired('c', { values: [{ name: 'x' }] }),
    ];
    expect([...markingsNeedingValues(wanted)]).toEqual(['a', 'c']);
    expect(() =>
      computePlan(wanted, [withoutValues(serviceMarking('a', { values: ['x'] }))], {
        prune: false,
      }),
    ).toThrow(InternalError);
  });
});

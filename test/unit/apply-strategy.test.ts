import { describe, expect, it } from 'vitest';
import { computePlan } from '../../src/client/apply/plan.js';
import { planSteps, type Step } from '../../src/client/apply/strategy.js';
import type { DesiredMarking } from '../../src/common/markings/desired.js';
import { manyValues, serviceMarking } from './apply-fixtures.js';

const at = { file: 'm.yaml', line: 1, column: 1 };
const desired = (name: string, rest: Omit<DesiredMarking, 'name' | 'source'> = {}) => ({
  name,
  ...rest,
  source: at,
});
const named = (names: string[]) => names.map((name) => ({ name }));
const bulkSteps = (steps: Step[]) => steps.filter((step) => step.kind === 'bulk');

describe('planSteps', () => {
  it('sends creations in Create or Update Multiple chunks of at most maxItems', () => {
    const wanted = Array.from({ length: 2500 }, (_, i) =>
      desired(`m${String(i).padStart(4, '0')}`),
    );
    const steps = planSteps(computePlan(wanted, [], { prune: false }));
    expect(steps.map((step) => step.kind)).toEqual(['bulk', 'bulk', 'bulk']);
    expect(bulkSteps(steps).map((step) => step.items.length)).toEqual([1000, 1000, 500]);
    const first = bulkSteps(steps)[0];
    expect(first?.targets[0]).toEqual({ name: 'm0000', action: 'create' });
    expect(first?.items[0]).toEqual({ name: 'm0000' });
  });

  it('chunks by body size, and a marking larger than the bound goes alone', () => {
    const wanted = [
      desired('a', { values: named(manyValues(10)) }),
      desired('b', { values: named(manyValues(10)) }),
      desired('c', { values: named(manyValues(400)) }),
      desired('d', { values: named(manyValues(10)) }),
    ];
    const maxBytes = 500;
    const steps = bulkSteps(planSteps(computePlan(wanted, [], { prune: false }), { maxBytes }));
    expect(steps.map((step) => step.targets.map((target) => target.name))).toEqual([
      ['a', 'b'],
      ['c'],
      ['d'],
    ]);
    for (const step of steps) {
      if (step.items.length > 1)
        expect(JSON.stringify(step.items).length).toBeLessThanOrEqual(maxBytes);
    }
  });

  it('creates with every field the file gives', () => {
    const wanted = [
      desired('c', {
        description: 'Classification',
        public: true,
        adminOnly: false,
        defaultValue: 'x',
        values: [{ name: 'x', description: 'X' }],
      }),
    ];
    const [step] = planSteps(computePlan(wanted, [], { prune: false }));
    expect(step?.kind === 'bulk' && step.items).toEqual([
      {
        name: 'c',
        public: true,
        adminOnly: false,
        defaultValue: 'x',
        detail: { description: 'Classification', values: [{ name: 'x', description: 'X' }] },
      },
    ]);
  });

  it('sends the complete value set, existing values by id, when many values change', () => {
    const current = serviceMarking('small', { description: 'old', values: ['a', 'b', 'c'] });
    const ids = new Map(current.detail.values?.map((value) => [value.name, value.id]));
    const plan = computePlan(
      [desired('small', { description: 'new', values: named(['a', 'b', 'd']) })],
      [current],
      { prune: false },
    );
    expect(planSteps(plan)).toEqual([
      {
        kind: 'bulk',
        targets: [{ name: 'small', action: 'update' }],
        items: [
          {
            id: current.id,
            detail: {
              description: 'new',
              values: [
                { id: ids.get('a'), name: 'a', description: '' },
                { id: ids.get('b'), name: 'b', description: '' },
                { name: 'd' },
              ],
            },
          },
        ],
      },
    ]);
  });

  it('sends only the changed fields when no value changes', () => {
    const current = serviceMarking('m', { values: manyValues(5000) });
    const plan = computePlan([desired('m', { adminOnly: true })], [current], { prune: false });
    const [step] = planSteps(plan);
    expect(step?.kind === 'bulk' && step.items).toEqual([{ id: current.id, adminOnly: true }]);
  });

  it('uses single value operations for a few changes to a big marking, fields after additions', () => {
    const values = manyValues(1000);
    const current = serviceMarking('big', {
      defaultValue: 'v00000',
      values: values.map((name) => [name, 'd']),
    });
    const ids = new Map(current.detail.values?.map((value) => [value.name, value.id]));
    const wanted = [
      ...values.filter((name) => name !== 'v00000' && name !== 'v00001'),
      'new-one',
    ].map((name) => (name === 'v00002' ? { name, description: 'changed' } : { name }));
    const plan = computePlan(
      [desired('big', { defaultValue: 'new-one', values: wanted })],
      [current],
      { prune: false },
    );
    expect(planSteps(plan)).toEqual([
      {
        kind: 'operations',
        targets: [{ name: 'big', action: 'update' }],
        markingId: current.id,
        operations: [
          { kind: 'createValue', value: { name: 'new-one' } },
          {
            kind: 'updateValue',
            valueId: ids.get('v00002'),
            name: 'v00002',
            update: { description: 'changed' },
          },
          { kind: 'updateMarking', update: { defaultValue: 'new-one' } },
          { kind: 'deleteValue', valueId: ids.get('v00000'), name: 'v00000' },
          { kind: 'deleteValue', valueId: ids.get('v00001'), name: 'v00001' },
        ],
      },
    ]);
  });

  it('falls back to the complete set past 20 changes or 2% of the values', () => {
    const stepKind = (valueCount: number, removed: number) => {
      const values = manyValues(valueCount);
      const current = serviceMarking('m', { values });
      const plan = computePlan(
        [desired('m', { values: named(values.slice(removed)) })],
        [current],
        {
          prune: false,
        },
      );
      return planSteps(plan)[0]?.kind;
    };
    expect(stepKind(1000, 20)).toBe('operations');
    expect(stepKind(10_000, 21)).toBe('bulk');
    expect(stepKind(500, 10)).toBe('operations');
    expect(stepKind(499, 10)).toBe('bulk');
    expect(stepKind(40, 1)).toBe('bulk');
  });

  it('deletes each pruned marking, guarded by the version the plan showed', () => {
    const legacy = serviceMarking('legacy', { version: 9 });
    const steps = planSteps(computePlan([], [legacy], { prune: true }));
    expect(steps).toEqual([
      {
        kind: 'delete',
        targets: [{ name: 'legacy', action: 'delete' }],
        markingId: legacy.id,
        version: 9,
      },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { computePlan, type Plan } from '../../src/client/apply/plan.js';
import { planToJson, renderPlan, renderRunReport } from '../../src/client/apply/render.js';
import type { RunReport } from '../../src/client/apply/report.js';
import type { DesiredMarking } from '../../src/common/markings/desired.js';
import { manyValues, serviceMarking } from './apply-fixtures.js';

const at = { file: 'm.yaml', line: 3, column: 5 };
const desired = (name: string, rest: Omit<DesiredMarking, 'name' | 'source'> = {}) => ({
  name,
  ...rest,
  source: at,
});
const named = (names: string[]) => names.map((name) => ({ name }));

function samplePlan(): Plan {
  const current = [
    serviceMarking('region', {
      description: 'old',
      values: ['us-old', ['x', 'a'], 'kept'],
    }),
    serviceMarking('legacy', { values: manyValues(12) }),
    serviceMarking('same'),
  ];
  return computePlan(
    [
      desired('classification', { values: named(['public', 'internal', 'restricted']) }),
      desired('region', {
        description: 'new',
        public: true,
        values: [{ name: 'eu-west' }, { name: 'x', description: 'b' }, { name: 'kept' }],
      }),
      desired('same'),
    ],
    current,
    { prune: true },
  );
}

describe('renderPlan', () => {
  it('renders a plan of a million lines without overflowing the stack (issue 17)', () => {
    const create = Array.from({ length: 1_000_000 }, (_, i) => desired(`m${i}`));
    const plan: Plan = { create, update: [], delete: [], unchanged: 0 };
    const lines = renderPlan(plan, { maxListed: Number.MAX_SAFE_INTEGER });
    expect(lines.length).toBeGreaterThan(1_000_000);
    expect(lines.at(-1)).toMatch(/1000000 to create/);
  });

  it('shows creations, updates with their changes, and deletions, then a summary', () => {
    expect(renderPlan(samplePlan())).toEqual([
      '+ create classification (3 values)',
      '~ update region',
      '    ~ description: "old" → "new"',
      '    ~ public: false → true',
      '    + value eu-west',
      '    - value us-old',
      '    ~ value x: description "a" → "b"',
      '- delete legacy (12 values)',
      '',
      'Plan: 1 to create, 1 to update, 1 to delete, 1 unchanged.',
    ]);
  });

  it('lets the caller style each part', () => {
    const lines = renderPlan(samplePlan(), { style: (role, text) => `<${role}>${text}</${role}>` });
    expect(lines[0]).toBe('<create>+ create classification</create><muted> (3 values)</muted>');
    expect(lines[4]).toBe('    <create>+ value eu-west</create>');
    expect(lines[7]).toBe('<delete>- delete legacy</delete><muted> (12 values)</muted>');
  });

  it('truncates long value lists', () => {
    const plan = computePlan(
      [desired('big', { values: named(manyValues(1000)) })],
      [serviceMarking('big')],
      { prune: false },
    );
    const lines = renderPlan(plan);
    expect(lines).toHaveLength(1 + 20 + 1 + 2);
    expect(lines[1]).toBe('    + value v00000');
    expect(lines[21]).toBe('    … and 980 more values to add');
  });

  it('says when there is nothing to do', () => {
    const plan = computePlan(
      [desired('a'), desired('b')],
      [serviceMarking('a'), serviceMarking('b')],
      {
        prune: false,
      },
    );
    expect(renderPlan(plan)).toEqual(['No changes. 2 markings are up to date.']);
    expect(renderPlan({ ...plan, unchanged: 1 })).toEqual(['No changes. 1 marking is up to date.']);
  });

  it('gives a JSON form without the complete value sets', () => {
    const json = planToJson(samplePlan());
    expect(json.summary).toEqual({ create: 1, update: 1, delete: 1, unchanged: 1 });
    expect(json.create[0]).toEqual({
      name: 'classification',
      values: named(['public', 'internal', 'restricted']),
      source: 'm.yaml:3:5',
    });
    expect(json.update[0]).not.toHaveProperty('targetValues');
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });
});

describe('renderRunReport', () => {
  it('lists failures with code, conversation id and hint, then the counts', () => {
    const report: RunReport = {
      applied: [
        { name: 'a', action: 'create' },
        { name: 'b', action: 'update' },
        { name: 'c', action: 'delete' },
      ],
      failed: [
        {
          name: 'region',
          action: 'update',
          message: 'update marking: stale version',
          code: 'E_CONFLICT',
          exitCode: 6,
          hint: 'read it again',
          conversationId: 'cid-7',
        },
      ],
      skipped: [],
      interrupted: false,
    };
    expect(renderRunReport(report)).toEqual([
      '✗ update region: update marking: stale version [E_CONFLICT, cid cid-7]',
      '    hint: read it again',
      'applied: 1 created, 1 updated, 1 deleted; 1 failed',
      'run apply again to retry: it only sends what is still different',
    ]);
  });

  it('says what an interruption left undone', () => {
    const report: RunReport = {
      applied: [{ name: 'a', action: 'create' }],
      failed: [],
      skipped: [
        { name: 'b', action: 'create' },
        { name: 'c', action: 'delete' },
      ],
      interrupted: true,
    };
    expect(renderRunReport(report)).toEqual([
      'not attempted (interrupted): b, c',
      'applied: 1 created, 0 updated, 0 deleted; 2 not attempted',
      'run apply again to retry: it only sends what is still different',
    ]);
  });

  it('keeps an interrupted run and its failures within the width, every name and word kept', () => {
    // Names as long as the service allows, and reasons that run on.
    const names = Array.from({ length: 30 }, (_, i) => `old-marking-${'x'.repeat(i * 2)}-${i}`);
    const report: RunReport = {
      applied: [{ name: 'a', action: 'delete' }],
      failed: [
        {
          name: `region-${'y'.repeat(70)}`,
          action: 'delete',
          message: 'delete marking: the service answered 503 Service Unavailable, three times over',
          code: 'E_UNAVAILABLE',
          exitCode: 7,
          hint: 'the service is busy or down; run apply again later, it only sends what is still different',
          conversationId: 'ABcd.7.4f0c4b5e-2d7a-4e89-9b7c-8f3a2b1c0d9e',
        },
      ],
      skipped: names.map((name) => ({ name, action: 'delete' as const })),
      interrupted: true,
    };
    const flat = (lines: string[]) => lines.join(' ').split(/\s+/).join(' ');
    const whole = renderRunReport(report);
    expect(whole.some((line) => line.length > 200)).toBe(true);
    for (const width of [80, 40]) {
      const shown = renderRunReport(report, { width });
      const over = shown.filter((line) => line.length > width && line.trim().includes(' '));
      expect(over, `at ${width}`).toEqual([]);
      expect(flat(shown), `at ${width}`).toBe(flat(whole));
      // What follows the first line of each is indented under it.
      expect(
        shown.filter((line) => /^(✗|not attempted|applied:|run apply)/.test(line)),
      ).toHaveLength(4);
    }
  });

  it('prints only the counts when everything was applied', () => {
    const report: RunReport = {
      applied: [{ name: 'a', action: 'create' }],
      failed: [],
      skipped: [],
      interrupted: false,
    };
    expect(renderRunReport(report)).toEqual(['applied: 1 created, 0 updated, 0 deleted']);
  });
});

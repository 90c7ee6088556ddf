import { describe, expect, it } from 'vitest';
import { exportMarkings, toJson, toYaml } from '../../src/apply/export.js';
import { parseMarkingSources } from '../../src/apply/files.js';
import { computePlan, planIsEmpty } from '../../src/apply/plan.js';
import { InternalError } from '../../src/errors.js';
import { serviceMarking, withoutValues } from './apply-fixtures.js';

const serviceState = () => [
  serviceMarking('region', {
    description: 'Where data lives',
    defaultValue: 'eu-west',
    values: [['us-east', 'Virginia'], 'eu-west', ['ap: south', 'Mumbai']],
  }),
  serviceMarking('classification', {
    public: true,
    adminOnly: true,
    values: ['public', '1001', 'true', 'null', '~', 'multi'],
  }),
  serviceMarking('empty'),
  serviceMarking('long', { description: `line one\nline two ${'x'.repeat(300)}`, values: ['a'] }),
];

describe('export', () => {
  it('sorts, leaves defaults out and writes a value without description as its name', () => {
    expect(exportMarkings(serviceState())).toEqual({
      markings: [
        {
          name: 'classification',
          public: true,
          adminOnly: true,
          values: ['1001', 'multi', 'null', 'public', 'true', '~'],
        },
        { name: 'empty', values: [] },
        {
          name: 'long',
          description: `line one\nline two ${'x'.repeat(300)}`,
          values: ['a'],
        },
        {
          name: 'region',
          description: 'Where data lives',
          defaultValue: 'eu-west',
          values: [
            { name: 'ap: south', description: 'Mumbai' },
            'eu-west',
            { name: 'us-east', description: 'Virginia' },
          ],
        },
      ],
    });
  });

  it('writes YAML in the documented layout', async () => {
    const yaml = await toYaml(
      exportMarkings([serviceMarking('c', { defaultValue: 'b', values: ['b', ['a', 'A']] })]),
    );
    expect(yaml).toBe(
      [
        'markings:',
        '  - name: c',
        '    defaultValue: b',
        '    values:',
        '      - name: a',
        '        description: A',
        '      - b',
        '',
      ].join('\n'),
    );
  });

  for (const [format, write, label] of [
    ['YAML', toYaml, 'export.yaml'],
    ['JSON', toJson, 'export.json'],
  ] as const) {
    it(`round-trips through ${format}: export, parse, plan = no changes`, async () => {
      const state = serviceState();
      const text = await write(exportMarkings(state));
      const desired = await parseMarkingSources([{ label, text }]);
      const plan = computePlan(desired, state, { prune: true });
      expect(planIsEmpty(plan)).toBe(true);
      expect(plan.unchanged).toBe(state.length);
    });
  }

  it('refuses markings read without their values', () => {
    expect(() => exportMarkings([withoutValues(serviceMarking('a', { values: ['x'] }))])).toThrow(
      InternalError,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Marking } from '../../src/common/markings/wire.js';
import { exportDocument } from '../../src/client/apply/export.js';
import { parseMarkingSources } from '../../src/client/apply/sources.js';
import { computePlan, planIsEmpty } from '../../src/client/apply/plan.js';
import { InternalError, ServiceError } from '../../src/common/errors.js';
import { serviceMarking, withoutValues } from './apply-fixtures.js';

/** The markings as the service lists them: in name order, one by one. */
async function* listed(markings: readonly Marking[], sort = true): AsyncIterable<Marking> {
  const ordered = sort ? [...markings].sort((a, b) => (a.name < b.name ? -1 : 1)) : markings;
  for (const marking of ordered) yield marking;
}

async function exported(
  markings: readonly Marking[],
  format: 'json' | 'yaml',
  sort = true,
): Promise<string> {
  let text = '';
  for await (const chunk of exportDocument(listed(markings, sort), format)) text += chunk;
  return text;
}

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
  it('sorts values, leaves defaults out and writes a value without description as its name', async () => {
    expect(JSON.parse(await exported(serviceState(), 'json'))).toEqual({
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
    const yaml = await exported(
      [serviceMarking('c', { defaultValue: 'b', values: ['b', ['a', 'A']] })],
      'yaml',
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

  it('writes, marking by marking, the text of the whole document written at once', async () => {
    for (const state of [serviceState(), []]) {
      const json = await exported(state, 'json');
      const document = JSON.parse(json) as unknown;
      expect(json).toBe(`${JSON.stringify(document, null, 2)}\n`);
      expect(await exported(state, 'yaml')).toBe(stringify(document, { lineWidth: 0 }));
    }
  });

  it('writes a marking listed again (a page that shifted) once', async () => {
    const [a, b] = [serviceMarking('a'), serviceMarking('b')];
    const text = await exported([a, b, b], 'json', false);
    expect(JSON.parse(text)).toEqual({
      markings: [
        { name: 'a', values: [] },
        { name: 'b', values: [] },
      ],
    });
  });

  it('refuses markings listed out of name order: the export would not be sorted', async () => {
    const error = await exported([serviceMarking('b'), serviceMarking('a')], 'yaml', false).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as Error).message).toMatch(/"a" after "b", out of name order/);
  });

  for (const [format, label] of [
    ['yaml', 'export.yaml'],
    ['json', 'export.json'],
  ] as const) {
    it(`round-trips through ${format}: export, parse, plan = no changes`, async () => {
      const state = serviceState();
      const text = await exported(state, format);
      const desired = await parseMarkingSources([{ label, text }]);
      const plan = computePlan(desired, state, { prune: true });
      expect(planIsEmpty(plan)).toBe(true);
      expect(plan.unchanged).toBe(state.length);
    });
  }

  it('refuses markings read without their values', async () => {
    await expect(
      exported([withoutValues(serviceMarking('a', { values: ['x'] }))], 'json'),
    ).rejects.toThrow(InternalError);
  });
});

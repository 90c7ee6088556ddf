import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  loadDesiredMarkings,
  parseMarkingSources,
  readSources,
  STDIN_LABEL,
} from '../../src/client/apply/sources.js';
import { InputError, UsageError } from '../../src/common/errors.js';

/** The `file:line:column: reason` lines of the InputError that parsing throws. */
async function problemLines(sources: { label: string; text: string }[]): Promise<string[]> {
  try {
    await parseMarkingSources(sources);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as InputError).details.map((detail) => `${detail.path}: ${detail.message}`);
  }
  throw new Error('expected the sources to be rejected');
}

describe('parsing markings files', () => {
  it('reads markings, values and where each marking is defined', async () => {
    const text = [
      'markings:',
      '  - name: classification',
      '    description: Data classification level',
      '    defaultValue: internal',
      '    public: false',
      '    adminOnly: true',
      '    values:',
      '      - public',
      '      - internal',
      '      - name: restricted',
      '        description: Need to know',
      '  - name: region',
      '    defaultValue: null',
      '',
    ].join('\n');
    expect(await parseMarkingSources([{ label: 'm.yaml', text }])).toEqual([
      {
        name: 'classification',
        description: 'Data classification level',
        defaultValue: 'internal',
        public: false,
        adminOnly: true,
        values: [
          { name: 'public' },
          { name: 'internal' },
          { name: 'restricted', description: 'Need to know' },
        ],
        source: { file: 'm.yaml', line: 2, column: 5 },
      },
      { name: 'region', defaultValue: null, source: { file: 'm.yaml', line: 12, column: 5 } },
    ]);
  });

  it('reports every problem of a file with its line and column, in reading order', async () => {
    const text = [
      'markings:', // 1
      '  - name: " padded"', // 2
      '    descripton: typo', // 3
      '    public: yes', // 4
      '    values:', // 5
      '      - a', // 6
      '      - 1001', // 7
      '      - a', // 8
      '  - description: no name', // 9
      '  - name: ok', // 10
      '    defaultValue: missing', // 11
      '    values: [x, y]', // 12
      '',
    ].join('\n');
    expect(await problemLines([{ label: 'bad.yaml', text }])).toEqual([
      'bad.yaml:2:11: marking name " padded" must not start or end with white space',
      'bad.yaml:3:5: unknown key "descripton" in marking " padded" (did you mean "description"?)',
      'bad.yaml:4:13: public must be true or false, found the text "yes"',
      'bad.yaml:7:9: a value of " padded" must be a name or {name, description}, found the number 1001 (quote it, "1001", to use it as text)',
      'bad.yaml:8:9: value "a" is listed twice in " padded" (first at line 6, column 9)',
      'bad.yaml:9:5: a marking has no name',
      'bad.yaml:11:19: defaultValue "missing" is not one of the values listed for "ok"',
    ]);
  });

  it('checks lengths, control characters and types', async () => {
    const text = [
      'markings:',
      `  - name: ${'n'.repeat(257)}`,
      `    description: ${'d'.repeat(4097)}`,
      '  - name: "tab\\there"',
      '    values: {a: 1}',
      '  - name: empty',
      '    values:',
      '      - name: ""',
      '      - {name: v, description: 5, extra: 1}',
      '',
    ].join('\n');
    expect(await problemLines([{ label: 'x.yaml', text }])).toEqual([
      `x.yaml:2:11: marking name "${'n'.repeat(60)}"… (257 characters) must be at most 256 characters`,
      `x.yaml:3:18: description of marking "${'n'.repeat(60)}"… (257 characters) must be at most 4096 characters`,
      'x.yaml:4:11: marking name "tab\\there" must not contain control characters',
      'x.yaml:5:13: values of "tab\\there" must be a list, found a mapping',
      'x.yaml:8:15: value name "" must not be empty',
      'x.yaml:9:32: values[1].description of marking "empty" must be text, found the number 5 (quote it, "5", to use it as text)',
      'x.yaml:9:35: unknown key "extra" in a value of "empty" (allowed: name, description)',
    ]);
  });

  it("a description too long names its field: the marking's or values[N].description", async () => {
    const long = 'd'.repeat(4097);
    const values = `["a", "b", "c", {"name": "d", "description": "${long}"}]`;
    const json = `{"markings": [{"name": "c", "description": "${long}", "values": ${values}}]}`;
    const yaml = `markings:\n  - name: c\n    values: [a, b, c, {name: d, description: ${long}}]\n`;
    const lines = await problemLines([
      { label: 'x.json', text: json },
      { label: 'y.yaml', text: yaml },
    ]);
    expect(lines).toEqual([
      expect.stringMatching(
        /^x\.json:1:\d+: description of marking "c" must be at most 4096 characters$/,
      ),
      expect.stringMatching(
        /^x\.json:1:\d+: values\[3\]\.description of marking "c" must be at most 4096 characters$/,
      ),
      expect.stringMatching(
        /^y\.yaml:3:\d+: values\[3\]\.description of marking "c" must be at most 4096 characters$/,
      ),
    ]);
  });

  it('reports a marking defined in two files at both places', async () => {
    const first = { label: 'a.yaml', text: 'markings:\n  - name: region\n  - name: dup\n' };
    const second = { label: 'b.yaml', text: 'markings:\n  - name: other\n  - name: dup\n' };
    expect(await problemLines([first, second])).toEqual([
      'b.yaml:3:11: marking "dup" is defined more than once (first at a.yaml:3:11)',
    ]);
  });

  it('lists problems of several files in file order and keeps them all in details', async () => {
    const sources = [
      { label: 'one.yaml', text: 'markings:\n  - name: a\n    colour: red\n' },
      { label: 'two.yaml', text: 'markings:\n  - nme: b\n' },
    ];
    try {
      await parseMarkingSources(sources);
      expect.unreachable();
    } catch (error) {
      const input = error as InputError;
      expect(input.message.split('\n')[0]).toBe(
        'invalid markings files (3 problems; nothing was sent)',
      );
      expect(input.details.map((detail) => detail.path)).toEqual([
        'one.yaml:3:5',
        'two.yaml:2:5',
        'two.yaml:2:5',
      ]);
    }
  });

  it('quotes at most the start of a long text it did not expect', async () => {
    const text = `markings:\n  - name: a\n    public: ${'x'.repeat(5000)}\n`;
    expect(await problemLines([{ label: 'g.yaml', text }])).toEqual([
      `g.yaml:3:13: public must be true or false, found the text "${'x'.repeat(60)}"… (5,000 characters)`,
    ]);
  });

  it('reports YAML syntax errors, empty files and a wrong top level', async () => {
    expect(await problemLines([{ label: 's.yaml', text: 'markings:\n  - name: [\n' }])).toEqual([
      expect.stringMatching(/^s\.yaml:3:1: invalid YAML: /),
    ]);
    expect(await problemLines([{ label: 'e.yaml', text: '# nothing\n' }])).toEqual([
      'e.yaml:1:1: the file is empty; expected a `markings` list',
    ]);
    expect(await problemLines([{ label: 'l.yaml', text: '- name: a\n' }])).toEqual([
      'l.yaml:1:1: expected a mapping with a `markings` list, found a list',
    ]);
    expect(await problemLines([{ label: 'm.yaml', text: 'marking:\n  - name: a\n' }])).toEqual([
      'm.yaml:1:1: unknown key "marking" in the top level (did you mean "markings"?)',
      'm.yaml:1:1: missing the `markings` list',
    ]);
    expect(
      await problemLines([{ label: 'd.yaml', text: 'markings: []\n---\nmarkings: []\n' }]),
    ).toEqual([
      'd.yaml:2:1: a file holds one YAML document; put further markings in the same `markings` list',
    ]);
  });

  it('reads JSON, and reports JSON syntax errors with JSON reasons', async () => {
    const json = JSON.stringify(
      { $schema: '../schema/markings.schema.json', markings: [{ name: 'a', values: ['x'] }] },
      null,
      2,
    );
    expect(await parseMarkingSources([{ label: 'm.json', text: json }])).toEqual([
      { name: 'a', values: [{ name: 'x' }], source: { file: 'm.json', line: 4, column: 5 } },
    ]);
    expect(
      await problemLines([
        { label: 'c.json', text: '{\n  "markings": [\n    {"name": "a"},\n  ]\n}\n' },
      ]),
    ).toEqual(['c.json:3:18: invalid JSON: trailing comma is not allowed in JSON']);
    expect(await problemLines([{ label: 'q.json', text: "{\n  'markings': []\n}" }])).toEqual([
      "q.json:2:3: invalid JSON: expected a property name in double quotes, found ' (JSON strings use double quotes)",
    ]);
    expect(await problemLines([{ label: 'v.json', text: '{"markings": [tru]}' }])).toEqual([
      'v.json:1:15: invalid JSON: expected a value, found "t"',
    ]);
    expect(
      await problemLines([{ label: STDIN_LABEL, text: '{"markings": [\n  {"name": "a"}\n' }]),
    ).toEqual(["<stdin>:3:1: invalid JSON: expected ',' or ']' after an element, the text ends"]);
  });

  it('parses the shipped example', async () => {
    const markings = await loadDesiredMarkings(['examples/markings.yaml']);
    expect(markings.map((marking) => marking.name)).toEqual([
      'classification',
      'region',
      'project-code',
      'retention',
      'export-control',
    ]);
  });
});

describe('reading sources', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ksctl-apply-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a directory’s markings files in name order, not recursively', async () => {
    const files = ['b.yaml', 'a.yml', 'C.json', 'notes.txt', '.hidden.yaml', 'sub/d.yaml'];
    await mkdir(join(dir, 'sub'));
    for (const file of files) await writeFile(join(dir, file), 'markings: []\n');
    await symlink(join(dir, 'b.yaml'), join(dir, 'link.yaml'));
    await symlink(join(dir, 'gone.yaml'), join(dir, 'dangling.yaml'));
    const sources = await readSources([dir]);
    expect(sources.map((source) => source.label)).toEqual(
      ['C.json', 'a.yml', 'b.yaml', 'link.yaml'].map((name) => join(dir, name)),
    );
  });

  it('reads files and stdin in the order given, each once', async () => {
    await writeFile(join(dir, 'one.yaml'), '\uFEFFmarkings: [{name: one}]\n');
    const file = join(dir, 'one.yaml');
    const sources = await readSources([file, '-', file], { stdin: 'markings: [{name: two}]' });
    expect(sources).toEqual([
      { label: file, text: 'markings: [{name: one}]\n' },
      { label: STDIN_LABEL, text: 'markings: [{name: two}]' },
    ]);
    const names = (
      await loadDesiredMarkings([file, '-'], { stdin: 'markings: [{name: two}]' })
    ).map((marking) => marking.name);
    expect(names).toEqual(['one', 'two']);
  });

  it('refuses a missing path, an empty directory and `-` without stdin', async () => {
    await expect(readSources([join(dir, 'nope.yaml')])).rejects.toBeInstanceOf(UsageError);
    await expect(readSources([dir])).rejects.toThrow(/holds no markings files/);
    await expect(readSources(['-'])).rejects.toBeInstanceOf(UsageError);
  });
});

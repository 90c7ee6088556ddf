/**
 * The rules of a markings file are written once (src/common/markings/file-rules.ts) and every reader calls
 * them: the JSON fast path, the YAML reader with positions and the reader of large files. Each
 * problem here is written as JSON and as YAML, small and padded past POSITIONS_MAX_CHARS (where
 * the reader of large files takes over), and must get the same words from every one of them, and
 * exit 3 through what `markings apply` calls. A large file names the problem's path in front of
 * the words (`markings[0].values[1]: `); the words after it are the same.
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { POSITIONS_MAX_CHARS, type SourceText } from '../../src/common/markings/file-format.js';
import { parseValidJson } from '../../src/client/apply/parse-json.js';
import { parsePlain } from '../../src/client/apply/parse-plain.js';
import { parseMarkingSources } from '../../src/client/apply/sources.js';
import { InputError } from '../../src/common/errors.js';
import { INPUT_MAX_BYTES } from '../../src/common/files/bounded-read.js';
import { seedFrom } from '../../src/mock/model/seed.js';
import { nodeBudget } from '../../src/common/files/node-budget.js';

const doc = (...markings: unknown[]) => ({ markings });
const cut = (char: string, length: number) => `"${char.repeat(60)}"… (${length} characters)`;
/** A valid name long enough that every message quotes it cut. */
const long = 'm'.repeat(70);
const MARKING_KEYS = 'name, description, public, adminOnly, defaultValue, values';

/** What a problem is, the file that has it, and the words every reader gives for it. */
const cases: [string, unknown, string[]][] = [
  [
    'a name too long',
    doc({ name: 'n'.repeat(257) }),
    [`marking name ${cut('n', 257)} must be at most 256 characters`],
  ],
  [
    'a name with a control character',
    doc({ name: 'tab\there' }),
    ['marking name "tab\\there" must not contain control characters'],
  ],
  [
    'a name with white space around it',
    doc({ name: ' padded' }),
    ['marking name " padded" must not start or end with white space'],
  ],
  ['an empty name', doc({ name: '' }), ['marking name "" must not be empty']],
  [
    'a name that is a number',
    doc({ name: 1001 }),
    ['marking name must be text, found the number 1001 (quote it, "1001", to use it as text)'],
  ],
  ['a name that is a list', doc({ name: ['a'] }), ['marking name must be text, found a list']],
  ['a marking with no name', doc({ description: 'd' }), ['a marking has no name']],
  [
    'a marking that is not a mapping',
    doc('a name alone'),
    ['a marking must be a mapping with at least a name, found the text "a name alone"'],
  ],
  [
    'a mistyped key in a marking',
    doc({ name: 'a', descripton: 'typo' }),
    ['unknown key "descripton" in marking "a" (did you mean "description"?)'],
  ],
  [
    'an unknown key in a marking with a long name',
    doc({ name: long, colour: 'red' }),
    [`unknown key "colour" in marking ${cut('m', 70)} (allowed: ${MARKING_KEYS})`],
  ],
  [
    'a description too long',
    doc({ name: 'a', description: 'd'.repeat(4097) }),
    ['description of marking "a" must be at most 4096 characters'],
  ],
  [
    'a description that is not text',
    doc({ name: 'a', description: 5 }),
    [
      'description of marking "a" must be text, found the number 5 (quote it, "5", to use it as text)',
    ],
  ],
  [
    'public that is not a boolean',
    doc({ name: 'a', public: 'yes' }),
    ['public must be true or false, found the text "yes"'],
  ],
  [
    'adminOnly that is not a boolean',
    doc({ name: 'a', adminOnly: 1 }),
    ['adminOnly must be true or false, found the number 1'],
  ],
  [
    'values that are not a list',
    doc({ name: 'a', values: { a: 1 } }),
    ['values of "a" must be a list, found a mapping'],
  ],
  [
    'too many values (not read one by one)',
    doc({ name: 'a', values: Array.from({ length: 100_001 }, () => 0) }),
    ['"a" lists 100001 values; at most 100000 are allowed'],
  ],
  [
    'a value that is a number',
    doc({ name: 'a', values: ['x', 1001] }),
    [
      'a value of "a" must be a name or {name, description}, found the number 1001 (quote it, "1001", to use it as text)',
    ],
  ],
  [
    'a value that is a list',
    doc({ name: 'a', values: [['x']] }),
    ['a value of "a" must be a name or {name, description}, found a list'],
  ],
  [
    'a value with no name',
    doc({ name: long, values: [{ description: 'd' }] }),
    [`a value of ${cut('m', 70)} has no name`],
  ],
  [
    'a value name that is a boolean',
    doc({ name: 'a', values: [{ name: true }] }),
    ['value name must be text, found the boolean true (quote it, "true", to use it as text)'],
  ],
  [
    'a value name with white space around it',
    doc({ name: 'a', values: [' v'] }),
    ['value name " v" must not start or end with white space'],
  ],
  [
    'a value name too long, in a mapping',
    doc({ name: 'a', values: [{ name: 'v'.repeat(300) }] }),
    [`value name ${cut('v', 300)} must be at most 256 characters`],
  ],
  [
    'an unknown key in a value',
    doc({ name: 'a', values: [{ name: 'v', extra: 1 }] }),
    ['unknown key "extra" in a value of "a" (allowed: name, description)'],
  ],
  [
    'a value description too long',
    doc({ name: 'a', values: ['x', { name: 'v', description: 'd'.repeat(4097) }] }),
    ['values[1].description of marking "a" must be at most 4096 characters'],
  ],
  [
    'a value description that is not text',
    doc({ name: 'a', values: [{ name: 'v', description: [1] }] }),
    ['values[0].description of marking "a" must be text, found a list'],
  ],
  [
    'a value listed twice',
    doc({ name: 'a', values: ['x', { name: 'x' }] }),
    ['value "x" is listed twice in "a" (first …)'],
  ],
  [
    'a long value listed twice in a marking with a long name',
    doc({ name: long, values: ['v'.repeat(70), 'v'.repeat(70)] }),
    [`value ${cut('v', 70)} is listed twice in ${cut('m', 70)} (first …)`],
  ],
  [
    'a default that is not text',
    doc({ name: 'a', defaultValue: 5 }),
    ['defaultValue must be text, found the number 5 (quote it, "5", to use it as text)'],
  ],
  [
    'a default that is no name',
    doc({ name: 'a', defaultValue: '' }),
    ['defaultValue "" must not be empty'],
  ],
  [
    'a default that is not one of the values',
    doc({ name: long, values: ['x'], defaultValue: 'w'.repeat(70) }),
    [`defaultValue ${cut('w', 70)} is not one of the values listed for ${cut('m', 70)}`],
  ],
  [
    'several problems in one marking, and one in the next',
    doc({ name: ' a', public: 'no', values: 'x' }, { name: 'b', adminOnly: null }),
    [
      'marking name " a" must not start or end with white space',
      'public must be true or false, found the text "no"',
      'values of " a" must be a list, found the text "x"',
      'adminOnly must be true or false, found nothing',
    ],
  ],
  ['an empty file', null, ['the file is empty; expected a `markings` list']],
  [
    'a list at the top',
    [{ name: 'a' }],
    ['expected a mapping with a `markings` list, found a list'],
  ],
  [
    'no markings list',
    { marking: [] },
    [
      'unknown key "marking" in the top level (did you mean "markings"?)',
      'missing the `markings` list',
    ],
  ],
  [
    'markings that are not a list',
    { markings: 'a' },
    ['`markings` must be a list, found the text "a"'],
  ],
  [
    'an unknown key at the top',
    { markings: [], extra: 1 },
    ['unknown key "extra" in the top level (allowed: markings, $schema)'],
  ],
];

/** A file's text as JSON, indented when that stays small (100,001 values do not). */
function asJson(document: unknown): string {
  const indented = JSON.stringify(document, null, 2);
  return indented.length <= POSITIONS_MAX_CHARS ? indented : JSON.stringify(document);
}

function asYaml(document: unknown): string {
  const block = stringify(document, { lineWidth: 0 });
  return block.length <= POSITIONS_MAX_CHARS
    ? block
    : stringify(document, { lineWidth: 0, collectionStyle: 'flow' });
}

/** The same file past the size where the reader of large files takes over. */
function padded(text: string): string {
  return `${text}\n${' '.repeat(POSITIONS_MAX_CHARS)}\n`;
}

/** Words without the path a large file names them by, and without where the first one is. */
function words(reason: string): string {
  return reason
    .replace(/^markings\[\d+\](?:\.[a-zA-Z]+(?:\[\d+\])?)?: /, '')
    .replace(/ \(first (?:at line \d+, column \d+|as values\[\d+\])\)$/, ' (first …)');
}

/** The problems of one file, as `markings apply` reads it: each is a detail of one exit 3. */
async function applyWords(label: string, text: string): Promise<string[]> {
  try {
    await parseMarkingSources([{ label, text }]);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).exitCode).toBe(3);
    return (error as InputError).details.map((detail) => words(detail.message));
  }
  throw new Error(`${label}: expected the file to be refused`);
}

async function plainWords(source: SourceText): Promise<string[]> {
  const budget = nodeBudget({ bytes: INPUT_MAX_BYTES, what: 'markings file' });
  const file = await parsePlain(source, {}, budget);
  return file.problems.map((problem) => words(problem.reason));
}

describe('every reader gives a problem the same words, at every size', () => {
  it.each(cases)('%s', async (_what, document, says) => {
    const json = asJson(document);
    const yaml = asYaml(document);
    expect(yaml.length).toBeLessThanOrEqual(POSITIONS_MAX_CHARS);
    const expected = [...says].sort();
    const read: Record<string, string[]> = {
      JSON: await applyWords('f.json', json),
      YAML: await applyWords('f.yaml', yaml),
      'JSON, large': await applyWords('f.json', padded(json)),
      'YAML, large': await applyWords('f.yaml', padded(yaml)),
      'JSON, by the reader of large files': await plainWords({ label: 'f.json', text: json }),
      'YAML, by the reader of large files': await plainWords({ label: 'f.yaml', text: yaml }),
    };
    for (const [reader, reasons] of Object.entries(read)) {
      expect({ reader, says: [...reasons].sort() }).toEqual({ reader, says: expected });
    }
    // The fast path accepts only files with no problem: it leaves each of these to the others.
    expect(parseValidJson({ label: 'f.json', text: json })).toBeUndefined();
  });

  // A seed's markings (`mock serve --seed`, `startMock({ seed })`) keep the same rules.
  it.each(
    cases.filter(
      ([, document, says]) =>
        says.length === 1 &&
        Array.isArray((document as { markings?: unknown } | null)?.markings) &&
        Object.keys(document as object).join() === 'markings',
    ),
  )("a seed's markings: %s", (_what, document, says) => {
    let message = '';
    try {
      seedFrom(document, 'the seed');
    } catch (error) {
      message = (error as InputError).message.replace(/\(first [^)]*\)$/, '(first …)');
    }
    expect(message).toMatch(new RegExp(`^the seed: markings\\[\\d+\\][^:]*: ${escape(says[0]!)}$`));
  });

  it('a value listed twice names the first by line and column, or by index in a large file', async () => {
    const json = asJson(doc({ name: 'a', values: ['x', 'x'] }));
    const [small] = (await parseMarkingSources([{ label: 'f.json', text: json }]).catch(
      (error: InputError) => error.details,
    )) as InputError['details'];
    expect(small?.message).toBe('value "x" is listed twice in "a" (first at line 6, column 9)');
    const [large] = (await parseMarkingSources([{ label: 'f.json', text: padded(json) }]).catch(
      (error: InputError) => error.details,
    )) as InputError['details'];
    expect(large?.message).toBe(
      'markings[0].values[1]: value "x" is listed twice in "a" (first as values[0])',
    );
  });

  it('a key given twice in one mapping: the same words in JSON and YAML, small and large', async () => {
    const texts: [string, string][] = [
      ['f.json', '{"markings": [{"name": "a", "name": "b"}]}'],
      ['f.yaml', 'markings:\n  - name: a\n    name: b\n'],
      ['f.yaml', 'markings:\n  - {name: a, name: b}\n'],
    ];
    for (const [label, text] of texts) {
      for (const sized of [text, padded(text)]) {
        expect({ label, size: sized.length, says: await applyWords(label, sized) }).toEqual({
          label,
          size: sized.length,
          says: ['the key "name" is given twice in one mapping'],
        });
      }
    }
  });

  it('a marking defined twice: the same words whichever reader read each file', async () => {
    for (const [label, text] of [
      ['f.json', asJson(doc({ name: long }, { name: long }))],
      ['f.yaml', asYaml(doc({ name: long }, { name: long }))],
    ] as const) {
      for (const sized of [text, padded(text)]) {
        const says = await applyWords(label, sized);
        expect(says).toEqual([
          expect.stringMatching(
            new RegExp(
              `^marking "m{60}"… \\(70 characters\\) is defined more than once \\(first at f\\.(json|yaml):\\d+:\\d+\\)$`,
            ),
          ),
        ]);
      }
    }
  });
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

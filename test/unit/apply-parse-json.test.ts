import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseMarkingSources } from '../../src/client/apply/sources.js';
import { parseMarkingsText } from '../../src/client/apply/parse.js';
import { parseValidJson } from '../../src/client/apply/parse-json.js';

const both = async (label: string, text: string) => ({
  fast: await parseMarkingsText({ label, text }),
  slow: await parseMarkingsText({ label, text }, { fast: false }),
});

describe('the JSON fast path', () => {
  it('reads a valid file to exactly what the position-keeping path reads', async () => {
    const { parse } = await import('yaml');
    const example = parse(await readFile('examples/markings.yaml', 'utf8'));
    for (const text of [
      JSON.stringify(example, null, 2),
      JSON.stringify(example),
      JSON.stringify({ $schema: 'x', markings: [] }),
      '\r\n{ "markings" : [ {"name":"a\\u00e9\\"b","values":["x y",{"name":"z"}]},\n\t{"defaultValue":null,"name":"b"} ] }',
      '{"markings": [{"name": "a", "description": "back\\\\", "values": [{"name": "v", "description": "say \\"hi\\" \\\\"}, "w"]}, {"name": "n", "public": true, "adminOnly": false}]}',
    ]) {
      expect(parseValidJson({ label: 'f.json', text })).toBeDefined();
      const { fast, slow } = await both('f.json', text);
      expect(fast).toEqual(slow);
    }
  });

  it('takes JSON on stdin by its first character', async () => {
    const text = '  {"markings": [{"name": "a"}]}';
    const { fast, slow } = await both('<stdin>', text);
    expect(fast).toEqual(slow);
    expect(fast.markings[0]?.marking.source).toEqual({ file: '<stdin>', line: 1, column: 17 });
  });

  it.each([
    ['a syntax error', '{"markings": [{"name": "a",}]}'],
    ['a repeated key', '{"markings": [{"name": "a", "name": "b"}]}'],
    ['a repeated key written with an escape', '{"markings": [], "m\\u0061rkings": []}'],
    ['a wrong type', '{"markings": [{"name": "a", "public": "yes"}]}'],
    ['a bad name', '{"markings": [{"name": " a"}]}'],
    ['a repeated value', '{"markings": [{"name": "a", "values": ["x", {"name": "x"}]}]}'],
    ['an unknown key', '{"markings": [{"name": "a", "valeus": []}]}'],
    [
      'a default that is not a value',
      '{"markings": [{"name": "a", "values": [], "defaultValue": "x"}]}',
    ],
    ['a value without a name', '{"markings": [{"name": "a", "values": [{"description": "d"}]}]}'],
    ['not a markings file', '[1, 2]'],
  ])('leaves %s to the path that reports it, with the same message', async (_what, text) => {
    expect(parseValidJson({ label: 'f.json', text })).toBeUndefined();
    const { fast, slow } = await both('f.json', text);
    expect(fast.problems.length).toBeGreaterThan(0);
    expect(fast).toEqual(slow);
  });

  it('reads a marking document that is one marking itself', async () => {
    const text = '{\n  "name": "a",\n  "values": ["x", {"name": "y", "description": "why"}]\n}';
    const fast = await parseMarkingsText({ label: 'one.json', text }, { single: true });
    expect(fast).toEqual(
      await parseMarkingsText({ label: 'one.json', text }, { single: true, fast: false }),
    );
    expect(fast.markings[0]?.namePosition).toEqual({ file: 'one.json', line: 2, column: 11 });
  });

  it('reports a marking defined in a JSON and a YAML file at the name in each', async () => {
    const sources = [
      { label: 'a.json', text: '{\n  "markings": [\n    { "name": "dup" }\n  ]\n}\n' },
      { label: 'b.yaml', text: 'markings:\n  - name: dup\n' },
    ];
    await expect(parseMarkingSources(sources)).rejects.toThrow(
      expect.objectContaining({
        details: [
          {
            path: 'b.yaml:2:11',
            message: 'marking "dup" is defined more than once (first at a.json:3:15)',
          },
        ],
      }),
    );
  });
});

/**
 * Markings files over 512 KiB are read in one pass (parse-plain.ts) instead of with positions
 * (parse-yaml.ts). A valid file must read to exactly the same markings either way, placed at the
 * same entries, and a file with problems must give the same reasons, named by their path.
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { POSITIONS_MAX_CHARS, type SourceText } from '../../src/common/markings/file-format.js';
import { parseMarkingsText } from '../../src/client/apply/parse.js';
import { parseWithPositions } from '../../src/client/apply/parse-yaml.js';
import { nodeBudget } from '../../src/common/files/node-budget.js';
import { prng } from '../helpers/random.js';

const random = prng(1717);

/** Markings of every shape a file may hold, enough of them to pass POSITIONS_MAX_CHARS. */
function markings(count: number) {
  return Array.from({ length: count }, (_, i) => {
    const values = Array.from({ length: 1 + random.int(4) }, (_, k) =>
      random.int(2) === 0
        ? `v${i}-${k}`
        : { name: `v${i}-${k}`, description: `value ${k} of ${i}` },
    );
    return {
      name:
        random.int(10) === 0 ? `${1000 + i}` : `marking ${i}: ${'x'.repeat(1 + random.int(20))}`,
      ...(random.int(2) === 0 ? { description: `described, ${i}` } : {}),
      ...(random.int(3) === 0 ? { public: true } : {}),
      ...(random.int(5) === 0 ? { adminOnly: false } : {}),
      ...(random.int(4) === 0 ? { defaultValue: null } : { defaultValue: `v${i}-0` }),
      values,
    };
  });
}

const big = markings(5_000);

function source(label: string, text: string): SourceText {
  expect(text.length).toBeGreaterThan(POSITIONS_MAX_CHARS);
  return { label, text };
}

describe('a large valid file reads as with positions', () => {
  it.each([
    ['big.yaml', stringify({ markings: big }, { lineWidth: 0 })],
    ['flow.yaml', stringify({ markings: big }, { lineWidth: 0, collectionStyle: 'flow' })],
    ['big.json', JSON.stringify({ markings: big }, null, 2)],
    ['stdin-json', JSON.stringify({ markings: big })],
  ])('%s', async (label, text) => {
    const file = source(label, text);
    const large = await parseMarkingsText(file, { fast: false });
    const careful = parseWithPositions(file, {});
    expect(careful.problems).toEqual([]);
    expect(large.problems).toEqual([]);
    expect(large.markings.map((m) => m.marking)).toEqual(careful.markings.map((m) => m.marking));
  });
});

describe('a large file with problems', () => {
  const broken = big.map((marking, i) => {
    switch (i) {
      case 10:
        return { ...marking, descripton: 'typo' };
      case 20:
        return { ...marking, public: 'yes' };
      case 30:
        return { ...marking, values: ['same', 'same'], defaultValue: null };
      case 40:
        return { ...marking, defaultValue: 'none of them' };
      case 50:
        return { ...marking, values: 'not a list' };
      case 60:
        return { ...marking, name: ' padded' };
      case 70:
        return 'a name alone';
      default:
        return marking;
    }
  });

  it.each([
    ['broken.yaml', stringify({ markings: broken }, { lineWidth: 0 })],
    ['broken.json', JSON.stringify({ markings: broken }, null, 2)],
  ])('%s: the same reasons, named by path and placed at their marking', async (label, text) => {
    const file = source(label, text);
    const large = await parseMarkingsText(file);
    const careful = parseWithPositions(file, {});
    expect(large.withoutPositions).toBe(true);
    expect(large.problems).toHaveLength(careful.problems.length);
    for (const [index, problem] of careful.problems.entries()) {
      const read = large.problems[index]!;
      // The marking's index, then the path inside it, then the reason the positions path gives
      // (its wording of a value listed twice names the first by line, this one by index).
      expect(read.reason).toMatch(/^markings\[\d+\](\.[a-zA-Z]+(\[\d+\])?)?: /);
      const reason = read.reason.replace(/^[^ ]+: /, '');
      if (reason.startsWith('value "same" is listed twice')) {
        expect(problem.reason).toMatch(/^value "same" is listed twice in .* \(first at line/);
        expect(reason).toMatch(/\(first as values\[0\]\)$/);
      } else {
        expect(reason).toBe(problem.reason);
      }
      expect(read.position.line).toBeLessThanOrEqual(problem.position.line);
    }
    expect(large.problems.map((p) => p.reason.split(':')[0])).toEqual([
      'markings[10]',
      'markings[20].public',
      'markings[30].values[1]',
      'markings[40].defaultValue',
      'markings[50].values',
      'markings[60].name',
      'markings[70]',
    ]);
  });

  it('a value budget smaller than the file is a refusal naming the file', async () => {
    const file = source('big.yaml', stringify({ markings: big }, { lineWidth: 0 }));
    const budget = nodeBudget({ bytes: 1024 * 1024, what: 'markings file' });
    budget.nodes = 10_000;
    await expect(parseMarkingsText(file, { budget })).rejects.toThrow(
      /big\.yaml: more than 10,000 values/,
    );
  });
});

/**
 * Large bodies are checked on the parsing thread and handed to the main thread in pieces, parsed
 * piece by piece (issue 17): whatever the shape, the value must be exactly JSON.parse's.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { OFF_THREAD_BYTES, parseJsonBody } from '../../src/mock/kit/json-worker.js';
import { prng, type Random } from '../helpers/random.js';

function randomValue(random: Random, depth: number): unknown {
  const kind = depth > 4 ? random.int(3) : random.int(6);
  const size = () => random.pick([0, 1, 5, 300, 2500, 5000]);
  switch (kind) {
    case 0:
      return random.pick(['', 'a', 'é€😀', '"quoted"', 'line\nbreak', '\u0000', 'x'.repeat(300)]);
    case 1:
      return random.pick([0, -1, 2.5, 1e300, -0, 123456789012345]);
    case 2:
      return random.pick([true, false, null]);
    case 3:
    case 4: {
      const object: Record<string, unknown> = {};
      const members = depth > 0 ? random.int(depth > 1 ? 6 : 40) : size();
      for (let i = 0; i < members; i++) {
        const name = random.pick(['__proto__', 'constructor', 'name', '', 'é', `m${i}`]);
        object[`${name}${i % 7 === 0 ? '' : i}`] = randomValue(random, depth + 1);
      }
      return object;
    }
    default:
      return Array.from({ length: depth > 0 ? random.int(depth > 1 ? 6 : 40) : size() }, () =>
        randomValue(random, depth + 1),
      );
  }
}

describe('a large body in pieces', () => {
  it('parses to exactly what JSON.parse gives (seeded shapes over the off-thread size)', async () => {
    const random = prng(1125);
    let offThread = 0;
    for (let round = 0; round < 40; round++) {
      let text = JSON.stringify({ round, data: randomValue(random, 0) });
      // A member named __proto__ at the top, as a client may send it.
      text = `{"__proto__":{"polluted":true},${text.slice(1)}`;
      if (Buffer.byteLength(text) > OFF_THREAD_BYTES) offThread++;
      const parsed = await parseJsonBody(Buffer.from(text));
      expect(parsed.ok).toBe(true);
      const value = (parsed as { value: unknown }).value;
      // isDeepStrictEqual, not toStrictEqual: a member named `constructor` holding an object
      // makes vitest compare the two objects' constructors, which differ by identity.
      expect(isDeepStrictEqual(value, JSON.parse(text))).toBe(true);
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    }
    expect(offThread).toBeGreaterThan(5);
  });

  it('a body of one large array and one of many members, past the size of a piece', async () => {
    const list = Array.from({ length: 50_000 }, (_, i) => ({ name: `value-${i}` }));
    const members = Object.fromEntries(list.map((v, i) => [`k${i}`, [v.name]]));
    for (const value of [list, { detail: { values: list } }, members]) {
      const text = JSON.stringify(value);
      expect(Buffer.byteLength(text)).toBeGreaterThan(OFF_THREAD_BYTES);
      expect(await parseJsonBody(Buffer.from(text))).toStrictEqual({ ok: true, value });
    }
  });
});

describe('the limits of a small body', () => {
  // The limits are walked only for a body longer than the smallest of them (issue 26): shorter
  // ones cannot hold more values, items or characters than they have bytes.
  const limits = { maxArrayLength: 3, maxStringLength: 4, maxValues: 6 };
  it.each([
    ['[]', true],
    ['[1]', true],
    ['[1,2,3]', true],
    ['[1,2,3,4]', 'array'],
    ['"abcd"', true],
    ['"abcde"', 'string'],
    ['{"abcde":1}', 'string'],
    ['"é€😀"', true],
    ['"é€😀x"', 'string'],
    ['[[1],[2],3]', true],
    ['[[1],[2],[3]]', 'values'],
  ])('%s', async (text, expected) => {
    const parsed = await parseJsonBody(Buffer.from(text), limits);
    expect(parsed.ok ? true : parsed.problem).toBe(expected);
  });
});

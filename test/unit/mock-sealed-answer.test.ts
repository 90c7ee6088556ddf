import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openEnvelope } from '../../src/common/device/crypto.js';
import { sealedAnswer } from '../../src/mock/routes/device/sealed-answer.js';
import { jsonPieces } from '../../src/mock/kit/json-pieces.js';
import { Pacer } from '../../src/mock/kit/pacing.js';
import { prng, type Random } from '../helpers/random.js';

/** Answer-like data: objects and arrays of every size around the piecewise threshold. */
function randomValue(random: Random, depth: number): unknown {
  const kind = depth > 2 ? random.int(4) : random.int(7);
  // Long only at the top, so the whole stays small: the threshold is 16 members.
  // Past 4,096 members a value is written in pieces; runs of small items are cut there too.
  const size = () => random.pick(depth === 0 ? [0, 1, 17, 300, 5000] : [0, 1, 2, 17]);
  switch (kind) {
    case 0:
      return random.pick(['', 'key', 'a"quote', 'back\\slash', 'line\nbreak', 'é€😀', '\u0000']);
    case 1:
      return random.pick([0, -1, 1.5, 1e21, Number.NaN, Number.POSITIVE_INFINITY]);
    case 2:
      return random.pick([true, false, null]);
    case 3:
      return random.pick([undefined, 'x']);
    case 4:
    case 5: {
      const object: Record<string, unknown> = {};
      for (let i = size(); i > 0; i--)
        object[`m${random.int(1000)}"${i}`] = randomValue(random, depth + 1);
      return object;
    }
    default:
      return Array.from({ length: size() }, () => randomValue(random, depth + 1));
  }
}

describe('a device answer sealed in slices', () => {
  it('writes exactly the JSON text JSON.stringify writes (seeded shapes)', () => {
    const random = prng(17);
    for (let round = 0; round < 80; round++) {
      const value = { data: randomValue(random, 0) };
      expect([...jsonPieces(value)].join('')).toBe(JSON.stringify(value));
    }
    // Large items inside a large list, and undefined where JSON.stringify writes null or nothing.
    const large = Array.from({ length: 5000 }, (_, i) => ({ i, v: [i, undefined, 'x'] }));
    for (const value of [[large, 1, undefined, large], { a: large, b: undefined, c: [large] }]) {
      const pieces = [...jsonPieces(value)];
      expect(pieces.length).toBeGreaterThan(4);
      expect(pieces.join('')).toBe(JSON.stringify(value));
    }
  });

  it('opens to the content, a large answer paused in between', async () => {
    const key = randomBytes(32);
    const cid = 'CID|ABcd.1.device|1764072000000|Q';
    const content = {
      data: {
        'protection-keys': Array.from({ length: 5000 }, (_, i) => ({
          id: `ABcd${String(i).padStart(7, '0')}`,
          key: randomBytes(60).toString('base64'),
          cattrs: '{"project":["apollo"]}',
        })),
        'query-results': { q: { ids: Array.from({ length: 20_000 }, (_, i) => `k${i}`) } },
      },
    };
    // A slice of no time at all, never grown after a slow turn: the work pauses at every look at
    // the clock, however busy the machine.
    const pacer = new Pacer(0, 0);
    const answer = await sealedAnswer(key, cid, content, pacer);
    expect(pacer.pauses).toBeGreaterThan(10);
    expect(answer.status).toBe(200);
    expect(answer.headers?.['content-type']).toBe('application/json');
    const body = JSON.parse(answer.text!) as { cid: string; envelope: string };
    expect(body.cid).toBe(cid);
    expect(openEnvelope(key, cid, body.envelope)).toEqual({ ok: true, content });
    expect(openEnvelope(key, `${cid}x`, body.envelope)).toEqual({
      ok: false,
      reason: 'not-authentic',
    });
  });
});

/**
 * What the mock reads of every request and writes with every answer, in its cheap forms (issue
 * 26): a plain path read without the URL parser, headers written as they are when Node takes them
 * so, the journal's time formatted once a second. Each must give exactly what the general way
 * gives, whatever a client sends.
 */
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/mock/journal/entry.js';
import { requestTarget, writableHeaders } from '../../src/mock/request/request.js';
import { prng } from '../helpers/random.js';

/** What the URL parser makes of an origin-form target. */
function parsed(target: string): { pathname: string; query: string } | undefined {
  try {
    const url = new URL(`http://mock${target}`);
    return { pathname: url.pathname, query: url.searchParams.toString() };
  } catch {
    return undefined;
  }
}

describe('a request target', () => {
  const pieces = [
    'v2.4',
    'keys',
    'create',
    '.',
    '..',
    '',
    '.well-known',
    'a~b',
    'x_y-z',
    '%2e',
    'é',
  ];
  const odd = ['?q=1', '#f', ' ', '\\', ':', '@', '%', '|'];

  it('is read as the URL parser reads it, for 5,000 seeded paths (seed 26)', () => {
    const random = prng(26);
    let plain = 0;
    for (let i = 0; i < 5000; i++) {
      let target = '';
      const segments = 1 + random.int(5);
      for (let s = 0; s < segments; s++) target += `/${random.pick(pieces)}`;
      if (random.int(4) === 0) target += random.pick(odd);
      if (random.int(10) === 0) target += '/';
      const read = requestTarget(target);
      const expected = parsed(target);
      expect(read && { pathname: read.pathname, query: read.searchParams.toString() }).toEqual(
        expected,
      );
      if (!/[?#%\s\\:@|é]|\/\.\.?(?:\/|$)/.test(target)) plain++;
    }
    // Both kinds were met: plain paths and paths the parser changes.
    expect(plain).toBeGreaterThan(500);
    expect(plain).toBeLessThan(4500);
  });

  it('keeps dot segments and odd characters to the URL parser', () => {
    expect(requestTarget('/v2.4/../_mock/health')?.pathname).toBe('/_mock/health');
    expect(requestTarget('/a/./b')?.pathname).toBe('/a/b');
    expect(requestTarget('//x')?.pathname).toBe('//x');
    expect(requestTarget('/v2/t/markings?name=a%20b')?.searchParams.get('name')).toBe('a b');
    expect(requestTarget('*')).toBeUndefined();
  });
});

describe('answer headers', () => {
  it('plain ones are written as they are; an odd value is percent-encoded, an odd name left out', () => {
    const plain = { 'x-conversation-id': 'CID|ABcd.1.x|1|AAAAAA==', 'content-length': '12' };
    expect(writableHeaders(plain)).toEqual(plain);
    expect(writableHeaders({ location: '/v2/tenant-€/x', 'bad name': 'x', ok: 'é' })).toEqual({
      location: '/v2/tenant-%E2%82%AC/x',
      ok: 'é',
    });
  });
});

describe("the journal's time", () => {
  it("is toISOString's, for times across seconds, days and years", () => {
    const random = prng(1128);
    const start = Date.UTC(2026, 11, 31, 23, 59, 58);
    for (let ms = start; ms < start + 5000; ms += 1 + random.int(7)) {
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
    for (const ms of [0, 1, 999, 1000, Date.UTC(1999, 0, 1), Date.now()]) {
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
  });
});

/**
 * The client writes a request's query itself (src/client/api/request-url.ts, formEncode): byte
 * for byte what URLSearchParams writes, for any text a filter or a name may hold, since the
 * service (and the mock's journal) sees exactly these bytes.
 */
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api/client.js';
import { prng } from '../helpers/random.js';

const client = new ApiClient({ baseUrl: 'http://127.0.0.1:9/v2/dev', auth: { kind: 'none' } });

/** Random text from every plane: ASCII, two-byte, three-byte and astral characters, lone surrogates. */
function randomText(random: () => number): string {
  let text = '';
  const length = Math.floor(random() * 10);
  for (let i = 0; i < length; i++) {
    const pick = random();
    const code =
      pick < 0.5
        ? 0x20 + Math.floor(random() * 0x5f)
        : pick < 0.7
          ? Math.floor(random() * 0x800)
          : pick < 0.85
            ? 0x800 + Math.floor(random() * 0xf000)
            : pick < 0.95
              ? 0x10000 + Math.floor(random() * 0x10000)
              : 0xd800 + Math.floor(random() * 0x800);
    text += String.fromCodePoint(code);
  }
  return text;
}

describe('a request query', () => {
  it('is what URLSearchParams writes, for 20,000 random names and values (seed 20261128)', () => {
    const random = prng(20261128).next;
    for (let i = 0; i < 20_000; i++) {
      const [name, value, other] = [randomText(random), randomText(random), randomText(random)];
      const url = client.url('/markings', { [name]: value, limit: 5, many: [other, value] });
      const expected = new URL('http://127.0.0.1:9/v2/dev/markings');
      expected.searchParams.set(name, value);
      expected.searchParams.set('limit', '5');
      expected.searchParams.append('many', other);
      expected.searchParams.append('many', value);
      if (name === 'limit' || name === 'many') continue;
      expect(url).toBe(expected.toString());
    }
  });

  it('keeps a query the path already has, and leaves a path without one as it is', () => {
    expect(client.url('/markings?skip=1', { limit: 2, name: 'a b' })).toBe(
      'http://127.0.0.1:9/v2/dev/markings?skip=1&limit=2&name=a+b',
    );
    expect(client.url('/markings', { skip: undefined })).toBe('http://127.0.0.1:9/v2/dev/markings');
    expect(client.url('http://127.0.0.1:9/enrollment/x', { a: "(it's)~!*" })).toBe(
      'http://127.0.0.1:9/enrollment/x?a=%28it%27s%29%7E%21*',
    );
  });
});

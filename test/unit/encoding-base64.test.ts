import { describe, expect, it } from 'vitest';
import {
  Base64Writer,
  decodeBase64Strict,
  decodeBase64UrlStrict,
  decodeUtf8Strict,
} from '../../src/common/encoding/base64.js';
import { prng } from '../helpers/random.js';

describe('decodeBase64Strict', () => {
  it.each([
    ['', ''],
    ['AA==', '00'],
    ['AAA=', '0000'],
    ['AAAA', '000000'],
    ['+/+/', 'fbffbf'],
  ])('decodes %j', (text, hex) => {
    expect(decodeBase64Strict(text)?.toString('hex')).toBe(hex);
  });

  it('round-trips random bytes of every length mod 3', () => {
    for (const length of [1, 2, 3, 31, 32, 33, 384]) {
      const bytes = Buffer.from(Array.from({ length }, (_, i) => (i * 37 + length) % 256));
      expect(decodeBase64Strict(bytes.toString('base64'))).toEqual(bytes);
    }
  });

  // Buffer.from(text, 'base64') decodes each of these to some bytes without complaint.
  it.each([
    ['garbage characters', 'not base64!'],
    ['missing padding', 'AA'],
    ['too much padding', 'AA==='],
    ['padding in the middle', 'AA==AAAA'],
    ['a newline', 'AAAA\nAAAA'],
    ['a space', 'AAAA AAAA'],
    ['the URL-safe alphabet', '-_-_'],
    ['non-zero trailing bits', 'AB=='],
    ['a lone character', 'A'],
  ])('rejects %s', (_label, text) => {
    expect(decodeBase64Strict(text)).toBeUndefined();
  });

  it('accepts exactly the canonical texts of the standard alphabet (seeded mutations)', () => {
    const random = prng(20261125);
    const intruders = ['-', '_', '=', ' ', '\n', '\t', '.', 'é', '\u0000', '€', 'A', '/'];
    for (let round = 0; round < 5_000; round++) {
      const bytes = Buffer.from(Array.from({ length: random.int(24) }, () => random.int(256)));
      const chars = [...bytes.toString('base64')];
      // One to three changes: a character replaced, inserted or removed.
      for (let change = 1 + random.int(3); change > 0; change--) {
        const at = random.int(chars.length + 1);
        const kind = random.int(3);
        if (kind === 0) chars.splice(at, 1, random.pick(intruders));
        else if (kind === 1) chars.splice(at, 0, random.pick(intruders));
        else chars.splice(at, 1);
      }
      const text = chars.join('');
      const decoded = decodeBase64Strict(text);
      const canonical =
        /^[A-Za-z0-9+/]*={0,2}$/.test(text) &&
        text.length % 4 === 0 &&
        Buffer.from(text, 'base64').toString('base64') === text;
      expect(decoded !== undefined, text).toBe(canonical);
      if (decoded) expect(decoded.toString('base64')).toBe(text);
    }
  });
});

describe('decodeBase64UrlStrict', () => {
  it('decodes unpadded URL-safe text', () => {
    expect(decodeBase64UrlStrict('-_-_')?.toString('hex')).toBe('fbffbf');
    expect(decodeBase64UrlStrict('AA')?.toString('hex')).toBe('00');
  });

  it.each([
    ['padding', 'AA=='],
    ['the standard alphabet', '+/+/'],
    ['an impossible length', 'AAAAA'],
    ['non-zero trailing bits', 'AB'],
    ['a dot', 'AA.A'],
  ])('rejects %s', (_label, text) => {
    expect(decodeBase64UrlStrict(text)).toBeUndefined();
  });
});

describe('decodeUtf8Strict', () => {
  it('decodes UTF-8 and rejects invalid sequences instead of substituting', () => {
    expect(decodeUtf8Strict(Buffer.from('héllo', 'utf8'))).toBe('héllo');
    expect(decodeUtf8Strict(Buffer.from([0x7b, 0xff, 0x7d]))).toBeUndefined();
  });
});

describe('Base64Writer', () => {
  it('writes what one encoding of all the bytes writes, however they are cut (seeded)', () => {
    const random = prng(20261126);
    for (let round = 0; round < 500; round++) {
      const bytes = Buffer.from(Array.from({ length: random.int(200) }, () => random.int(256)));
      const writer = new Base64Writer();
      // Chunks of 0 to 7 bytes: every remainder mod 3 meets every other.
      for (let at = 0; at < bytes.length;) {
        const next = Math.min(bytes.length, at + random.int(8));
        writer.write(bytes.subarray(at, next));
        at = next;
      }
      expect(writer.end()).toBe(bytes.toString('base64'));
    }
  });
});

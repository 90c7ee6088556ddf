import { describe, expect, it } from 'vitest';
import {
  decodeBase64Strict,
  decodeBase64UrlStrict,
  decodeUtf8Strict,
} from '../../src/encoding/base64.js';

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

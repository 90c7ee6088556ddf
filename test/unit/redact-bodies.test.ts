/**
 * Bodies as the request journal shows them (src/common/http/redact.ts): secret JSON members and form
 * fields redacted on the text, also when the text is cut short, and a secret found once is
 * replaced wherever else it occurs.
 */
import { describe, expect, it } from 'vitest';
import { redactFormText, redactJsonText } from '../../src/common/http/redact.js';

describe('redacting body texts', () => {
  it('replaces secret members of any type and keeps the rest as written', () => {
    const text =
      '{ "name": "n", "Token" : "abc12345678", "nested": {"password": {"a": [1, "}"]}, "code": 40101},' +
      ' "pin": 1234, "next": "http://h.example/x?a=1&access_token=zzz", "list": ["k", {"secret": null}] }';
    expect(redactJsonText(text)).toBe(
      '{ "name": "n", "Token" : "[redacted]", "nested": {"password": "[redacted]", "code": 40101},' +
        ' "pin": "[redacted]", "next": "http://h.example/x?a=1&access_token=[redacted]", "list": ["k", {"secret": "[redacted]"}] }',
    );
  });

  it('copes with a text cut in the middle of a secret, and with escapes', () => {
    expect(redactJsonText('{"a":"x\\"token\\": 1","stoken":"I.abcdefgh')).toBe(
      '{"a":"x\\"token\\": 1","stoken":"[redacted]"',
    );
    expect(redactJsonText('{"\\u0074oken": "t0123456789"}')).toBe('{"\\u0074oken": "[redacted]"}');
  });

  it('replaces a secret wherever else it appears in the same body', () => {
    const text = JSON.stringify({
      stoken: 'I.stoken-value-1',
      uidauth: ',Iuidauth-value-2',
      enroll: 'ksctl enroll --stoken I.stoken-value-1 --uidauth ,Iuidauth-value-2',
    });
    const out = redactJsonText(text);
    expect(out).not.toContain('stoken-value-1');
    expect(out).not.toContain('uidauth-value-2');
    expect(JSON.parse(out)).toEqual({
      stoken: '[redacted]',
      uidauth: '[redacted]',
      enroll: 'ksctl enroll --stoken [redacted] --uidauth [redacted]',
    });
  });

  it('redacts form fields by name, encoded or not', () => {
    expect(redactFormText('username=alice&password=p%40ss-word-1&access%5Ftoken=abc')).toBe(
      'username=alice&password=[redacted]&access%5Ftoken=[redacted]',
    );
  });
});

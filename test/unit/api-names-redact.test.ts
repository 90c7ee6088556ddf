import { describe, expect, it } from 'vitest';
import { descriptionProblem, nameProblem } from '../../src/common/markings/names.js';
import { redactHeaders, redactJson } from '../../src/common/http/redact.js';

describe('nameProblem', () => {
  it.each(['a', 'classification', 'Need to know', 'ä ö ü', 'x'.repeat(256), 'a=b', '0'])(
    'accepts %j',
    (name) => {
      expect(nameProblem(name)).toBeUndefined();
    },
  );

  it.each([
    ['', 'must not be empty'],
    [' lead', 'must not start or end with white space'],
    ['trail ', 'must not start or end with white space'],
    ['tab\tinside', 'must not contain control characters'],
    ['new\nline', 'must not contain control characters'],
    ['del\u007f', 'must not contain control characters'],
    ['x'.repeat(257), 'must be at most 256 characters'],
    [42, 'must be a string'],
    [undefined, 'must be a string'],
  ])('rejects %j: %s', (name, problem) => {
    expect(nameProblem(name)).toBe(problem);
  });

  it('limits descriptions to 4,096 characters', () => {
    expect(descriptionProblem('d'.repeat(4096))).toBeUndefined();
    expect(descriptionProblem('d'.repeat(4097))).toBe('must be at most 4096 characters');
    expect(descriptionProblem(null)).toBe('must be a string');
  });
});

describe('redaction', () => {
  it('keeps the scheme of Authorization and hides the credentials, whatever the case', () => {
    expect(
      redactHeaders({
        Authorization: 'Bearer ksdev.secret',
        'x-conversation-id': 'c-1',
        'X-Ionic-Reg-Stoken': 'I.secret',
      }),
    ).toEqual({
      Authorization: 'Bearer [redacted]',
      'x-conversation-id': 'c-1',
      'X-Ionic-Reg-Stoken': '[redacted]',
    });
  });

  it('hides secret members at any depth and leaves the rest alone', () => {
    const body = {
      name: 'classification',
      token: 'ksdev.secret',
      tokens: [{ token: 'a', scopes: ['markings:read'] }],
      nested: { Password: 'pw', SEPAESK: 'k', keep: [1, null, 'x'] },
    };
    const redacted = redactJson(body);
    expect(redacted).toEqual({
      name: 'classification',
      token: '[redacted]',
      // A member named like a secret is hidden whole, whatever it holds.
      tokens: '[redacted]',
      nested: { Password: '[redacted]', SEPAESK: '[redacted]', keep: [1, null, 'x'] },
    });
    expect(JSON.stringify(redacted)).not.toMatch(/secret|"pw"/);
    expect(body.token).toBe('ksdev.secret');
  });
});

/**
 * Fault rule validation (docs/design.md 3.3): the regressions where a rule that could never fire, or
 * would answer with a code the service does not have, was accepted.
 */
import { describe, expect, it } from 'vitest';
import { MarkingsErrorCode } from '../../src/api/wire.js';
import { CauseCode } from '../../src/enroll/causes.js';
import { faultRuleProblem, parseFaultText } from '../../src/mock/admin/faults.js';

describe('fault rules', () => {
  it.each([
    ['status=503,path=', 'path must not be empty (leave it out to match every path)'],
    ['status=503,path=v2/dev/markings', 'path "v2/dev/markings" must start with /'],
    ['status=503,method=bogus', 'method "bogus" is not one of GET, HEAD, POST, PUT, PATCH'],
    ['status=503,method=', 'method "" is not one of GET'],
    ['code=12345', 'code 12345 is neither a markings error code nor an enrollment cause code'],
    ['status=503,times=99999999999999999999', 'times must be at most 9007199254740991'],
    ['status=503,times=1.5', 'times must be a positive integer'],
    ['status=503,times=', 'times must be a positive integer'],
    ['status=503,probability=', 'probability must be a number from 0 to 1'],
    ['status=0x1f7', 'status must be an HTTP error status (400-599)'],
    ['status=503,status=500', 'status is given twice'],
    ['status=503,__proto__=x', 'unknown field "__proto__"'],
    ['{"status":503,"times":1e20}', 'times must be at most 9007199254740991'],
    ['{"code":40011}', 'code 40011 is neither'],
  ])('rejects %j, naming the bad part', (text, problem) => {
    const answer = parseFaultText(text);
    expect(typeof answer).toBe('string');
    expect(answer).toContain(problem);
  });

  it.each([
    ['status=503,path=*', { status: 503, path: '*' }],
    [
      'status=503,method=get,path=/v2/dev/markings*',
      { status: 503, method: 'get', path: '/v2/dev/markings*' },
    ],
    ['status=503,times=9007199254740991', { status: 503, times: Number.MAX_SAFE_INTEGER }],
    ['status=429,probability=.5', { status: 429, probability: 0.5 }],
    ['code=40105', { code: CauseCode.tokenIncorrect }],
    [`code=${MarkingsErrorCode.validation}`, { code: MarkingsErrorCode.validation }],
    // The status that goes with a code is free-form (docs/design.md 3.3).
    ['code=40010,status=503', { code: 40010, status: 503 }],
  ])('accepts %j', (text, rule) => {
    expect(parseFaultText(text)).toEqual(rule);
  });

  it('knows every markings error code and every enrollment cause code', () => {
    for (const code of [...Object.values(MarkingsErrorCode), ...Object.values(CauseCode)]) {
      expect(faultRuleProblem({ code }), String(code)).toBeUndefined();
    }
  });
});

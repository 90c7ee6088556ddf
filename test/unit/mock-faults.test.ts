/**
 * Fault rule validation (docs/design.md 3.3): the regressions where a rule that could never fire, or
 * would answer with a code the service does not have, was accepted.
 */
import { describe, expect, it } from 'vitest';
import { MarkingsErrorCode } from '../../src/common/markings/wire.js';
import { DEVICE_CAUSES } from '../../src/common/device/causes.js';
import { CauseCode } from '../../src/common/enrollment/causes.js';
import { FaultSet, faultRuleProblem, parseFaultText } from '../../src/mock/model/admin/faults.js';

describe('fault rules', () => {
  it.each([
    ['status=503,path=', 'path must not be empty (leave it out to match every path)'],
    ['status=503,path=v2/dev/markings', 'path "v2/dev/markings" must start with /'],
    ['status=503,method=bogus', 'method "bogus" is not one of GET, HEAD, POST, PUT, PATCH'],
    ['status=503,method=', 'method "" is not one of GET'],
    [
      'code=12345',
      'code 12345 is neither a markings error code, an enrollment cause code nor a device error code',
    ],
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

describe('fault rules with a device error code', () => {
  it('accepts every device error code, on every path, on a device path or a prefix of one', () => {
    for (const { code } of DEVICE_CAUSES) {
      expect(faultRuleProblem({ code }), String(code)).toBeUndefined();
    }
    expect(parseFaultText('code=40024,path=/v2.4/keys/fetch,times=1')).toEqual({
      code: 40024,
      path: '/v2.4/keys/fetch',
      times: 1,
    });
    expect(parseFaultText('code=4004,path=/v2.3/keys/*,method=post')).toEqual({
      code: 4004,
      path: '/v2.3/keys/*',
      method: 'post',
    });
    expect(parseFaultText('code=4001,path=/v2*')).toEqual({ code: 4001, path: '/v2*' });
  });

  it.each([
    ['code=4001,status=500', 'code 4001 is a device error, which answers with its own status'],
    [
      'code=4001,path=/v2/dev/markings',
      'code 4001 is a device error, which fires only on the device endpoints (/v2.3/keys/create, /v2.3/keys/fetch, /v2.4/keys/create, /v2.4/keys/fetch, /v2.4/keys/modify, /v2.4/resources, /v2.4/messages); path "/v2/dev/markings" matches none of them',
    ],
    ['code=40121,path=/v2.3/register/ABcd', 'fires only on the device endpoints'],
    ['code=40121,path=/v2.4/assertions/create', 'fires only on the device endpoints'],
    ['code=40024,method=GET', 'device requests are POSTs: leave method out or make it POST'],
    [
      'code=4202,path=/v2.4/keys/create',
      'code 4202 is a per-item error of key modify only; path "/v2.4/keys/create" matches none of them',
    ],
    [
      'code=4004,path=/v2.4/resources',
      'code 4004 is a per-item error of key fetch and modify only',
    ],
    ['code=4020,path=/v2.3/keys/fetch', 'code 4020 is a per-item error of key create and modify'],
  ])('refuses %j: it could never fire', (text, problem) => {
    const answer = parseFaultText(text);
    expect(typeof answer).toBe('string');
    expect(answer).toContain(problem);
  });

  it('fire() leaves device rules to fireDevice(), which leaves the others to fire()', () => {
    const faults = new FaultSet();
    faults.replace([{ code: 40121 }, { status: 503, path: '/v2/*' }]);
    expect(faults.fire('POST', '/v2.4/keys/fetch')).toBeUndefined();
    expect(faults.fire('GET', '/v2/dev/markings')).toEqual({ status: 503, path: '/v2/*' });
    expect(faults.fireDevice('POST', '/v2.4/keys/fetch')).toMatchObject({
      code: 40121,
      where: 'sealed',
      status: 401,
    });
    // Not a device endpoint the routes serve: nothing fires.
    expect(faults.fireDevice('POST', '/v2.4/assertions/create')).toBeUndefined();
  });

  it('an item code fires only on the operations that answer it, spending its times there', () => {
    let changes = 0;
    const faults = new FaultSet(Math.random, () => changes++);
    faults.replace([
      { code: 4202, times: 1 },
      { code: 4004, path: '/v2.4/*' },
    ]);
    changes = 0;
    expect(faults.fireDevice('POST', '/v2.4/keys/create')).toBeUndefined();
    expect(faults.fireDevice('POST', '/v2.4/resources')).toBeUndefined();
    expect(faults.fireDevice('POST', '/v2.4/keys/fetch')?.code).toBe(4004);
    expect(faults.list()).toEqual([
      { code: 4202, times: 1 },
      { code: 4004, path: '/v2.4/*' },
    ]);
    expect(faults.fireDevice('POST', '/v2.4/keys/modify')?.code).toBe(4202);
    // Spent, and the durable state told.
    expect(changes).toBe(1);
    expect(faults.list()).toEqual([{ code: 4004, path: '/v2.4/*' }]);
    expect(faults.fireDevice('POST', '/v2.4/keys/modify')?.code).toBe(4004);
  });
});

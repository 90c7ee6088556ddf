import { describe, expect, it } from 'vitest';
import { nameAndDescription } from '../../src/client/markings/changes.js';
import { parseFaultText, parseLatency } from '../../src/mock/model/admin/faults.js';

describe('nameAndDescription (NAME[=DESCRIPTION])', () => {
  it.each([
    ['internal', { name: 'internal' }],
    ['internal=Staff only', { name: 'internal', description: 'Staff only' }],
    ['a=b=c', { name: 'a', description: 'b=c' }],
    ['a\\=b=c', { name: 'a=b', description: 'c' }],
    ['a\\=b', { name: 'a=b' }],
    ['empty=', { name: 'empty', description: '' }],
    ['back\\\\slash', { name: 'back\\slash' }],
    ['multi=line\ntext', { name: 'multi', description: 'line\ntext' }],
  ])('%j', (text, expected) => {
    expect(nameAndDescription(text)).toEqual(expected);
  });
});

describe('parseLatency', () => {
  it.each([
    ['50', { minMs: 50, maxMs: 50 }],
    [' 20-200 ', { minMs: 20, maxMs: 200 }],
    ['0', { minMs: 0, maxMs: 0 }],
  ])('%j', (text, expected) => {
    expect(parseLatency(text)).toEqual(expected);
  });

  it.each(['', 'fast', '200-20', '-5', '1.5', '10-'])('rejects %j', (text) => {
    expect(parseLatency(text)).toBeUndefined();
  });
});

describe('parseFaultText', () => {
  it('reads key=value lists with numbers where numbers belong', () => {
    expect(parseFaultText('status=503,path=/v2/dev/markings*,times=2,method=GET')).toEqual({
      status: 503,
      path: '/v2/dev/markings*',
      times: 2,
      method: 'GET',
    });
    expect(parseFaultText('status=429, probability=0.25')).toEqual({
      status: 429,
      probability: 0.25,
    });
  });

  it('reads JSON objects', () => {
    expect(parseFaultText('{"code":50002,"path":"/v2.3/register/*"}')).toEqual({
      code: 50002,
      path: '/v2.3/register/*',
    });
  });

  it.each([
    ['status', '"status" is not key=value'],
    ['{oops', 'not valid JSON'],
    ['path=/x', 'a rule needs a status or a code'],
    ['status=200', 'status must be an HTTP error status (400-599)'],
    ['status=abc', 'status must be an HTTP error status (400-599)'],
    ['status=500,times=0', 'times must be a positive integer'],
    ['status=500,probability=2', 'probability must be a number from 0 to 1'],
    ['status=500,colour=red', 'unknown field "colour"'],
    ['code=1.5', 'code must be an integer'],
    ['{"status":500,"method":5}', 'method must be a string'],
  ])('rejects %j: %s', (text, problem) => {
    expect(parseFaultText(text)).toBe(problem);
  });
});

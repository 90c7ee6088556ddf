import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter } from '../../src/client/api/retry-policy.js';
import { errorFromAnswer, parseErrorBody } from '../../src/client/api/errors.js';
import {
  AuthError,
  ConflictError,
  InputError,
  NotFoundError,
  ServiceError,
} from '../../src/common/errors.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it.each([
    ['2', 2000],
    [' 0 ', 0],
    ['1.5', 1500],
    [['3', '9'], 3000],
    ['Wed, 01 Jan 2025 00:00:05 GMT', 5000],
    ['Tue, 31 Dec 2024 23:59:00 GMT', 0],
  ] as const)('reads %j as %d ms', (header, ms) => {
    expect(parseRetryAfter(header as string | string[], now)).toBe(ms);
  });

  it.each([undefined, '', '  ', 'soon'])('ignores %j', (header) => {
    expect(parseRetryAfter(header, now)).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  it('waits between 0 and base * 2^attempt', () => {
    expect(backoffDelay(0, 250, () => 0)).toBe(0);
    expect(backoffDelay(0, 250, () => 0.999_999)).toBe(250);
    expect(backoffDelay(2, 250, () => 0.999_999)).toBe(1000);
    expect(backoffDelay(3, 100, () => 0.5)).toBe(400);
  });

  it('never waits longer than 10 seconds, however many attempts', () => {
    expect(backoffDelay(30, 250, () => 0.999_999)).toBe(10_000);
    for (let attempt = 0; attempt < 40; attempt++) {
      const delay = backoffDelay(attempt, 250);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(10_000);
    }
  });
});

describe('parseErrorBody', () => {
  it("reads ksctl's shape with details", () => {
    expect(
      parseErrorBody({
        error: {
          cid: 'c-1',
          code: 40010,
          message: 'validation failed',
          details: [{ path: 'detail.values[3].name', message: 'must not be empty' }, 'junk'],
        },
      }),
    ).toEqual({
      cid: 'c-1',
      code: 40010,
      message: 'validation failed',
      details: [{ path: 'detail.values[3].name', message: 'must not be empty' }],
    });
  });

  it('reads the public Ionic management-API shape', () => {
    expect(
      parseErrorBody({
        status: 404,
        code: 40400,
        error: 'Not Found',
        detail: { message: 'marking not found' },
        source: { cid: 'c-2' },
      }),
    ).toEqual({ cid: 'c-2', code: 40400, message: 'marking not found', details: [] });
  });

  it('falls back to the error text when the Ionic shape has no detail', () => {
    expect(parseErrorBody({ status: 400, error: 'Bad Request' }).message).toBe('Bad Request');
  });

  it.each([undefined, null, 'Bad Gateway', 42, []])('reads nothing from %j', (body) => {
    const parsed = parseErrorBody(body);
    expect(parsed.message).toBeUndefined();
    expect(parsed.details).toEqual([]);
  });
});

describe('errorFromAnswer', () => {
  it.each([
    [400, InputError, 3],
    [401, AuthError, 4],
    [403, AuthError, 4],
    [404, NotFoundError, 5],
    [408, ServiceError, 7],
    [409, ConflictError, 6],
    [412, ConflictError, 6],
    [413, InputError, 3],
    [415, InputError, 3],
    [417, ServiceError, 7],
    [422, InputError, 3],
    [424, ServiceError, 7],
    [429, ServiceError, 7],
    [451, ServiceError, 7],
    [500, ServiceError, 7],
    [502, ServiceError, 7],
    [503, ServiceError, 7],
  ] as const)('%d is %s with exit %d', (status, type, exitCode) => {
    const error = errorFromAnswer(status, undefined, 'request-cid', 'list markings');
    expect(error).toBeInstanceOf(type);
    expect(error.exitCode).toBe(exitCode);
    expect(error.status).toBe(status);
    expect(error.message).toBe(`list markings: the service answered ${status}`);
  });

  it("prefers the service's conversation id and message, and keeps its code and details", () => {
    const error = errorFromAnswer(
      403,
      {
        error: {
          cid: 'service-cid',
          code: 40300,
          message: 'missing scope markings:create',
          details: [{ path: 'scope', message: 'this operation needs markings:create' }],
        },
      },
      'request-cid',
      'create marking x',
    );
    expect(error.message).toBe('create marking x: missing scope markings:create (40300)');
    expect(error.conversationId).toBe('service-cid');
    expect(error.serviceCode).toBe(40300);
    expect(error.details).toEqual([
      { path: 'scope', message: 'this operation needs markings:create' },
    ]);
    expect(error.hint).toMatch(/scope/);
  });

  it("uses the request's conversation id when the answer has none", () => {
    expect(errorFromAnswer(502, '<html>', 'request-cid', 'x').conversationId).toBe('request-cid');
  });
});

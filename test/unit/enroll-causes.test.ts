import { describe, expect, it } from 'vitest';
import {
  CauseCode,
  causeByCode,
  causeErrorBody,
  ENROLLMENT_CAUSES,
  enrollmentErrorFromAnswer,
} from '../../src/common/enrollment/causes.js';
import {
  AuthError,
  ConflictError,
  InputError,
  NotFoundError,
  ServiceError,
} from '../../src/common/errors.js';
import { EXIT_BY_STATUS } from '../helpers/exit-codes.js';

const CID = 'Basic 2f1c7a52-93c4-4d4e-9d8e-0a1b2c3d4e5f';

describe('the cause table', () => {
  it('has one entry per code of docs/design.md 2.3, each named in CauseCode', () => {
    const codes = ENROLLMENT_CAUSES.map((entry) => entry.code);
    expect(codes).toHaveLength(35);
    expect(new Set(codes).size).toBe(35);
    expect([...codes].sort()).toEqual(Object.values(CauseCode).sort());
  });

  it('sends the reason phrases of the first column, odd ones included', () => {
    const phrases = Object.fromEntries(ENROLLMENT_CAUSES.map((e) => [e.code, e.reasonPhrase]));
    expect(phrases[40001]).toBe('Bad Request');
    expect(phrases[40105]).toBe('Unauthorized');
    expect(phrases[40401]).toBe('Not Found');
    expect(phrases[40901]).toBe('Not Found');
    expect(phrases[40902]).toBe('Conflict');
    expect(phrases[41707]).toBe('Expectation Failed');
    expect(phrases[42401]).toBe('Misdirected Request');
    expect(phrases[45102]).toBe('Unavailable For Legal Reasons');
    expect(phrases[50005]).toBe('Internal Server Error');
    expect(phrases[50302]).toBe('Service Unavailable');
  });

  it('maps each status to the exit code of docs/design.md 5', () => {
    for (const entry of ENROLLMENT_CAUSES) {
      expect(entry.status).toBe(Math.floor(entry.code / 100));
      const error = new entry.errorClass('x');
      expect(error.exitCode, String(entry.code)).toBe(EXIT_BY_STATUS[entry.status]);
    }
  });

  it('words the causes as the table does and gives users a line and a hint', () => {
    expect(causeByCode(40001)?.message).toBe('Request body is invalid JSON');
    expect(causeByCode(40009)?.message).toBe('X-Conversation-ID missing or malformed');
    expect(causeByCode(40901)?.message).toBe('User not found');
    expect(causeByCode(42401)?.message).toBe(
      'Key server public key could not be resolved, or its signature not verified',
    );
    for (const entry of ENROLLMENT_CAUSES) {
      expect(entry.explanation).toMatch(/^[a-z].*[^.]$/);
      expect(entry.explanation).not.toContain('\n');
      expect(entry.hint.length).toBeGreaterThan(10);
    }
    expect(causeByCode(12345)).toBeUndefined();
  });

  it('forms the error body of service interface 7.1', () => {
    expect(causeErrorBody(CauseCode.tokenIncorrect, CID)).toEqual({
      error: { cid: CID, code: 40105, message: 'Token is incorrect' },
    });
  });
});

describe('enrollmentErrorFromAnswer', () => {
  it('turns a replayed token pair into a conflict with a hint to get a fresh pair', () => {
    const error = enrollmentErrorFromAnswer(409, causeErrorBody(CauseCode.replay, CID), CID);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.exitCode).toBe(6);
    expect(error.message).toBe(
      'this STOKEN and UIDAUTH pair has already enrolled a device; each pair enrolls once (40902)',
    );
    expect(error.hint).toContain('ksctl mock tokens --user NAME');
    expect(error.conversationId).toBe(CID);
    expect(error.status).toBe(409);
    expect(error.serviceCode).toBe(40902);
  });

  it.each([
    [400, 40008, InputError],
    [401, 40105, AuthError],
    [404, 40401, NotFoundError],
    [409, 40901, ConflictError],
    [417, 41707, ServiceError],
    [424, 42401, ServiceError],
    [451, 45102, ServiceError],
    [503, 50302, ServiceError],
  ])('HTTP %i with cause %i is a %o', (status, code, errorClass) => {
    const error = enrollmentErrorFromAnswer(status, { error: { cid: CID, code, message: 'x' } });
    expect(error).toBeInstanceOf(errorClass);
    expect(error.message.endsWith(`(${code})`)).toBe(true);
    expect(error.conversationId).toBe(CID);
  });

  it('falls back on the status and quotes the service when the code is unknown', () => {
    const error = enrollmentErrorFromAnswer(
      400,
      { error: { cid: 'c', code: 40999, message: 'Something\n  new' } },
      CID,
    );
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toBe(
      'the enrollment service refused the registration with HTTP 400 Bad Request: Something new (40999)',
    );
    expect(error.conversationId).toBe(CID);
    expect(error.serviceCode).toBe(40999);
  });

  it.each([
    [401, '<html>no</html>', AuthError],
    [403, null, AuthError],
    [412, { error: 'text' }, ConflictError],
    [502, undefined, ServiceError],
    [429, { error: { code: 'x' } }, ServiceError],
  ])('falls back on HTTP %i for a body it cannot read', (status, body, errorClass) => {
    const error = enrollmentErrorFromAnswer(status, body);
    expect(error).toBeInstanceOf(errorClass);
    expect(error.message).toContain(`HTTP ${status}`);
    expect(error.serviceCode).toBeUndefined();
  });

  it('keeps a quoted service message to one short line', () => {
    const error = enrollmentErrorFromAnswer(500, { error: { message: 'x'.repeat(5000) } });
    expect(error.message.length).toBeLessThan(300);
  });
});

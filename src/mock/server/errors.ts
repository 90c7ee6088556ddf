/**
 * The mock server's own error answers: an injected fault, a request that came while the mock
 * stops, and a change that could not be written to the state directory.
 */
import { MarkingsErrorCode } from '../../common/markings/wire.js';
import type { FaultRule } from '../../common/mock/wire.js';
import { CauseCode } from '../../common/enrollment/causes.js';
import { causeError, faultCause } from '../model/enrollment/errors.js';
import { MockHttpError } from '../kit/http.js';

const retryAfter = (status: number): Record<string, string> =>
  status === 429 || status === 503 ? { 'retry-after': '1' } : {};

/**
 * A rule whose `code` is an enrollment cause (docs/design.md 2.3) answers, on whatever path it
 * matches, exactly as the service does for that cause: its status, reason phrase and message
 * (a `status` in the rule is then ignored). Other rules answer with their status.
 */
export function faultError(rule: FaultRule): MockHttpError {
  const cause = faultCause(rule.code);
  if (cause !== undefined) return causeError(cause.code, retryAfter(cause.status));
  const status = rule.status ?? 500;
  return new MockHttpError(
    status,
    rule.code ?? status * 100,
    `injected fault: ${rule.method ?? 'any method'} ${rule.path ?? 'any path'} answers ${status}`,
    undefined,
    retryAfter(status),
  );
}

/** A request that came once the mock began to stop: to be sent again when it is back. */
export function stopping(): MockHttpError {
  return new MockHttpError(
    503,
    MarkingsErrorCode.unavailable,
    'the mock is stopping; send the request again once it is back',
    undefined,
    retryAfter(503),
  );
}

/** The change may or may not persist; enrollment says so with its own cause (docs/design.md 2.3). */
export function stateNotWritten(path: string): MockHttpError {
  if (/^\/v2\.[34]\/register\//.test(path)) return causeError(CauseCode.deviceNotStored);
  return new MockHttpError(
    500,
    MarkingsErrorCode.internal,
    'the mock could not write its state to disk; the change may not survive a restart',
  );
}

import {
  causeByCode,
  type EnrollmentCause,
  type EnrollmentCauseCode,
} from '../../../common/enrollment/causes.js';
import { MockHttpError } from '../../kit/http.js';

/** `{enrollment_url}` is `{url}` + this. */
export const ENROLLMENT_PATH = '/enrollment';

/**
 * The error answer for an enrollment cause: its status, its exact reason phrase (the table has
 * `409 Not Found` and `424 Misdirected Request`) and its message, from the cause table.
 * The server adds `cid`.
 */
export function causeError(
  code: EnrollmentCauseCode,
  headers: Record<string, string> = {},
): MockHttpError {
  const cause = causeByCode(code);
  if (!cause) throw new Error(`no enrollment cause ${code}`);
  return new MockHttpError(
    cause.status,
    cause.code,
    cause.message,
    undefined,
    headers,
    cause.reasonPhrase,
  );
}

/** The cause a fault rule's `code` names, if it names one. */
export function faultCause(code: number | undefined): EnrollmentCause | undefined {
  return code === undefined ? undefined : causeByCode(code);
}

/**
 * Every failure of a device request, in one table: the mock answers with `status` (0: inside the
 * answer envelope, not as an HTTP error) and `message`; ksctl turns the code into the typed
 * error of `errorClass` (its exit code) with `hint`.
 *
 * | code | where | cause |
 * |---|---|---|
 * | 40020 | HTTP 400 | body is not JSON `{"cid", "envelope"}` with two strings |
 * | 40021 | HTTP 400 | cid is not `CID|<deviceId>|<epoch ms>|<Base64 of 4 bytes>` |
 * | 40022 | HTTP 400 | envelope is not Base64 |
 * | 40023 | HTTP 400 | envelope opens but is not `{"meta": {"hfphash"}, "data": {…}}` of the operation |
 * | 40024 | HTTP 400 | the request asks for more work or a larger answer than one request may (the message says which bound) |
 * | 40120 | HTTP 401 | the cid names a device the service never enrolled |
 * | 40121 | HTTP 401 | the cid's time is more than 5 minutes from the service's clock |
 * | 40122 | HTTP 401 | the envelope does not open with the device's SEP.CD:IDC key and the cid |
 * | 40920 | HTTP 409 | the cid was used before |
 * | 4001 | envelope | the fingerprint hash is unknown: send the full `hfp` |
 * | 4002 | envelope, per ref or id | an attribute named like a marking carries a value the marking lacks |
 * | 4003 | envelope, per id | the key belongs to another tenant |
 * | 4004 | envelope, per id | no key has this id |
 * | 4005 | envelope, per ref or id | `csig`/`msig` does not verify with SEP.CD:KS |
 * | 4006 | envelope, per ref or id | the item is malformed (ref, qty, attribute JSON) |
 * | 4007 | envelope, per id | `prevmsig` is not the key's current signature (changed meanwhile) |
 * | 4008 | envelope, per ref or id | an `ionic-protected-*` value does not open with SEP.CD:KS |
 */
import {
  AuthError,
  ConflictError,
  InputError,
  type KsctlError,
  NotFoundError,
  ServiceError,
} from '../errors.js';
import { type ErrorClass, errorClassForStatus } from '../enroll/causes.js';

export const DeviceErrorCode = {
  requestInvalid: 40020,
  cidMalformed: 40021,
  envelopeUndecodable: 40022,
  envelopeContentInvalid: 40023,
  requestTooLarge: 40024,
  deviceUnknown: 40120,
  clockSkew: 40121,
  envelopeNotAuthentic: 40122,
  cidReused: 40920,
  fingerprintUnknown: 4001,
  markingValueRefused: 4002,
  keyOfOtherTenant: 4003,
  keyNotFound: 4004,
  signatureInvalid: 4005,
  itemInvalid: 4006,
  signatureStale: 4007,
  protectedUnreadable: 4008,
} as const;

export type DeviceErrorCodeValue = (typeof DeviceErrorCode)[keyof typeof DeviceErrorCode];

export interface DeviceCause {
  code: DeviceErrorCodeValue;
  /** HTTP status, or 0 for an error inside the answer envelope. */
  status: number;
  /** The mock's message (item errors add their particulars). */
  message: string;
  hint: string;
  errorClass: ErrorClass;
}

const WRONG_KEYS =
  'the profile does not match what the service holds for this device: enroll again (ksctl enroll) or pick another profile';
const LIKELY_BUG =
  'ksctl or a proxy altered the request; rerun with --debug and report it with the conversation id';

export const DEVICE_CAUSES: readonly DeviceCause[] = [
  {
    code: DeviceErrorCode.requestInvalid,
    status: 400,
    message: 'the body must be a JSON object with string members cid and envelope',
    hint: LIKELY_BUG,
    errorClass: InputError,
  },
  {
    code: DeviceErrorCode.cidMalformed,
    status: 400,
    message: 'the cid must read CID|<deviceId>|<epoch ms>|<Base64 of 4 random bytes>',
    hint: LIKELY_BUG,
    errorClass: InputError,
  },
  {
    code: DeviceErrorCode.envelopeUndecodable,
    status: 400,
    message: 'the envelope is not Base64',
    hint: LIKELY_BUG,
    errorClass: InputError,
  },
  {
    code: DeviceErrorCode.envelopeContentInvalid,
    status: 400,
    message: 'the envelope must hold {"meta": {"hfphash": …}, "data": {…}} of this operation',
    hint: LIKELY_BUG,
    errorClass: InputError,
  },
  {
    code: DeviceErrorCode.requestTooLarge,
    status: 400,
    message: 'the request asks for more than one request may',
    hint: 'split the request: fewer keys per create, fewer or narrower queries per fetch',
    errorClass: InputError,
  },
  {
    code: DeviceErrorCode.deviceUnknown,
    status: 401,
    message: 'the service knows no device with this id',
    hint: `${WRONG_KEYS} (a mock without --state forgets its devices when it stops)`,
    errorClass: AuthError,
  },
  {
    code: DeviceErrorCode.clockSkew,
    status: 401,
    message: "the cid's time is more than 5 minutes away from the service's clock",
    hint: "set this machine's clock right (the service accepts 5 minutes either way)",
    errorClass: AuthError,
  },
  {
    code: DeviceErrorCode.envelopeNotAuthentic,
    status: 401,
    message: "the envelope does not open with the device's SEP.CD:IDC key and the cid",
    hint: WRONG_KEYS,
    errorClass: AuthError,
  },
  {
    code: DeviceErrorCode.cidReused,
    status: 409,
    message: 'this cid was used before; every request needs a new one',
    hint: LIKELY_BUG,
    errorClass: ConflictError,
  },
  {
    code: DeviceErrorCode.fingerprintUnknown,
    status: 0,
    message: 'unknown hfphash: send the full hfp',
    hint: 'the service asked for the device fingerprint twice; retry, and report it if it persists',
    errorClass: ServiceError,
  },
  {
    code: DeviceErrorCode.markingValueRefused,
    status: 0,
    message: 'a marking attribute carries a value the marking does not have',
    hint: 'use one of the values the marking has (ksctl markings values list NAME), or add the value first',
    errorClass: InputError,
  },
  {
    code: DeviceErrorCode.keyOfOtherTenant,
    status: 0,
    message: "the key belongs to another tenant than the device's",
    hint: 'fetch it with a profile enrolled in the tenant that created it',
    errorClass: NotFoundError,
  },
  {
    code: DeviceErrorCode.keyNotFound,
    status: 0,
    message: 'no key has this id',
    hint: 'check the key id (ids start with the keyspace of the device that created them)',
    errorClass: NotFoundError,
  },
  {
    code: DeviceErrorCode.signatureInvalid,
    status: 0,
    message: "the attribute signature does not verify with the device's SEP.CD:KS key",
    hint: WRONG_KEYS,
    errorClass: AuthError,
  },
  {
    code: DeviceErrorCode.itemInvalid,
    status: 0,
    message: 'the item is malformed',
    hint: LIKELY_BUG,
    errorClass: InputError,
  },
  {
    code: DeviceErrorCode.signatureStale,
    status: 0,
    message: 'the key was changed since it was fetched (prevmsig is not its current signature)',
    hint: 'fetch the key again and repeat the change',
    errorClass: ConflictError,
  },
  {
    code: DeviceErrorCode.protectedUnreadable,
    status: 0,
    message: "a protected attribute does not open with the device's SEP.CD:KS key",
    hint: WRONG_KEYS,
    errorClass: AuthError,
  },
];

const BY_CODE = new Map<number, DeviceCause>(DEVICE_CAUSES.map((c) => [c.code, c]));

export function deviceCause(code: number): DeviceCause | undefined {
  return BY_CODE.get(code);
}

/** The typed error for a device request failure the service reported with `code`. */
export function deviceError(
  code: number | undefined,
  message: string,
  options: { conversationId?: string; status?: number } = {},
): KsctlError {
  const cause = code === undefined ? undefined : deviceCause(code);
  const ErrorType =
    cause?.errorClass ??
    (options.status === undefined ? ServiceError : errorClassForStatus(options.status));
  return new ErrorType(message, {
    hint: cause?.hint,
    conversationId: options.conversationId,
    status: options.status,
    serviceCode: code,
  });
}

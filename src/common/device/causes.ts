/**
 * Every failure of a device request, in one table: the mock answers with `status` and `message`
 * in the place `where` says, and ksctl turns the code into the typed error of `errorClass` (its
 * exit code) with `hint`. What can be sealed (the device is known and the request's envelope
 * opened) is answered inside an envelope under the request's cid, with a status below 500 (the JS
 * SDK never settles on a 5xx and hangs on an answer it cannot open); only the rest is an HTTP
 * error with a plain JSON body. The codes avoid the ones the SDKs give a meaning of their own
 * (4002 is their clock calibration) and use theirs where the cause is theirs (4001, 4020, 4202).
 *
 * | code | where | cause |
 * |---|---|---|
 * | 40020 | HTTP 400 | body is not JSON `{"cid", "envelope"}` with two strings |
 * | 40021 | HTTP 400 | cid is not `CID|<deviceId>|<epoch ms>|<nonce>[|<version>]` |
 * | 40022 | HTTP 400 | envelope is not Base64 |
 * | 40120 | HTTP 401 | the cid names a device the service never enrolled |
 * | 40122 | HTTP 401 | the envelope does not open with the device's SEP.CD:IDC key and the cid |
 * | 40023 | sealed, 400 | envelope opens but is not `{"meta": {"hfphash"}, "data"}` of the operation |
 * | 40024 | sealed, 400 | a fetch asks for more work or a larger answer than one request may (the message names the bound) |
 * | 40121 | sealed, 401 | the cid's time is more than 5 minutes from the service's clock |
 * | 40920 | sealed, 409 | the cid was used before |
 * | 40420 | sealed, 404 | a device endpoint this service does not serve (`/v2.4/assertions/create`) |
 * | 4001 | sealed, 200 | the fingerprint hash is unknown: send the full `hfp` |
 * | 4020 | per ref or id | an attribute named like a marking carries a value the marking lacks |
 * | 4003 | per id | the key belongs to another tenant |
 * | 4004 | per id | no key has this id |
 * | 4005 | per ref or id | `csig`/`msig` does not verify with SEP.CD:KS |
 * | 4006 | per ref or id | the item is malformed (ref, qty, attribute JSON, force) |
 * | 4202 | per id | modify: `prevcsig`/`prevmsig` are not the key's current signatures (stale) |
 * | 4008 | per ref or id | an `ionic-protected-*` value does not open with SEP.CD:KS |
 *
 * Per-ref failures of a create fail the whole create (nothing is created), as the top-level
 * `error`; per-id failures of fetch and modify go in `data.errorMap` (v2.4) or the inner `error`
 * keyed by id (v2.3), beside the keys that worked.
 */
import {
  AuthError,
  ConflictError,
  rowHint,
  InputError,
  type KsctlError,
  NotFoundError,
  ServiceError,
} from '../errors.js';
import { type ErrorClass, errorClassForStatus } from '../enrollment/causes.js';
import type { DeviceOperation } from './wire.js';

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
  endpointNotServed: 40420,
  fingerprintUnknown: 4001,
  markingValueRefused: 4020,
  keyOfOtherTenant: 4003,
  keyNotFound: 4004,
  signatureInvalid: 4005,
  itemInvalid: 4006,
  signatureStale: 4202,
  protectedUnreadable: 4008,
} as const;

export type DeviceErrorCodeValue = (typeof DeviceErrorCode)[keyof typeof DeviceErrorCode];

export interface DeviceCause {
  code: DeviceErrorCodeValue;
  /**
   * `http`: an HTTP error with a plain JSON body; `sealed`: the whole request's error inside the
   * answer envelope; `item`: one ref's or key's error inside the envelope (HTTP 200).
   */
  where: 'http' | 'sealed' | 'item';
  /** The HTTP status of the answer. */
  status: number;
  /** The mock's message (item errors add their particulars). */
  message: string;
  hint: string;
  /**
   * The hint for someone reading another client's request in the mock's journal (the console,
   * `ksctl mock requests show`), where `hint` would speak of ksctl's own client.
   */
  journalHint?: string;
  /** The hint in the library's words, when it names CLI flags or commands. */
  codeHint?: string;
  errorClass: ErrorClass;
  /** An `item` error's operations: those whose refs or keys can fail so. */
  items?: readonly DeviceOperation[];
}

const WRONG_KEYS = {
  hint: 'the profile does not match what the service holds for this device: enroll again (ksctl enroll) or pick another profile',
  codeHint:
    'the profile does not match what the service holds for this device: enroll again (enroll()) or pick another profile',
};
const LIKELY_BUG =
  'ksctl or a proxy altered the request; rerun with --debug and report it with the conversation id';
/** LIKELY_BUG, for a request of any client read in the journal. */
const CLIENT_SENT_IT =
  'the client (or a proxy) sent this: check its dialect, cid and envelope against the request it meant to send';

export const DEVICE_CAUSES: readonly DeviceCause[] = [
  {
    code: DeviceErrorCode.requestInvalid,
    where: 'http',
    status: 400,
    message: 'the body must be a JSON object with string members cid and envelope',
    hint: LIKELY_BUG,
    journalHint: CLIENT_SENT_IT,
    errorClass: InputError,
  },
  {
    code: DeviceErrorCode.cidMalformed,
    where: 'http',
    status: 400,
    message:
      'the cid must read CID|<deviceId>|<epoch ms>|<Base64 of 4 random bytes>, and in v2.4 |<version> (2.3 or 2.4) after it',
    hint: LIKELY_BUG,
    journalHint: CLIENT_SENT_IT,
    errorClass: InputError,
  },
  {
    code: DeviceErrorCode.envelopeUndecodable,
    where: 'http',
    status: 400,
    message: 'the envelope is not Base64',
    hint: LIKELY_BUG,
    journalHint: CLIENT_SENT_IT,
    errorClass: InputError,
  },
  {
    code: DeviceErrorCode.envelopeContentInvalid,
    where: 'sealed',
    status: 400,
    message: 'the envelope must hold {"meta": {"hfphash": …}, "data": …} of this operation',
    hint: LIKELY_BUG,
    journalHint: CLIENT_SENT_IT,
    errorClass: InputError,
  },
  {
    code: DeviceErrorCode.requestTooLarge,
    where: 'sealed',
    status: 400,
    message: 'the request asks for more than one request may',
    hint: 'split the request: fewer or narrower queries per fetch',
    errorClass: InputError,
  },
  {
    code: DeviceErrorCode.deviceUnknown,
    where: 'http',
    status: 401,
    message: 'the service knows no device with this id',
    hint: `${WRONG_KEYS.hint} (a mock without --state forgets its devices when it stops)`,
    codeHint: `${WRONG_KEYS.codeHint} (a mock without a state directory forgets its devices when it stops)`,
    errorClass: AuthError,
  },
  {
    code: DeviceErrorCode.clockSkew,
    where: 'sealed',
    status: 401,
    message: "the cid's time is more than 5 minutes away from the service's clock",
    hint: "set this machine's clock right (the service accepts 5 minutes either way)",
    errorClass: AuthError,
  },
  {
    code: DeviceErrorCode.envelopeNotAuthentic,
    where: 'http',
    status: 401,
    message: "the envelope does not open with the device's SEP.CD:IDC key and the cid",
    ...WRONG_KEYS,
    errorClass: AuthError,
  },
  {
    code: DeviceErrorCode.cidReused,
    where: 'sealed',
    status: 409,
    message: 'this cid was used before; every request needs a new one',
    hint: LIKELY_BUG,
    journalHint: CLIENT_SENT_IT,
    errorClass: ConflictError,
  },
  {
    code: DeviceErrorCode.endpointNotServed,
    where: 'sealed',
    status: 404,
    message: 'this service does not serve this device endpoint',
    hint: 'the mock serves key create, fetch and modify, resources and messages (v2.3 and v2.4); check the path',
    errorClass: NotFoundError,
  },
  {
    code: DeviceErrorCode.fingerprintUnknown,
    where: 'sealed',
    status: 200,
    message: 'unknown hfphash: send the full hfp',
    hint: 'the service asked for the device fingerprint twice; retry, and report it if it persists',
    journalHint:
      'the usual first answer to a device whose fingerprint the service does not know: the client sends the request again with its whole fingerprint (hfp)',
    errorClass: ServiceError,
  },
  {
    code: DeviceErrorCode.markingValueRefused,
    where: 'item',
    items: ['create', 'modify'],
    status: 200,
    message: 'a marking attribute carries a value the marking does not have',
    hint: 'use one of the values the marking has (ksctl markings values list NAME), or add the value first',
    codeHint:
      "use one of the values the marking has (MarkingsClient's listValues()), or add the value first",
    errorClass: InputError,
  },
  {
    code: DeviceErrorCode.keyOfOtherTenant,
    where: 'item',
    items: ['fetch', 'modify'],
    status: 200,
    message: "the key belongs to another tenant than the device's",
    hint: 'fetch it with a profile enrolled in the tenant that created it',
    errorClass: NotFoundError,
  },
  {
    code: DeviceErrorCode.keyNotFound,
    where: 'item',
    items: ['fetch', 'modify'],
    status: 200,
    message: 'no key has this id',
    hint: 'check the key id (ids start with the keyspace of the device that created them)',
    errorClass: NotFoundError,
  },
  {
    code: DeviceErrorCode.signatureInvalid,
    where: 'item',
    items: ['create', 'modify'],
    status: 200,
    message: "the attribute signature does not verify with the device's SEP.CD:KS key",
    ...WRONG_KEYS,
    errorClass: AuthError,
  },
  {
    code: DeviceErrorCode.itemInvalid,
    where: 'item',
    items: ['create', 'modify'],
    status: 200,
    message: 'the item is malformed',
    hint: LIKELY_BUG,
    journalHint: CLIENT_SENT_IT,
    errorClass: InputError,
  },
  {
    code: DeviceErrorCode.signatureStale,
    where: 'item',
    items: ['modify'],
    status: 200,
    message:
      'the key was changed since it was fetched (prevcsig and prevmsig are not its current signatures)',
    hint: 'fetch the key again (ksctl keys fetch ID) and repeat the change, or pass --force to replace it as it is now',
    codeHint:
      'fetch the key again (fetchKeys()) and repeat the change, or give the change force: true to replace it as it is now',
    errorClass: ConflictError,
  },
  {
    code: DeviceErrorCode.protectedUnreadable,
    where: 'item',
    items: ['create', 'modify'],
    status: 200,
    message: "a protected attribute does not open with the device's SEP.CD:KS key",
    ...WRONG_KEYS,
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
    hint: cause === undefined ? undefined : rowHint(cause),
    conversationId: options.conversationId,
    status: options.status,
    serviceCode: code,
  });
}

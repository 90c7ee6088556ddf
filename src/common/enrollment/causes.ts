/**
 * The enrollment error causes of docs/design.md 2.3 as data: the mock answers with `status`,
 * `reasonPhrase` and `message`; ksctl turns a code into `explanation`, `hint` and the typed error
 * whose exit code docs/design.md 5 gives for the status.
 */
import type { ErrorBody } from '../http/error-body.js';
import {
  AuthError,
  ConflictError,
  type Hint,
  hintColumns,
  mapHint,
  InputError,
  type KsctlError,
  type KsctlErrorOptions,
  NotFoundError,
  rowHint,
  ServiceError,
} from '../errors.js';
import { isJsonObject } from '../encoding/json.js';

/** Every cause code by name, so code reads `CauseCode.tokenIncorrect` rather than 40105. */
export const CauseCode = {
  invalidJson: 40001,
  publicKeyUnparsable: 40002,
  internalRequestFailed: 40003,
  invalidKeyspace: 40004,
  replayDetected: 40005,
  tenantSettingsUnresolved: 40006,
  signatureMalformed: 40007,
  authTokenUndecodable: 40008,
  conversationIdInvalid: 40009,
  userDisabled: 40101,
  sessionKeyUndecryptable: 40102,
  signatureInvalid: 40103,
  payloadUndecryptable: 40104,
  tokenIncorrect: 40105,
  keyspaceNotFound: 40401,
  userNotFound: 40901,
  replay: 40902,
  keyServerRoutingFailed: 41701,
  keyServerAnswerIncomplete: 41702,
  sessionKeyUndecodable: 41703,
  payloadUndecodable: 41704,
  keyPairUndecodable: 41705,
  signatureUndecodable: 41706,
  enrollmentTypeUnsupported: 41707,
  attributesResignFailed: 41708,
  keyServerKeyUnresolved: 42401,
  tenantEnrollmentSettingsUnresolved: 45101,
  userAttributesMissing: 45102,
  justInTimeEnrollmentFailed: 50001,
  deviceNotStored: 50002,
  responseNotFormed: 50003,
  enterpriseManagerUnreachable: 50004,
  internalError: 50005,
  upstreamUnreachable: 50301,
  noKeyServerForKeyspace: 50302,
} as const;

export type EnrollmentCauseCode = (typeof CauseCode)[keyof typeof CauseCode];

export type ErrorClass = new (message: string, options?: KsctlErrorOptions) => KsctlError;

export interface EnrollmentCause {
  code: EnrollmentCauseCode;
  status: number;
  /** Sent exactly so, including the service's odd `409 Not Found`. */
  reasonPhrase: string;
  /** The cause as the table words it; the mock's `error.message`. */
  message: string;
  /** One plain line for users. */
  explanation: string;
  /** What to do next. */
  hint: string;
  /** The hint in the library's words, when it names CLI flags or commands. */
  codeHint?: string;
  errorClass: ErrorClass;
}

const FRESH_TOKENS = {
  cli: 'get a fresh token pair with ksctl mock tokens --user NAME or from your enrollment portal',
  code: "get a fresh token pair from your enrollment portal or a mock's mintTokens()",
};
const LIKELY_BUG = {
  cli: 'ksctl or a proxy altered the request; rerun with --debug and report it with the conversation ID',
  code: 'ksctl or a proxy altered the request; rerun with the trace option and report it with the conversation ID',
};
const RETRY_LATER =
  'retry later; if it keeps failing, give the conversation ID to the service operators';
const UNKNOWN_CAUSE =
  'the answer names no known cause; retry, and if it persists quote the conversation ID to the service operators';
const ASK_ADMIN = 'ask your tenant administrator, quoting the conversation ID';

/** Reason phrase and error class by status (docs/design.md 2.3 first column, docs/design.md 5). */
const BY_STATUS: Record<number, { reasonPhrase: string; errorClass: ErrorClass }> = {
  400: { reasonPhrase: 'Bad Request', errorClass: InputError },
  401: { reasonPhrase: 'Unauthorized', errorClass: AuthError },
  404: { reasonPhrase: 'Not Found', errorClass: NotFoundError },
  409: { reasonPhrase: 'Conflict', errorClass: ConflictError },
  417: { reasonPhrase: 'Expectation Failed', errorClass: ServiceError },
  424: { reasonPhrase: 'Misdirected Request', errorClass: ServiceError },
  451: { reasonPhrase: 'Unavailable For Legal Reasons', errorClass: ServiceError },
  500: { reasonPhrase: 'Internal Server Error', errorClass: ServiceError },
  503: { reasonPhrase: 'Service Unavailable', errorClass: ServiceError },
};

function cause(
  code: EnrollmentCauseCode,
  message: string,
  explanation: string,
  hint: Hint,
  reasonPhrase?: string,
): EnrollmentCause {
  const status = Math.floor(code / 100);
  const byStatus = BY_STATUS[status];
  if (byStatus === undefined) throw new Error(`no status row for cause ${code}`);
  return {
    code,
    status,
    reasonPhrase: reasonPhrase ?? byStatus.reasonPhrase,
    message,
    explanation,
    ...hintColumns(hint),
    errorClass: byStatus.errorClass,
  };
}

/** One entry per code, in the order of docs/design.md 2.3. The status is the code's first 3 digits. */
export const ENROLLMENT_CAUSES: readonly EnrollmentCause[] = [
  cause(
    CauseCode.invalidJson,
    'Request body is invalid JSON',
    'the enrollment service could not read the registration request as JSON',
    LIKELY_BUG,
  ),
  cause(
    CauseCode.publicKeyUnparsable,
    'Public key or device cannot be parsed',
    'the enrollment service could not parse the device public key in the enrollment package',
    LIKELY_BUG,
  ),
  cause(
    CauseCode.internalRequestFailed,
    'Forming the request for internal services failed',
    'the enrollment service failed to form its request to its internal services',
    RETRY_LATER,
  ),
  cause(
    CauseCode.invalidKeyspace,
    'Invalid keyspace',
    'the keyspace is malformed or does not match the enrollment endpoint',
    {
      cli: 'check --keyspace: 4 letters or digits, as your enrollment portal or key naming lookup gives it',
      code: 'check keyspace: 4 letters or digits, as your enrollment portal or key naming lookup gives it',
    },
  ),
  cause(
    CauseCode.replayDetected,
    'Replay detected',
    'the enrollment service has seen this exact enrollment package before',
    'run the enrollment again: ksctl builds a fresh package every time',
  ),
  cause(
    CauseCode.tenantSettingsUnresolved,
    'Tenant enrollment settings could not be resolved',
    "the enrollment service could not resolve the tenant's enrollment settings",
    ASK_ADMIN,
  ),
  cause(
    CauseCode.signatureMalformed,
    'Signature verification failed',
    'the enrollment service rejected the signature of the package as malformed',
    LIKELY_BUG,
  ),
  cause(
    CauseCode.authTokenUndecodable,
    'Authorization token could not be decoded',
    'the enrollment service could not decode the STOKEN and UIDAUTH pair',
    mapHint(FRESH_TOKENS, (fresh) => `check that both were copied whole, or ${fresh}`),
  ),
  cause(
    CauseCode.conversationIdInvalid,
    'X-Conversation-ID missing or malformed',
    'the request carried no valid X-Conversation-ID header',
    LIKELY_BUG,
  ),
  cause(
    CauseCode.userDisabled,
    'User is not enabled and cannot be enrolled',
    'the user is disabled and cannot enroll devices',
    'ask your tenant administrator to enable the user',
  ),
  cause(
    CauseCode.sessionKeyUndecryptable,
    'Session key failed to decrypt',
    'the key server could not decrypt the session key: the key server public key used may be stale or belong to another keyspace',
    'check the keyspace and enrollment URL, then retry so ksctl fetches the key server public key again',
  ),
  cause(
    CauseCode.signatureInvalid,
    'Signature did not validate',
    'the signature over the enrollment package did not validate',
    LIKELY_BUG,
  ),
  cause(
    CauseCode.payloadUndecryptable,
    'Payload could not be decrypted',
    'the enrollment service could not decrypt the enrollment package',
    'check the keyspace and enrollment URL, then retry so ksctl fetches the key server public key again',
  ),
  cause(
    CauseCode.tokenIncorrect,
    'Token is incorrect',
    'the STOKEN and UIDAUTH pair is wrong, expired, or for another keyspace',
    mapHint(FRESH_TOKENS, (fresh) => `${fresh}, for this keyspace`),
  ),
  cause(
    CauseCode.keyspaceNotFound,
    'Keyspace or tenant not found',
    'the enrollment service knows no such keyspace or tenant',
    {
      cli: 'check --keyspace and the API URL; ksctl can find both from the key naming lookup',
      code: 'check keyspace and apiUrl; enroll() can find both from the key naming lookup (knsUrl)',
    },
  ),
  cause(
    CauseCode.userNotFound,
    'User not found',
    'the user named in the UIDAUTH does not exist and cannot be enrolled just in time',
    mapHint(
      FRESH_TOKENS,
      (fresh) => `check the user name or ask your administrator to create the user, then ${fresh}`,
    ),
    'Not Found',
  ),
  cause(
    CauseCode.replay,
    'Request is a replay',
    'this STOKEN and UIDAUTH pair has already enrolled a device; each pair enrolls once',
    FRESH_TOKENS,
  ),
  cause(
    CauseCode.keyServerRoutingFailed,
    'Routing to the key server failed',
    'the enrollment service could not reach a key server for this request',
    RETRY_LATER,
  ),
  cause(
    CauseCode.keyServerAnswerIncomplete,
    'Key server response is missing fields',
    "the key server's answer to the enrollment service was incomplete",
    RETRY_LATER,
  ),
  cause(
    CauseCode.sessionKeyUndecodable,
    'Session key could not be decoded',
    'the enrollment service could not decode the session key (s) of the request',
    LIKELY_BUG,
  ),
  cause(
    CauseCode.payloadUndecodable,
    'Payload could not be decoded',
    'the enrollment service could not decode the enrollment package (p) of the request',
    LIKELY_BUG,
  ),
  cause(
    CauseCode.keyPairUndecodable,
    'Key pair could not be decoded',
    'the enrollment service could not decode a key pair it needs',
    RETRY_LATER,
  ),
  cause(
    CauseCode.signatureUndecodable,
    'Signature could not be decoded',
    'the enrollment service could not decode the signature (g) of the request',
    LIKELY_BUG,
  ),
  cause(
    CauseCode.enrollmentTypeUnsupported,
    'Current configuration does not support this type of enrollment',
    'device enrollment of this kind is disabled for this keyspace',
    'ask your tenant administrator to enable device enrollment for the keyspace',
  ),
  cause(
    CauseCode.attributesResignFailed,
    'Attributes failed to re-sign',
    "the enrollment service failed to re-sign the user's attributes",
    RETRY_LATER,
  ),
  cause(
    CauseCode.keyServerKeyUnresolved,
    'Key server public key could not be resolved, or its signature not verified',
    "the enrollment service could not resolve or verify the key server's public key",
    RETRY_LATER,
  ),
  cause(
    CauseCode.tenantEnrollmentSettingsUnresolved,
    'Tenant settings related to enrollment could not be resolved',
    "the enrollment service could not resolve the tenant's settings for enrollment",
    ASK_ADMIN,
  ),
  cause(
    CauseCode.userAttributesMissing,
    'Needed user attribute fields for the user search were not found',
    'the UIDAUTH carries no user identity the service can search for',
    mapHint(FRESH_TOKENS, (fresh) => `${fresh}, for a named user`),
  ),
  cause(
    CauseCode.justInTimeEnrollmentFailed,
    'User could not be enrolled just in time',
    'the enrollment service failed to create the user just in time',
    RETRY_LATER,
  ),
  cause(
    CauseCode.deviceNotStored,
    'Device could not be stored',
    'the enrollment service could not store the device',
    RETRY_LATER,
  ),
  cause(
    CauseCode.responseNotFormed,
    'Response message could not be formed',
    'the enrollment service could not form its answer',
    RETRY_LATER,
  ),
  cause(
    CauseCode.enterpriseManagerUnreachable,
    'Enterprise manager could not be contacted',
    'the enrollment service could not contact the enterprise manager',
    RETRY_LATER,
  ),
  cause(
    CauseCode.internalError,
    'Other internal error',
    'the enrollment service hit an internal error',
    RETRY_LATER,
  ),
  cause(
    CauseCode.upstreamUnreachable,
    'Request to an upstream service could not be made',
    'the enrollment service could not reach one of its upstream services',
    RETRY_LATER,
  ),
  cause(
    CauseCode.noKeyServerForKeyspace,
    'No connected key server can serve the requested keyspace',
    'no key server for this keyspace is connected right now',
    RETRY_LATER,
  ),
];

const CAUSES_BY_CODE = new Map<number, EnrollmentCause>(
  ENROLLMENT_CAUSES.map((entry) => [entry.code, entry]),
);

export function causeByCode(code: number): EnrollmentCause | undefined {
  return CAUSES_BY_CODE.get(code);
}

/** The error body the service sends for a cause (service interface 7.1). */
export function causeErrorBody(code: EnrollmentCauseCode, cid: string): ErrorBody {
  const entry = CAUSES_BY_CODE.get(code);
  return { error: { cid, code, message: entry?.message ?? 'Other internal error' } };
}

/** Error class for a status with no known cause code (docs/design.md 5). */
export function errorClassForStatus(status: number): ErrorClass {
  if (status === 400 || status === 413 || status === 415) return InputError;
  if (status === 401 || status === 403) return AuthError;
  if (status === 404) return NotFoundError;
  if (status === 409 || status === 412) return ConflictError;
  return ServiceError;
}

/** At most one short line of service text, so a hostile or huge body cannot flood the terminal. */
function oneLine(text: string): string {
  // A final full stop goes: the quote ends ksctl's own line, which has none.
  const line = text.replace(/\s+/g, ' ').trim().replace(/\.$/, '');
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/**
 * The typed error for an enrollment error answer. A known `error.code` decides class,
 * explanation and hint (the code is more precise than the status); otherwise the status
 * decides and the service's own message is quoted. The conversation ID we sent wins over the
 * echoed `error.cid`.
 */
export function enrollmentErrorFromAnswer(
  status: number,
  body: unknown,
  conversationId?: string,
): KsctlError {
  const error = readErrorObject(body);
  const cid = conversationId ?? error.cid;
  const entry = error.code === undefined ? undefined : causeByCode(error.code);
  if (entry !== undefined) {
    return new entry.errorClass(`${entry.explanation} (${entry.code})`, {
      hint: rowHint(entry),
      conversationId: cid,
      status,
      serviceCode: entry.code,
    });
  }
  const reason = BY_STATUS[status]?.reasonPhrase;
  const said = error.message === undefined ? '' : `: ${oneLine(error.message)}`;
  const code = error.code === undefined ? '' : ` (${error.code})`;
  return new (errorClassForStatus(status))(
    `the enrollment service refused the registration with HTTP ${status}${reason === undefined ? '' : ` ${reason}`}${said}${code}`,
    { hint: UNKNOWN_CAUSE, conversationId: cid, status, serviceCode: error.code },
  );
}

function readErrorObject(body: unknown): { cid?: string; code?: number; message?: string } {
  const error = isJsonObject(body) ? body.error : undefined;
  if (!isJsonObject(error)) return {};
  const { cid, code, message } = error;
  return {
    cid: typeof cid === 'string' ? cid : undefined,
    code: typeof code === 'number' && Number.isInteger(code) ? code : undefined,
    message: typeof message === 'string' ? message : undefined,
  };
}

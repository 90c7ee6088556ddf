/**
 * Wire types of the service, defined once and imported by both the client (src/api, src/enroll)
 * and the mock (src/mock), so the two cannot drift. See docs/design.md sections 1 and 2.
 */

import type { ListFilter } from '../api/filters.js';

// ---- Markings (docs/design.md 1.1) ----

/**
 * The principal that made the last change, as the public Ionic API returns it. The members marked
 * "public API" below are sent by the mock and by Ionic services; ksctl reads answers without
 * them too (other services may leave them out), so they are optional here.
 */
export interface ChangedBy {
  tenantId: string;
  id: string;
  userName: string;
  display: string;
  exists: boolean;
}

export interface MarkingValue {
  id: string;
  markingId: string;
  name: string;
  description: string;
  _createdTs: number;
  _updatedTs: number;
  _version: number;
  /** Public API. */
  _createdBy?: string;
  /** Public API. */
  _updatedBy?: string;
  /** Public API. */
  changedBy?: ChangedBy;
  /** Public API. */
  policies?: { referenced: number; relevant: number };
}

export interface MarkingDetail {
  description: string;
  valueCount: number;
  /** Left out entirely when the request had `valueLimit=0`. Ordered by value name. */
  values?: MarkingValue[];
  /** Public API: always `"string"`. */
  dataType?: 'string';
  /** Public API: always `false`. */
  default?: boolean;
  /** Public API: the `_version` at which `defaultValue` was last set, or 0. */
  defaultVersion?: number;
  /** Public API. */
  policies?: { referenced: number };
}

export interface Marking {
  id: string;
  name: string;
  public: boolean;
  adminOnly: boolean;
  defaultValue: string | null;
  detail: MarkingDetail;
  _createdTs: number;
  _createdBy: string;
  _updatedTs: number;
  _updatedBy: string;
  _version: number;
  /** Public API. */
  changedBy?: ChangedBy;
}

export interface ListEnvelope<T> {
  totalResults: number;
  skip: number;
  limit: number;
  /** SCIM paging members, present when the request paged with startIndex/count. */
  startIndex?: number;
  itemsPerPage?: number;
  Resources: T[];
}

/** A value in a create or update body: matched by `id` when given, else by `name`. */
export interface ValueInput {
  id?: string;
  name: string;
  description?: string;
}

export interface MarkingInput {
  name: string;
  public?: boolean;
  adminOnly?: boolean;
  defaultValue?: string | null;
  detail?: {
    description?: string;
    values?: ValueInput[];
  };
}

/** Update Marking body: scalar fields are partial; `detail.values`, when present, is the complete set. */
export interface MarkingUpdate {
  name?: string;
  public?: boolean;
  adminOnly?: boolean;
  defaultValue?: string | null;
  detail?: {
    description?: string;
    values?: ValueInput[];
  };
}

/** An item of Create or Update Multiple: with `id` it updates that marking, without it creates one. */
export type BulkMarkingItem = (MarkingUpdate & { id: string }) | MarkingInput;

export interface ValueUpdate {
  name?: string;
  description?: string;
}

/**
 * A List Markings request: paging, the named shortcuts, and any further filter terms of the
 * grammar (src/api/filters.ts), all sent to the service, never applied locally.
 */
export interface MarkingListQuery {
  skip?: number;
  limit?: number;
  valueLimit?: number;
  name?: string;
  name__contains?: string;
  name__startswith?: string;
  public?: boolean;
  filter?: ListFilter;
}

export interface ValueListQuery {
  skip?: number;
  limit?: number;
  name?: string;
  name__contains?: string;
  filter?: ListFilter;
}

export const PAGE_LIMIT_DEFAULT = 100;
export const PAGE_LIMIT_MAX = 1000;
export const BULK_MAX_ITEMS = 1000;
export const BODY_MAX_BYTES = 32 * 1024 * 1024;
export const VALUES_MAX_PER_MARKING = 100_000;
export const NAME_MAX_LENGTH = 256;
export const DESCRIPTION_MAX_LENGTH = 4096;

// ---- Errors (docs/design.md 1.4) ----

export interface ErrorDetailWire {
  path: string;
  message: string;
}

export interface ErrorBody {
  error: {
    cid: string;
    code: number;
    message: string;
    details?: ErrorDetailWire[];
  };
}

/** The public Ionic management-API error shape, which a real service may answer with. */
export interface IonicManagementErrorBody {
  status?: number;
  code?: number;
  error?: string;
  detail?: { message?: string };
  source?: { cid?: string };
}

/** Numeric codes of the markings errors (the interface leaves them open; these are the mock's). */
export const MarkingsErrorCode = {
  badRequest: 40000,
  validation: 40010,
  unauthorized: 40100,
  forbidden: 40300,
  notFound: 40400,
  methodNotAllowed: 40500,
  requestTimeout: 40800,
  duplicateName: 40910,
  preconditionFailed: 41200,
  payloadTooLarge: 41300,
  unsupportedMediaType: 41500,
  expectationFailed: 41700,
  tooManyRequests: 42900,
  headersTooLarge: 43100,
  internal: 50000,
  unavailable: 50300,
} as const;

// ---- Scopes (docs/design.md 1.3) ----

export const SCOPES = [
  'markings:read',
  'markings:create',
  'markings:update',
  'markings:delete',
] as const;
export type Scope = (typeof SCOPES)[number];

// ---- Enrollment (docs/design.md 2) ----

export interface RegisterRequest {
  k: string;
  p: string;
  s: string;
  g: string;
}

export interface RegisterResponse {
  deviceID: string;
  SEPAESK: string;
  'SEPAESK-IDC': string;
  /**
   * `CID|ENROLLMENT|<X-Conversation-ID uuid>|<keyspace>|<epoch ms>|<version>`: the Java SDK
   * requires it and checks the uuid; the mock always sends it.
   */
  cid?: string;
}

/** The JSON object encrypted inside `p`. */
export interface EnrollmentPayload {
  TKRespPubKDERB64: string;
  AUTH: string;
}

/** Response headers of a portal login (docs/design.md 2.1). */
export const PORTAL_HEADERS = {
  stoken: 'x-ionic-reg-stoken',
  uidauth: 'x-ionic-reg-uidauth',
  apiUrl: 'x-ionic-reg-ionic-url',
  pubkeyUrl: 'x-ionic-reg-pubkey-url',
  keyspace: 'x-ionic-reg-enrollment-tag',
  /** Later SDKs: the API URL (comma-separated when several). */
  apiUrls: 'x-ionic-reg-ionic-api-urls',
  /** Later SDKs: the key server public key inline, Base64 DER. */
  pubkey: 'x-ionic-reg-pubkey',
} as const;

export interface KnsAnswer {
  keyspace: string;
  fqdn: string;
  ttlSeconds: number;
  answers: {
    enroll: string[];
    tenantid: string[];
    url: string[];
  };
}

// ---- The mock's own endpoints (docs/design.md 3) ----

/** What `ksctl mock serve --json` prints and `--ready-file` holds. */
export interface MockInfo {
  url: string;
  baseUrl: string;
  apiUrl: string;
  enrollmentUrl: string;
  knsUrl: string;
  tenantId: string;
  keyspace: string;
  token: string;
  /**
   * A link to the mock's console (`{url}/_mock/console/login?code=…`) that signs a browser in
   * once; absent when the console is off (`--no-console`). `ksctl mock console` makes fresh ones.
   */
  consoleUrl?: string;
  /**
   * The users the mock started with, to sign in at the portal as (their passwords are the mock's
   * documented development passwords, e.g. `alice-password`).
   */
  users: MockUserInfo[];
}

export interface MockUserInfo {
  name: string;
  tenant: string;
  enabled: boolean;
  email?: string;
  password?: string;
}

export interface FaultRule {
  method?: string;
  /** Matched against the request path: an exact path, or a prefix ending in `*`. */
  path?: string;
  /**
   * A markings error code; an enrollment cause code (docs/design.md 2.3), answered as that cause;
   * or a device error code (2.4), answered by a matching device request as that error (3.3).
   */
  code?: number;
  status?: number;
  /** 0..1, default 1. */
  probability?: number;
  /** How many times the rule fires before it is spent; unlimited when absent. */
  times?: number;
}

/** Which part of the service a request went to: `admin` is the mock's own `/_mock/*`. */
export type RequestSide = 'markings' | 'enrollment' | 'device' | 'admin';

export const REQUEST_SIDES: readonly RequestSide[] = ['markings', 'enrollment', 'device', 'admin'];

export interface JournalEntry {
  /** 1, 2, 3 … in arrival order, never reused while the mock runs (a reset goes on counting). */
  id: number;
  time: string;
  method: string;
  /** With its query, secret parameters redacted. */
  path: string;
  status: number;
  cid: string;
  durationMs: number;
  /** Size of the request body in bytes (0 when there was none). */
  requestBytes: number;
  /** Size of the answer's body in bytes. */
  responseBytes: number;
  side: RequestSide;
  /** The device of a device request, when its conversation id names one. */
  device?: string;
}

/** One side of a request as the journal kept it: headers and the first 64 KiB of the body. */
export interface JournalMessage {
  /** Secrets redacted as `--debug` redacts them. */
  headers: Record<string, string>;
  /** The body as kept (secrets redacted): UTF-8 text, or Base64 when it is not text. */
  body: string;
  encoding: 'utf8' | 'base64';
  /** The body's full size. */
  bytes: number;
  /** Only the first 64 KiB of the body were kept. */
  truncated: boolean;
  /** Headers and body were let go to keep the journal within its bytes (newer requests kept theirs). */
  dropped?: boolean;
}

/** An entry with what was sent and answered (`GET /_mock/requests?bodies=true`). */
export interface JournalEntryWithBodies extends JournalEntry {
  request: JournalMessage;
  response: JournalMessage;
}

export interface RequestJournal {
  /** Requests recorded since the mock started or was reset, kept or not. */
  total: number;
  requests: JournalEntry[];
}

/**
 * A request described (`GET /_mock/requests/{id}`): both messages, a device request's envelopes
 * opened with the device's keys, what an enrollment's package held, and the lines to send it again.
 */
export interface RequestDetail extends JournalEntryWithBodies {
  opened?: OpenedDeviceRequest;
  enrollment?: EnrollmentDetail;
  /** A `curl` line that sends the request again; secrets as shell variables ($KSCTL_TOKEN). */
  curl: string;
  /** The same as a `ksctl` line (`ksctl api …`), where one fits. */
  ksctl: string;
  /** Why an envelope or package could not be opened, when it could not. */
  problems?: string[];
}

export interface OpenedDeviceRequest {
  cid: string;
  deviceId: string;
  /** Which key opened it: the device's SEP.CD:IDC key, named by the device. */
  keyId: string;
  dialect: 'v2.3' | 'v2.4';
  /**
   * The JSON inside the request envelope, with attribute texts parsed and protected values
   * opened and marked: `{"decrypted": true, "values": […]}`. Absent when it did not open.
   */
  clear?: unknown;
  /** The answer's envelope opened the same way. */
  answer?: unknown;
  /** An error the answer sealed: its code and what it means. */
  sealedError?: {
    code: number;
    /** What the code means, in the cause table's words (src/device/causes.ts). */
    meaning: string;
    /** The message the answer carried. */
    message?: string;
    /** What a client does about it. */
    hint?: string;
  };
}

/** What a registration's package held: never its STOKEN or UIDAUTH. */
export interface EnrollmentDetail {
  keyspace: string;
  /** The device public key's size, when the package opened that far. */
  keyBits?: number;
  /** Whether the package's signature verifies with that key. */
  signatureValid?: boolean;
  /** The user the AUTH's tokens name. */
  user?: string;
  /** The device the registration made, when it succeeded. */
  deviceId?: string;
  /** The enrollment cause code the mock answered with, when it refused. */
  cause?: { code: number; meaning: string };
}

export interface TokenPair {
  stoken: string;
  uidauth: string;
}

// ---- Token introspection (RFC 7662), read by `ksctl status` ----

/**
 * Where a service says who a token is and what it may do: OAuth 2.0 token introspection on the
 * service's origin. The caller authenticates with its own credentials and, for a bearer token,
 * names it in the form field `token`. A service without it answers 404: status then says so.
 */
export const INTROSPECTION_PATH = '/oauth2/introspect';

export interface TokenIntrospection {
  active: boolean;
  /** Who the token is. */
  sub?: string;
  username?: string;
  /** Space-separated scopes. */
  scope?: string;
  /** Restricted to this tenant, when it is. */
  tenant?: string;
}

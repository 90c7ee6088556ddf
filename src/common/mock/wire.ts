/**
 * Wire types of the mock's own endpoints (docs/design.md section 3): what `ksctl mock serve
 * --json` prints, fault rules, and the request journal with its request detail. Imported by the
 * mock and by what reads it (`ksctl mock …`, the library's `ksctl/mock`, src/client/output/requests.ts).
 */
import type { MockDeviceMessage } from '../device/wire.js';

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
   * With `--tls` and the mock's local CA: the CA certificate's file (PEM), which clients trust to
   * reach the mock (`ksctl` does by itself through the "mock" context).
   */
  caFile?: string;
  /** With `caFile`: how to trust it, one line each (what `mock serve` prints). */
  trust?: TrustLines;
  /**
   * The users the mock started with, to sign in at the portal as (their passwords are the mock's
   * documented development passwords, e.g. `alice-password`).
   */
  users: MockUserInfo[];
}

/** How to make each kind of client trust the mock's CA. */
export interface TrustLines {
  /** A shell line that makes Node programs trust it (NODE_EXTRA_CA_CERTS). */
  node: string;
  curl: string;
  /** keytool into a trust store, and the JVM options that use it. */
  java: string;
  /** Where Android installs a user CA, and what the app must allow. */
  android: string;
  /** Where iOS installs and then fully trusts a CA. */
  ios: string;
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
  /**
   * The error code sealed in a device request's answer (4020, 4004), whose HTTP status can be
   * 200: the whole request's, or the first of its keys'.
   */
  deviceCode?: number;
}

/** One side of a request as the journal kept it: headers and the first 64 KiB of the body. */
export interface JournalMessage {
  /** Secrets redacted as `--debug` redacts them. */
  headers: Record<string, string>;
  /** The body as kept (secrets redacted, bytes first): UTF-8 text, or Base64 when it is not text. */
  body: string;
  encoding: 'utf8' | 'base64';
  /** The body's full size. */
  bytes: number;
  /** Only the first 64 KiB of the body were kept. */
  truncated: boolean;
  /** Headers and body were let go to keep the journal within its bytes (newer requests kept theirs). */
  dropped?: boolean;
  /**
   * `sha256:<hex>` of the body as received, when it could not be scrubbed of secrets safely
   * (compressed, or multipart whose parts could not be found): the body itself is not kept.
   */
  withheld?: string;
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
  /**
   * The journal is paged: the path and query of the next page, when more entries match (newer
   * ones when paging forward with `after`, else older ones). Also a Link header.
   */
  next?: string;
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
    /** What the code means, in the cause table's words (src/common/device/causes.ts). */
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

/**
 * What `ksctl mock record --out FILE` writes and `ksctl conformance --replay FILE` reads: the
 * exchanges between an app and a real service, each kept as the mock journals its own requests
 * (secrets redacted the same way). No token or credential is ever written to it.
 */
export interface Recording {
  format: 'ksctl-recording';
  version: 1;
  /** The origin of the service that was recorded (`https://tenant.example`), no credentials. */
  target: string;
  /** When the recording started and stopped (ISO 8601). */
  startedAt: string;
  endedAt: string;
  /** In the order the app sent them. A body longer than the recording keeps is `truncated`. */
  exchanges: JournalEntryWithBodies[];
}

/*
 * The console's API (`/_mock/console/api/…`), as the console's pages (console/assets/*.js) read
 * it: types only, which the pages name in JSDoc and `npm run typecheck` checks them against.
 */

/** `GET api/session`: the CSRF token of the browser's session; on a recorder's console its origin. */
export interface ConsoleSessionAnswer {
  csrf: string;
  recording?: string;
}

/** A keyspace of the mock (`--keyspace`) as the overview lists it. */
export interface ConsoleKeyspace {
  id: string;
  tenant: string;
  /** false: registration answers 41707 (enrollment disabled). */
  enrollment: boolean;
  /** false: registration answers 50302 (no key server for the keyspace). */
  online: boolean;
}

/** A tenant with how much it holds. */
export interface ConsoleTenant {
  id: string;
  markings: number;
  values: number;
}

/** `GET api/overview`: where the mock answers and how much it holds (a recorder's: url, counts). */
export interface ConsoleOverview {
  url: string;
  baseUrl?: string;
  apiUrl?: string;
  enrollmentUrl?: string;
  knsUrl?: string;
  /** On a recorder's console: the origin it records. */
  recording?: string;
  tenant?: string;
  keyspace?: string;
  keyspaces?: ConsoleKeyspace[];
  tenants?: ConsoleTenant[];
  users?: Omit<MockUserInfo, 'password'>[];
  counts: {
    markings?: number;
    values?: number;
    devices?: number;
    keys?: number;
    requests: number;
  };
}

/** One second of requests (`GET api/stats`). */
export interface ConsoleSecond {
  /** Epoch seconds. */
  t: number;
  markings: number;
  enrollment: number;
  device: number;
  admin: number;
  /** Milliseconds; 0 in a second without requests. */
  p50: number;
  p95: number;
  /** Status → how many answers had it. */
  errors: Record<string, number>;
}

/** `GET api/stats`: the seconds of the last ten minutes that had requests. */
export interface ConsoleStats {
  seconds: ConsoleSecond[];
}

/** An enrolled device as `GET api/devices` lists it. */
export interface ConsoleDevice {
  id: string;
  user: string;
  keyspace: string;
  tenant: string;
  /** ISO 8601. */
  enrolled: string;
  /** ISO 8601: its newest request, else its newest key; null when neither. */
  lastSeen: string | null;
  /** How many keys it created. */
  keys: number;
}

/** `GET api/devices`: newest first. */
export interface ConsoleDevices {
  devices: ConsoleDevice[];
}

/** A key a device created, its attributes opened. */
export interface ConsoleDeviceKey {
  id: string;
  ref: string;
  attributes: Record<string, unknown>;
  mutableAttributes: Record<string, unknown>;
  /** The attribute names whose protected values the mock opened. */
  decrypted: string[];
  created: string;
  modified: string | null;
}

/** A message a device logged with `/v2.4/messages`. */
export type ConsoleDeviceMessage = MockDeviceMessage;

/** `GET api/devices/{id}`. */
export interface ConsoleDeviceDetail {
  device: ConsoleDevice;
  keys: ConsoleDeviceKey[];
  messages: ConsoleDeviceMessage[];
}

/** `GET api/faults` (and what adding, removing and clearing answer): the rules in force. */
export interface ConsoleFaults {
  faults: (FaultRule & { hits: number })[];
}

/** `POST api/tokens`: a STOKEN/UIDAUTH pair for one enrollment, and the line that uses it. */
export interface ConsoleTokenPair {
  stoken: string;
  uidauth: string;
  keyspace: string;
  /** A `ksctl enroll` line with the pair. */
  enroll?: string;
}

/** A registration code the enrollment portal "e-mailed". */
export interface ConsoleOutboxMessage {
  to: string;
  keyspace: string;
  /** The STOKEN. */
  code: string;
  /** ISO 8601. */
  time: string;
}

/** `GET api/outbox`. */
export interface ConsoleOutbox {
  messages: ConsoleOutboxMessage[];
}

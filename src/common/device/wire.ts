/**
 * Wire types of the device request format (docs/design.md 2.4, spec/device-requests-sdks.md), defined
 * once for ksctl and the mock. Member names are the service's (`protection-keys`, `cattrs`, …),
 * hence the quoted keys. Both dialects share these shapes; src/common/device/dialects.ts says where they
 * differ.
 */
import type { ApiVersion } from './api-version.js';

export type DeviceOperation = 'create' | 'fetch' | 'modify' | 'resources' | 'messages';

/** The API path of each operation in each dialect, at the root of the profile's `server`. */
export const DEVICE_PATHS: Record<ApiVersion, Partial<Record<DeviceOperation, string>>> = {
  '2.3': { create: '/v2.3/keys/create', fetch: '/v2.3/keys/fetch' },
  '2.4': {
    create: '/v2.4/keys/create',
    fetch: '/v2.4/keys/fetch',
    modify: '/v2.4/keys/modify',
    resources: '/v2.4/resources',
    messages: '/v2.4/messages',
  },
};

/** The v2.4 paths of the key operations (what ksctl calls by default). */
export const KEY_PATH = {
  create: '/v2.4/keys/create',
  fetch: '/v2.4/keys/fetch',
  modify: '/v2.4/keys/modify',
} as const;

/** HTTP body of a request and of its answer. */
export interface DeviceRequestBody {
  cid: string;
  /** Base64(IV16 ‖ AES-256-GCM(SEP.CD:IDC, AAD = cid, JSON) ‖ tag). */
  envelope: string;
}

export interface EnvelopeMeta {
  /** Hex SHA-256 of the device fingerprint the service may already know. */
  hfphash: string;
  /** The full fingerprint (JSON text): after error 4001, or on the JS SDK's first call. */
  hfp?: string;
  /** The SDKs add their own members (`ionic-agent`, …); the service ignores them. */
  [member: string]: unknown;
}

/** What the request envelope holds. */
export interface RequestContent<D> {
  meta: EnvelopeMeta;
  data: D;
}

export interface CreateRef {
  ref: string;
  qty: number;
  /** JSON text of an object: attribute name → array of strings. */
  cattrs?: string;
  /** Base64(IV ‖ AES-256-GCM(SEP.CD:KS, AAD = cid:ref, SHA-256(cattrs)) ‖ tag). */
  csig?: string;
  /** v2.4: the key's first mutable attributes, JSON text. */
  mattrs?: string;
  /** v2.4: as csig over mattrs, AAD = cid:m:ref. */
  msig?: string;
}

export interface CreateData {
  'protection-keys': CreateRef[];
}

/** A query by attribute: `{"ionic-external-id": "x", "qty": 2}` (qty bounds the ids found). */
export type KeyQuery = Record<string, string | string[] | number>;

export interface FetchData {
  'protection-keys': string[];
  /** Queries by name: the Java SDK names them by external id, the Python samples `qref<k>`. */
  'protection-key-queries'?: Record<string, KeyQuery>;
}

/** One change of a v2.4 modify. */
export interface ModifyItem {
  id: string;
  /** Replace without the stale guard. */
  force?: boolean;
  /** Always empty: fixed attributes cannot change (the Java SDK sends `""`, the JS SDK nothing). */
  csig?: string;
  /** The key's `csig` and `msig` as last fetched (empty or absent when forced). */
  prevcsig?: string;
  prevmsig?: string;
  /** JSON text of the new mutable attributes. */
  mattrs: string;
  /** Base64(IV ‖ AES-256-GCM(SEP.CD:KS, AAD = cid:m:id[:force], SHA-256(mattrs)) ‖ tag). */
  msig: string;
}

export interface ModifyData {
  'protection-keys': ModifyItem[];
}

export interface CreatedKeyWire {
  ref: string;
  id: string;
  /** Lowercase hex(IV ‖ AES-256-GCM(SEP.CD:KS, AAD = dialects.createdKeyAad, data key) ‖ tag). */
  key: string;
  /** HMAC-SHA256(data key, cattrs as stored), Base64: what a fetch answers. */
  csig: string;
  /** HMAC-SHA256(data key, mattrs as stored), Base64. */
  msig: string;
}

/** A key as fetch answers it. */
export interface FetchedKeyWire {
  id: string;
  /** Lowercase hex(IV ‖ AES-256-GCM(SEP.CD:KS, AAD = dialects.fetchedKeyAad, data key) ‖ tag). */
  key: string;
  cattrs: string;
  /** HMAC-SHA256(data key, cattrs), Base64. */
  csig: string;
  /** `{}` for a key never given mutable attributes. */
  mattrs: string;
  /** HMAC-SHA256(data key, mattrs), Base64. */
  msig: string;
}

/** A key as a v2.4 modify answers it. */
export interface ModifiedKeyWire {
  id: string;
  /** The key's signatures after the change (as a fetch would answer them). */
  csig: string;
  msig: string;
  /** dialects.modifySigs over the values the request sent. */
  sigs: string;
}

export interface ItemErrorWire {
  code: number;
  message: string;
}

/**
 * What the answer envelope holds. `error` is one error for the whole request (`{code,
 * message}`), or, in v2.3, the per-key errors of a fetch keyed by id; v2.4 puts those in
 * `data.errorMap`.
 */
export interface AnswerContent<D> {
  data: D;
  error?: ItemErrorWire | Record<string, ItemErrorWire>;
}

export interface CreateAnswerData {
  'protection-keys': CreatedKeyWire[];
}

export interface FetchAnswerData {
  'protection-keys': FetchedKeyWire[];
  'query-results'?: Record<string, { ids?: string[]; error?: ItemErrorWire }>;
  errorMap?: Record<string, ItemErrorWire>;
}

export interface ModifyAnswerData {
  'protection-keys': ModifiedKeyWire[];
  errorMap?: Record<string, ItemErrorWire>;
}

/** `/v2.4/resources`: the request's data and the answer's. Every member is a string. */
export interface ResourcesData {
  requests: { id: string; resource: string; args?: string }[];
}
export interface ResourcesAnswerData {
  responses: { id: string; data: string; error: string }[];
}

/** `/v2.4/messages`: the request's data is a list; the answer envelope holds exactly `{}`. */
export type MessagesData = { data: Record<string, unknown>; message_type: string }[];

/** One key as `GET /_mock/keys` lists it: no key material. */
export interface MockKeyListing {
  id: string;
  tenant: string;
  deviceId: string;
  ref: string;
  cattrs: Record<string, string[]>;
  mattrs?: Record<string, string[]>;
  /** ISO 8601. */
  createdAt: string;
  modifiedAt?: string;
}

/** One message as `GET /_mock/messages` lists it. */
export interface MockDeviceMessage {
  /** ISO 8601, when the mock received it. */
  time: string;
  deviceId: string;
  type: string;
  data: Record<string, unknown>;
}

export interface MockDeviceMessages {
  /** Messages received since the mock started or was reset (older ones may be dropped). */
  total: number;
  messages: MockDeviceMessage[];
}

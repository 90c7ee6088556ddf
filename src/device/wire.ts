/**
 * Wire types of the device request format (docs/design.md 2.4), defined once for ksctl and the mock.
 * Member names are the service's (`protection-keys`, `cattrs`, …), hence the quoted keys.
 */

/** The API paths of key requests, relative to the profile's `server`. */
export const KEY_PATHS = {
  create: ['/v2.3/keys/create', '/v2.4/keys/create'],
  fetch: ['/v2.3/keys/fetch', '/v2.4/keys/fetch'],
  modify: ['/v2.4/keys/modify'],
} as const;

/** The newest path of each operation: what ksctl calls. */
export const KEY_PATH = {
  create: '/v2.4/keys/create',
  fetch: '/v2.4/keys/fetch',
  modify: '/v2.4/keys/modify',
} as const;

/** HTTP body of a request and of its answer. */
export interface DeviceRequestBody {
  cid: string;
  /** Base64(IV ‖ AES-256-GCM(SEP.CD:IDC, AAD = cid, JSON) ‖ tag). */
  envelope: string;
}

export interface EnvelopeMeta {
  /** Hash of the device fingerprint the service may already know. */
  hfphash: string;
  /** The full fingerprint, sent after error 4001. */
  hfp?: string;
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
}

export interface CreateData {
  'protection-keys': CreateRef[];
}

export interface FetchData {
  'protection-keys': string[];
  /** Queries by attribute, e.g. `{"qref0": {"ionic-external-id": "x"}}`. */
  'protection-key-queries'?: Record<string, Record<string, string | string[]>>;
}

export interface ModifyItem {
  id: string;
  /** JSON text of the new mutable attributes. */
  mattrs: string;
  /** Base64(IV ‖ AES-256-GCM(SEP.CD:KS, AAD = cid:id, SHA-256(mattrs)) ‖ tag). */
  msig: string;
  /** The key's signature as last fetched: its `msig`, or its `csig` before any modify. */
  prevmsig: string;
}

export interface ModifyData {
  'protection-keys': ModifyItem[];
}

export interface CreatedKeyWire {
  ref: string;
  id: string;
  /** hex(IV ‖ AES-256-GCM(SEP.CD:KS, AAD = cid:ref:id[:csig], data key) ‖ tag). */
  key: string;
}

/** A key as fetch and modify answer it. */
export interface FetchedKeyWire {
  id: string;
  /** hex(IV ‖ AES-256-GCM(SEP.CD:KS, AAD = cid:id[:csig], data key) ‖ tag). */
  key: string;
  cattrs: string;
  /** HMAC-SHA256(data key, cattrs), Base64. */
  csig: string;
  mattrs?: string;
  /** HMAC-SHA256(data key, mattrs), Base64. */
  msig?: string;
}

export interface ItemErrorWire {
  code: number;
  message: string;
}

/**
 * What the answer envelope holds. `error` is either one error for the whole request
 * (`{code, message}`, e.g. 4001) or errors keyed by ref or key id.
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
  'query-results'?: Record<string, { ids: string[] }>;
}

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

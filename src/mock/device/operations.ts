/**
 * What create, fetch, modify, resources and messages do with a verified request (docs/design.md 2.4,
 * spec/device-requests-sdks.md), in either dialect. Each returns the answer envelope's content,
 * or undefined when `data` does not have the operation's shape (the route answers 40023).
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { ApiVersion } from '../../device/cid.js';
import { DeviceErrorCode, deviceCause } from '../../device/causes.js';
import {
  checkAttributeSignature,
  DATA_KEY_BYTES,
  serviceSignature,
  wrapDataKey,
} from '../../device/crypto.js';
import {
  createdKeyAad,
  createSignatureAad,
  fetchedKeyAad,
  modifySignatureAad,
  modifySigs,
  modifySigsText,
} from '../../device/dialects.js';
import type {
  CreatedKeyWire,
  FetchedKeyWire,
  ItemErrorWire,
  MockDeviceMessage,
  ModifiedKeyWire,
} from '../../device/wire.js';
import { isJsonObject } from '../../encoding/json.js';
import type { DeviceKeys, DeviceRecord } from '../enrollment/store.js';
import type { MockState } from '../state.js';
import {
  type Attributes,
  enforceMarkings,
  ItemFailure,
  openProtected,
  parseAttributes,
  sealForKey,
  withMarkingDefaults,
} from './attributes.js';
import type { StoredKey } from './store.js';

/** A request whose envelope opened, from a device the mock enrolled. */
export interface DeviceRequest {
  state: MockState;
  version: ApiVersion;
  cid: string;
  device: DeviceRecord;
  keys: DeviceKeys;
  /** The envelope's `data`, as sent: anything. */
  data: unknown;
  now: number;
}

/** The answer envelope's content, or undefined for data of the wrong shape. */
export type Operation = (req: DeviceRequest) => Record<string, unknown> | undefined;

/** An item failure worded as the cause table words it. */
function failure(code: number, message = deviceCause(code)!.message): ItemFailure {
  return new ItemFailure(code, message);
}

/** Items per request and keys per ref: bounds, so one request cannot exhaust the mock. */
export const MAX_ITEMS = 1000;
export const MAX_QTY = 1000;
/** Keys one create makes at most, over all its refs. */
export const MAX_KEYS_PER_CREATE = 10_000;
/**
 * What one fetch may cost at most (issue 17): the mock answers one request at a time, so these
 * keep a fetch within tens of milliseconds and a few megabytes, and `/_mock/health` answers
 * meanwhile. Beyond them the fetch is refused as a whole (40024), before the work is done.
 */
export const REQUEST_BOUNDS = {
  /** Query terms a fetch compares: its queries times the keys of the device's tenant. */
  queryChecks: 1_000_000,
  /** Keys in one fetch answer, by id and by query together. */
  answerKeys: 5_000,
  /** Key ids in one fetch answer's query results, all queries together. */
  queryResultIds: 100_000,
} as const;

/** A request refused as a whole for asking more than REQUEST_BOUNDS allows. */
export class RequestTooLarge extends Error {}

function answerTooLarge(what: 'keys' | 'key ids in query results'): RequestTooLarge {
  const most = what === 'keys' ? REQUEST_BOUNDS.answerKeys : REQUEST_BOUNDS.queryResultIds;
  return new RequestTooLarge(
    `the answer would hold more than ${most} ${what}, the most one fetch answers: narrow the queries or send them in parts`,
  );
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ID_SUFFIX_LENGTH = 7;
const EMPTY_ATTRIBUTES = '{}';

function items(data: unknown, member = 'protection-keys'): unknown[] | undefined {
  const list = isJsonObject(data) ? data[member] : undefined;
  return Array.isArray(list) && list.length <= MAX_ITEMS ? list : undefined;
}

/**
 * Items that are objects named by a unique string member (`ref` on create, `id` on modify), as
 * [name, item] pairs in request order; undefined when the list is not so.
 */
function namedItems(
  data: unknown,
  member: 'ref' | 'id',
): [string, Record<string, unknown>][] | undefined {
  const list = items(data);
  if (!list?.every((item) => isJsonObject(item) && typeof item[member] === 'string')) {
    return undefined;
  }
  const named = (list as Record<string, unknown>[]).map(
    (item): [string, Record<string, unknown>] => [item[member] as string, item],
  );
  return new Set(named.map(([name]) => name)).size === named.length ? named : undefined;
}

/** Runs one item; its failure becomes that item's error. */
function attempt(errors: Map<string, ItemErrorWire>, key: string, work: () => void): void {
  try {
    work();
  } catch (error) {
    if (!(error instanceof ItemFailure)) throw error;
    errors.set(key, error.wire());
  }
}

/** Per-key errors where the dialect puts them: `data.errorMap` (v2.4) or the inner `error`. */
function withItemErrors(
  req: DeviceRequest,
  data: Record<string, unknown>,
  errors: Map<string, ItemErrorWire>,
): Record<string, unknown> {
  if (errors.size === 0) return { data };
  const map = Object.fromEntries(errors);
  return req.version === '2.3' ? { data, error: map } : { data: { ...data, errorMap: map } };
}

function markingsOf(req: DeviceRequest) {
  return req.state.tenant(req.device.tenant)?.markings;
}

function newKeyId(req: DeviceRequest): string {
  for (;;) {
    let id = req.device.keyspace;
    for (let i = 0; i < ID_SUFFIX_LENGTH; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
    if (!req.state.keys.has(id)) return id;
  }
}

/** An optional string member; anything else fails the item. */
function optionalString(item: Record<string, unknown>, member: string): string | undefined {
  const value = item[member];
  if (value === undefined || typeof value === 'string') return value;
  throw new ItemFailure(DeviceErrorCode.itemInvalid, `${member} must be a string`);
}

/** Checks a client's signature of an attribute text, when it sent one. */
function verifySignature(
  req: DeviceRequest,
  aadText: string,
  text: string | undefined,
  signature: string | undefined,
  member: string,
): void {
  if (signature === undefined) return;
  if (text === undefined) {
    throw new ItemFailure(DeviceErrorCode.itemInvalid, `${member} must come with the attributes`);
  }
  if (!checkAttributeSignature(req.keys.cdEi, aadText, text, signature)) {
    throw failure(
      DeviceErrorCode.signatureInvalid,
      `${member} does not verify with the device's SEP.CD:KS key`,
    );
  }
}

interface CreatePlan {
  ref: string;
  qty: number;
  csig?: string;
  msig?: string;
  /** Opened attributes: protected values in the clear until sealed for each key. */
  fixed: Attributes;
  mutable: Attributes;
}

/** One create ref checked, nothing stored yet. */
function planCreate(req: DeviceRequest, ref: string, item: Record<string, unknown>): CreatePlan {
  const { qty } = item;
  if (!(Number.isInteger(qty) && (qty as number) >= 1 && (qty as number) <= MAX_QTY)) {
    throw new ItemFailure(
      DeviceErrorCode.itemInvalid,
      `qty must be a whole number from 1 to ${MAX_QTY}`,
    );
  }
  if (ref === '') throw new ItemFailure(DeviceErrorCode.itemInvalid, 'ref must not be empty');
  const cattrs = optionalString(item, 'cattrs');
  const mattrs = optionalString(item, 'mattrs');
  const csig = optionalString(item, 'csig');
  const msig = optionalString(item, 'msig');
  verifySignature(req, createSignatureAad(req.cid, ref, false), cattrs, csig, 'csig');
  verifySignature(req, createSignatureAad(req.cid, ref, true), mattrs, msig, 'msig');
  const markings = markingsOf(req);
  const sentFixed = cattrs === undefined ? {} : parseAttributes(cattrs, 'cattrs');
  const mutable = mattrs === undefined ? {} : parseAttributes(mattrs, 'mattrs');
  enforceMarkings(sentFixed, markings);
  enforceMarkings(mutable, markings);
  const fixed = withMarkingDefaults(sentFixed, markings, mutable);
  return {
    ref,
    qty: qty as number,
    csig,
    msig,
    fixed: openProtected(fixed, req.keys.cdEi),
    mutable: openProtected(mutable, req.keys.cdEi),
  };
}

/** The one error of a create some refs of which failed: the first one's code, every ref named. */
function createError(failures: [string, ItemFailure][]): ItemErrorWire {
  const [[ref, first]] = failures as [[string, ItemFailure]];
  if (failures.length === 1) return { code: first.code, message: `ref "${ref}": ${first.message}` };
  const all = failures.map(([r, f]) => `ref "${r}": ${f.message} (${f.code})`).join('; ');
  return { code: first.code, message: `${failures.length} refs refused, nothing created: ${all}` };
}

/**
 * Create: every ref is checked first; if one fails, nothing is created and the answer is one
 * top-level error naming the refs (no SDK reads per-ref errors of a create).
 */
export const createKeys: Operation = (req) => {
  const list = namedItems(req.data, 'ref');
  if (!list) return undefined;
  const plans: CreatePlan[] = [];
  const failures: [string, ItemFailure][] = [];
  for (const [ref, item] of list) {
    try {
      plans.push(planCreate(req, ref, item));
    } catch (error) {
      if (!(error instanceof ItemFailure)) throw error;
      failures.push([ref, error]);
    }
  }
  if (failures.length > 0) return { data: {}, error: createError(failures) };
  const total = plans.reduce((sum, plan) => sum + plan.qty, 0);
  if (total > MAX_KEYS_PER_CREATE) {
    const message = `a create may make at most ${MAX_KEYS_PER_CREATE} keys, not ${total}: nothing created`;
    return { data: {}, error: { code: DeviceErrorCode.itemInvalid, message } };
  }

  const created: CreatedKeyWire[] = [];
  for (const plan of plans) {
    const keys = Array.from({ length: plan.qty }, () => newKey(req, plan));
    req.state.keys.create(keys.map((k) => k.stored));
    for (const { stored, dataKey } of keys) {
      const keyAad = createdKeyAad(req.version, req.cid, plan.ref, stored.id, plan.csig, plan.msig);
      created.push({
        ref: plan.ref,
        id: stored.id,
        key: wrapDataKey(req.keys.cdEi, keyAad, dataKey),
        csig: stored.csig,
        msig: stored.msig!,
      });
    }
  }
  return { data: { 'protection-keys': created } };
};

function newKey(req: DeviceRequest, plan: CreatePlan): { stored: StoredKey; dataKey: Buffer } {
  const id = newKeyId(req);
  const dataKey = randomBytes(DATA_KEY_BYTES);
  const cattrs = JSON.stringify(sealForKey(plan.fixed, dataKey, id));
  const mattrs = JSON.stringify(sealForKey(plan.mutable, dataKey, id));
  return {
    dataKey,
    stored: {
      id,
      tenant: req.device.tenant,
      deviceId: req.device.deviceId,
      ref: plan.ref,
      key: dataKey.toString('hex'),
      cattrs,
      csig: serviceSignature(dataKey, cattrs),
      mattrs,
      msig: serviceSignature(dataKey, mattrs),
      createdAt: req.now,
    },
  };
}

/** A key's current signatures: what a fetch answers and a guarded modify must quote. */
function currentState(key: StoredKey): { mattrs: string; csig: string; msig: string } {
  const mattrs = key.mattrs ?? EMPTY_ATTRIBUTES;
  const msig = key.msig ?? serviceSignature(Buffer.from(key.key, 'hex'), mattrs);
  return { mattrs, csig: key.csig, msig };
}

/** A key as fetch answers it, its data key sealed for this conversation. */
function fetchedKey(req: DeviceRequest, key: StoredKey): FetchedKeyWire {
  const dataKey = Buffer.from(key.key, 'hex');
  const { mattrs, csig, msig } = currentState(key);
  const keyAad = fetchedKeyAad(req.version, req.cid, key.id, csig, msig);
  return {
    id: key.id,
    key: wrapDataKey(req.keys.cdEi, keyAad, dataKey),
    cattrs: key.cattrs,
    csig,
    mattrs,
    msig,
  };
}

/** The key, if the device's tenant may use it. */
function usableKey(req: DeviceRequest, id: string): StoredKey {
  const key = req.state.keys.get(id);
  if (!key) throw failure(DeviceErrorCode.keyNotFound);
  if (key.tenant !== req.device.tenant) throw failure(DeviceErrorCode.keyOfOtherTenant);
  return key;
}

type Query = { attributes: [string, string[]][]; qty?: number };

/**
 * A query by attributes, `{"ionic-external-id": "x", "qty": 2}`: every other member an attribute
 * name with one value or a list; `qty` a positive whole number. Undefined when malformed.
 */
function parseQuery(value: unknown): Query | undefined {
  if (!isJsonObject(value)) return undefined;
  const query: Query = { attributes: [] };
  for (const [name, wanted] of Object.entries(value)) {
    if (name === 'qty') {
      if (!Number.isInteger(wanted) || (wanted as number) < 1) return undefined;
      query.qty = wanted as number;
    } else if (typeof wanted === 'string') query.attributes.push([name, [wanted]]);
    else if (Array.isArray(wanted) && wanted.every((w) => typeof w === 'string')) {
      query.attributes.push([name, wanted]);
    } else return undefined;
  }
  return query;
}

/**
 * A key's attribute values, kept per key while its attribute texts stay the same: a fetch reads
 * every key of the tenant, and parsing them all again for each fetch was most of its work.
 */
const knownValues = new WeakMap<
  StoredKey,
  { cattrs: string; mattrs: string | undefined; values: Map<string, string[]> }
>();

/** A key's attribute values by name, fixed and mutable together. */
function valuesOf(key: StoredKey): Map<string, string[]> {
  const known = knownValues.get(key);
  if (known && known.cattrs === key.cattrs && known.mattrs === key.mattrs) return known.values;
  const values = readValues(key);
  knownValues.set(key, { cattrs: key.cattrs, mattrs: key.mattrs, values });
  return values;
}

function readValues(key: StoredKey): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const text of [key.cattrs, key.mattrs ?? EMPTY_ATTRIBUTES]) {
    for (const [name, list] of Object.entries(JSON.parse(text) as Attributes)) {
      values.set(name, [...(values.get(name) ?? []), ...list]);
    }
  }
  return values;
}

/** Every attribute of the query has one of its values on the key. */
function matchesQuery(values: Map<string, string[]>, query: Query): boolean {
  return query.attributes.every(([name, wanted]) => {
    const have = values.get(name) ?? [];
    return wanted.some((value) => have.includes(value));
  });
}

export const fetchKeys: Operation = (req) => {
  const list = items(req.data);
  if (!list || !list.every((id) => typeof id === 'string')) return undefined;
  const rawQueries = isJsonObject(req.data) ? req.data['protection-key-queries'] : undefined;
  let queries: [string, Query][] = [];
  if (rawQueries !== undefined) {
    if (!isJsonObject(rawQueries) || Object.keys(rawQueries).length > MAX_ITEMS) return undefined;
    const parsed = Object.entries(rawQueries).map(([name, q]) => [name, parseQuery(q)] as const);
    if (parsed.some(([, q]) => q === undefined)) return undefined;
    queries = parsed as [string, Query][];
  }

  const found = new Map<string, FetchedKeyWire>();
  const errors = new Map<string, ItemErrorWire>();
  for (const id of list as string[]) {
    attempt(errors, id, () => found.set(id, fetchedKey(req, usableKey(req, id))));
  }
  const data: Record<string, unknown> = {};
  if (rawQueries !== undefined) {
    const results: Record<string, { ids: string[] }> = {};
    // Each candidate's attributes are read once, whatever the number of queries.
    const candidates = queries.length === 0 ? [] : req.state.keys.ofTenant(req.device.tenant);
    const checks = queries.length * candidates.length;
    if (checks > REQUEST_BOUNDS.queryChecks) {
      throw new RequestTooLarge(
        `the queries would compare ${checks} keys (${queries.length} queries × ${candidates.length} keys); a fetch compares at most ${REQUEST_BOUNDS.queryChecks}: send fewer queries at a time`,
      );
    }
    const values = candidates.map((key) => [key, valuesOf(key)] as const);
    const matched = new Map<string, StoredKey>();
    let ids = 0;
    for (const [name, query] of queries) {
      const matches = values
        .filter(([, v]) => matchesQuery(v, query))
        .map(([key]) => key)
        .slice(0, query.qty ?? MAX_ITEMS);
      ids += matches.length;
      if (ids > REQUEST_BOUNDS.queryResultIds) throw answerTooLarge('key ids in query results');
      // Counted before any key is sealed: a refusal costs the scan, not the answer.
      for (const key of matches) {
        if (found.has(key.id) || matched.has(key.id)) continue;
        if (found.size + matched.size >= REQUEST_BOUNDS.answerKeys) throw answerTooLarge('keys');
        matched.set(key.id, key);
      }
      results[name] = { ids: matches.map((key) => key.id) };
    }
    for (const [id, key] of matched) found.set(id, fetchedKey(req, key));
    data['query-results'] = results;
  }
  data['protection-keys'] = [...found.values()];
  return withItemErrors(req, data, errors);
};

/** Why a guarded modify is stale: which of the key's signatures moved, and when. */
function staleMessage(
  key: StoredKey,
  current: { csig: string; msig: string },
  sent: {
    prevcsig?: string;
    prevmsig?: string;
  },
): string {
  const moved: string[] = [];
  if (sent.prevcsig !== current.csig) moved.push('prevcsig is not its csig (fixed attributes)');
  if (sent.prevmsig !== current.msig) moved.push('prevmsig is not its msig (mutable attributes)');
  const when =
    key.modifiedAt === undefined
      ? ''
      : `; its mutable attributes were last changed at ${new Date(key.modifiedAt).toISOString()}`;
  return `the key changed since it was fetched, or was never fetched: ${moved.join(', ')}${when}`;
}

/**
 * Modify (v2.4): replaces each key's mutable attributes. A guarded item (`force` false) must quote
 * the key's current signatures as `prevcsig`/`prevmsig`, else it fails with 4202. Answers keep the
 * request's order (the JS SDK matches them by index).
 */
export const modifyKeys: Operation = (req) => {
  const list = namedItems(req.data, 'id');
  if (!list) return undefined;
  const modified: ModifiedKeyWire[] = [];
  const errors = new Map<string, ItemErrorWire>();
  for (const [id, item] of list) {
    attempt(errors, id, () => {
      const { mattrs, msig, force = false } = item;
      if (typeof mattrs !== 'string' || typeof msig !== 'string' || typeof force !== 'boolean') {
        throw new ItemFailure(
          DeviceErrorCode.itemInvalid,
          'mattrs and msig must be strings, force true or false',
        );
      }
      const csig = optionalString(item, 'csig');
      const prevcsig = optionalString(item, 'prevcsig');
      const prevmsig = optionalString(item, 'prevmsig');
      if (csig !== undefined && csig !== '') {
        throw new ItemFailure(
          DeviceErrorCode.itemInvalid,
          'csig must be empty: a modify changes only mutable attributes',
        );
      }
      const key = usableKey(req, id);
      verifySignature(req, modifySignatureAad(req.cid, id, force), mattrs, msig, 'msig');
      const current = currentState(key);
      if (!force && (prevcsig !== current.csig || prevmsig !== current.msig)) {
        throw failure(DeviceErrorCode.signatureStale, staleMessage(key, current, item));
      }
      const attributes = parseAttributes(mattrs, 'mattrs');
      enforceMarkings(attributes, markingsOf(req));
      const dataKey = Buffer.from(key.key, 'hex');
      const text = JSON.stringify(
        sealForKey(openProtected(attributes, req.keys.cdEi), dataKey, id),
      );
      const after = req.state.keys.modify(id, {
        mattrs: text,
        msig: serviceSignature(dataKey, text),
        modifiedAt: req.now,
      });
      const sigsText = modifySigsText(id, { prevcsig, csig, prevmsig, msig });
      modified.push({
        id,
        csig: after.csig,
        msig: after.msig!,
        sigs: modifySigs(req.keys.cdEi, sigsText),
      });
    });
  }
  return withItemErrors(req, { 'protection-keys': modified }, errors);
};

/**
 * `/v2.4/resources`: each request answered in order. The mock knows no resources, so each answer
 * names the unknown resource in `error` (the SDK reads `id`, `data` and `error` as strings).
 */
export const resources: Operation = (req) => {
  const list = items(req.data, 'requests');
  const valid = list?.every(
    (r) =>
      isJsonObject(r) &&
      typeof r.id === 'string' &&
      typeof r.resource === 'string' &&
      (r.args === undefined || typeof r.args === 'string'),
  );
  if (!list || !valid) return undefined;
  const responses = (list as { id: string; resource: string }[]).map((r) => ({
    id: r.id,
    data: '',
    error: `unknown resource ${JSON.stringify(r.resource)}: this service serves none`,
  }));
  return { data: { responses } };
};

/**
 * `/v2.4/messages`: a list of `{data: {…}, message_type}`, kept for `GET /_mock/messages`. The
 * answer envelope holds exactly `{}` (the Java SDK checks that it is empty).
 */
export const logMessages: Operation = (req) => {
  const list = req.data;
  if (!Array.isArray(list) || list.length > MAX_ITEMS) return undefined;
  const valid = list.every(
    (m) => isJsonObject(m) && isJsonObject(m.data) && typeof m.message_type === 'string',
  );
  if (!valid) return undefined;
  const time = new Date(req.now).toISOString();
  req.state.deviceMessages.add(
    (list as { data: Record<string, unknown>; message_type: string }[]).map(
      (m): MockDeviceMessage => ({
        time,
        deviceId: req.device.deviceId,
        type: m.message_type,
        data: m.data,
      }),
    ),
  );
  return {};
};

/**
 * What create, fetch and modify do with a verified request (docs/design.md 2.4). Each returns the
 * answer's `data` and the item errors keyed by ref or key id, or undefined when `data` does not
 * have the operation's shape (the route answers 40023).
 */
import { randomBytes, randomInt } from 'node:crypto';
import { DeviceErrorCode, deviceCause } from '../../device/causes.js';
import {
  aad,
  checkAttributeSignature,
  DATA_KEY_BYTES,
  serviceSignature,
  wrapDataKey,
} from '../../device/crypto.js';
import type { CreatedKeyWire, FetchedKeyWire, ItemErrorWire } from '../../device/wire.js';
import { isJsonObject } from '../../encoding/json.js';
import {
  type Attributes,
  enforceMarkings,
  ItemFailure,
  parseAttributes,
  resealProtected,
  withMarkingDefaults,
} from './attributes.js';
import type { DeviceKeys, DeviceRecord } from '../enrollment/store.js';
import type { MockState } from '../state.js';
import type { StoredKey } from './store.js';

/** A device request whose envelope the route has opened and checked: what an operation acts on. */
export interface DeviceRequest {
  state: MockState;
  cid: string;
  device: DeviceRecord;
  keys: DeviceKeys;
  data: Record<string, unknown>;
  now: number;
}

export type Operation = (
  req: DeviceRequest,
) => { data: Record<string, unknown>; errors: Record<string, ItemErrorWire> } | undefined;

/** An item failure worded as the cause table words it. */
function failure(code: number): ItemFailure {
  return new ItemFailure(code, deviceCause(code)!.message);
}

/** Items per request and keys per ref: bounds, so one request cannot exhaust the mock. */
export const MAX_ITEMS = 1000;
export const MAX_QTY = 1000;

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ID_SUFFIX_LENGTH = 7;

function items(data: Record<string, unknown>): unknown[] | undefined {
  const list = data['protection-keys'];
  return Array.isArray(list) && list.length <= MAX_ITEMS ? list : undefined;
}

/**
 * Items that are objects named by a unique string member (`ref` on create, `id` on modify), as
 * [name, item] pairs; undefined when the list is not so (errors are keyed by that name).
 */
function namedItems(
  data: Record<string, unknown>,
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
function attempt(errors: Record<string, ItemErrorWire>, key: string, work: () => void): void {
  try {
    work();
  } catch (error) {
    if (!(error instanceof ItemFailure)) throw error;
    errors[key] = error.wire();
  }
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

export const createKeys: Operation = (req) => {
  const list = namedItems(req.data, 'ref');
  if (!list) return undefined;
  const created: CreatedKeyWire[] = [];
  const errors: Record<string, ItemErrorWire> = {};
  for (const [ref, item] of list) {
    attempt(errors, ref, () => {
      const { qty, cattrs, csig } = item;
      if (!(Number.isInteger(qty) && (qty as number) >= 1 && (qty as number) <= MAX_QTY)) {
        throw new ItemFailure(
          DeviceErrorCode.itemInvalid,
          `qty must be a whole number from 1 to ${MAX_QTY}`,
        );
      }
      if (ref === '') throw new ItemFailure(DeviceErrorCode.itemInvalid, 'ref must not be empty');
      if (cattrs !== undefined && typeof cattrs !== 'string') {
        throw new ItemFailure(DeviceErrorCode.itemInvalid, 'cattrs must be a JSON text');
      }
      if (csig !== undefined && (typeof csig !== 'string' || cattrs === undefined)) {
        throw new ItemFailure(
          DeviceErrorCode.itemInvalid,
          'csig must be a string and come with cattrs',
        );
      }
      if (
        csig !== undefined &&
        !checkAttributeSignature(req.keys.cdEi, aad(req.cid, ref), cattrs as string, csig)
      ) {
        throw failure(DeviceErrorCode.signatureInvalid);
      }
      const sent = cattrs === undefined ? {} : parseAttributes(cattrs, 'cattrs');
      const markings = markingsOf(req);
      enforceMarkings(sent, markings);
      const attributes = withMarkingDefaults(sent, markings);
      const keys = Array.from({ length: qty as number }, () => newKey(req, ref, attributes));
      req.state.keys.create(keys.map((k) => k.stored));
      for (const { stored, dataKey } of keys) {
        const keyAad =
          csig === undefined ? aad(req.cid, ref, stored.id) : aad(req.cid, ref, stored.id, csig);
        created.push({ ref, id: stored.id, key: wrapDataKey(req.keys.cdEi, keyAad, dataKey) });
      }
    });
  }
  return { data: { 'protection-keys': created }, errors };
};

function newKey(
  req: DeviceRequest,
  ref: string,
  attributes: Attributes,
): { stored: StoredKey; dataKey: Buffer } {
  const id = newKeyId(req);
  const dataKey = randomBytes(DATA_KEY_BYTES);
  const cattrs = JSON.stringify(resealProtected(attributes, req.keys.cdEi, dataKey, id));
  return {
    dataKey,
    stored: {
      id,
      tenant: req.device.tenant,
      deviceId: req.device.deviceId,
      ref,
      key: dataKey.toString('hex'),
      cattrs,
      csig: serviceSignature(dataKey, cattrs),
      createdAt: req.now,
    },
  };
}

/** A key as fetch and modify answer it, its data key sealed for this conversation. */
function fetchedKey(req: DeviceRequest, key: StoredKey): FetchedKeyWire {
  const dataKey = Buffer.from(key.key, 'hex');
  return {
    id: key.id,
    key: wrapDataKey(req.keys.cdEi, aad(req.cid, key.id, key.csig), dataKey),
    cattrs: key.cattrs,
    csig: key.csig,
    ...(key.mattrs === undefined ? {} : { mattrs: key.mattrs, msig: key.msig }),
  };
}

/** The key, if the device's tenant may use it. */
function usableKey(req: DeviceRequest, id: string): StoredKey {
  const key = req.state.keys.get(id);
  if (!key) throw failure(DeviceErrorCode.keyNotFound);
  if (key.tenant !== req.device.tenant) {
    throw failure(DeviceErrorCode.keyOfOtherTenant);
  }
  return key;
}

export const fetchKeys: Operation = (req) => {
  const list = items(req.data);
  const queries = req.data['protection-key-queries'];
  if (!list || !list.every((id) => typeof id === 'string')) return undefined;
  if (queries !== undefined && !isQueries(queries)) return undefined;

  const found = new Map<string, FetchedKeyWire>();
  const errors: Record<string, ItemErrorWire> = {};
  for (const id of list as string[]) {
    attempt(errors, id, () => found.set(id, fetchedKey(req, usableKey(req, id))));
  }
  const data: Record<string, unknown> = {};
  if (queries !== undefined) {
    const results: Record<string, { ids: string[] }> = {};
    const candidates = req.state.keys.ofTenant(req.device.tenant);
    for (const [qref, query] of Object.entries(queries)) {
      const matches = candidates.filter((key) => matchesQuery(key, query));
      for (const key of matches) if (!found.has(key.id)) found.set(key.id, fetchedKey(req, key));
      results[qref] = { ids: matches.map((key) => key.id) };
    }
    data['query-results'] = results;
  }
  data['protection-keys'] = [...found.values()];
  return { data, errors };
};

type Query = Record<string, string | string[]>;

function isQueries(value: unknown): value is Record<string, Query> {
  return (
    isJsonObject(value) &&
    Object.keys(value).length <= MAX_ITEMS &&
    Object.values(value).every(
      (query) =>
        isJsonObject(query) &&
        Object.values(query).every(
          (v) =>
            typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string')),
        ),
    )
  );
}

/** Every attribute of the query has one of the given values on the key. */
function matchesQuery(key: StoredKey, query: Query): boolean {
  const attributes = JSON.parse(key.cattrs) as Attributes;
  return Object.entries(query).every(([name, wanted]) => {
    const have = attributes[name] ?? [];
    return (Array.isArray(wanted) ? wanted : [wanted]).some((value) => have.includes(value));
  });
}

export const modifyKeys: Operation = (req) => {
  const list = namedItems(req.data, 'id');
  if (!list) return undefined;
  const modified: FetchedKeyWire[] = [];
  const errors: Record<string, ItemErrorWire> = {};
  for (const [id, item] of list) {
    attempt(errors, id, () => {
      const { mattrs, msig, prevmsig } = item;
      if (typeof mattrs !== 'string' || typeof msig !== 'string' || typeof prevmsig !== 'string') {
        throw new ItemFailure(
          DeviceErrorCode.itemInvalid,
          'mattrs, msig and prevmsig must be strings',
        );
      }
      const key = usableKey(req, id);
      if (!checkAttributeSignature(req.keys.cdEi, aad(req.cid, id), mattrs, msig)) {
        throw failure(DeviceErrorCode.signatureInvalid);
      }
      if (prevmsig !== (key.msig ?? key.csig)) {
        throw failure(DeviceErrorCode.signatureStale);
      }
      const attributes = parseAttributes(mattrs, 'mattrs');
      enforceMarkings(attributes, markingsOf(req));
      const dataKey = Buffer.from(key.key, 'hex');
      const text = JSON.stringify(resealProtected(attributes, req.keys.cdEi, dataKey, id));
      const after = req.state.keys.modify(id, {
        mattrs: text,
        msig: serviceSignature(dataKey, text),
        modifiedAt: req.now,
      });
      modified.push(fetchedKey(req, after));
    });
  }
  return { data: { 'protection-keys': modified }, errors };
};

/**
 * Fetch (docs/design.md 2.4): keys by id and by attribute queries, each sealed for the
 * conversation, within REQUEST_BOUNDS (a fetch that would pass them is refused before the work).
 */
import { fetchedKeyAad } from '../../../common/device/dialects.js';
import { asStringList, wrapDataKey } from '../../../common/device/crypto.js';
import type { FetchedKeyWire, ItemErrorWire } from '../../../common/device/wire.js';
import { isJsonObject } from '../../../common/encoding/json.js';
import type { Attributes } from '../../model/device/attributes.js';
import {
  attempt,
  currentState,
  type DeviceRequest,
  EMPTY_ATTRIBUTES,
  injectedErrors,
  items,
  MAX_ITEMS,
  type Operation,
  REQUEST_BOUNDS,
  RequestTooLarge,
  usableKey,
  withItemErrors,
} from './operations.js';
import { Pacer } from '../../kit/pacing.js';
import type { StoredKey } from '../../model/device/store.js';

function answerTooLarge(what: 'keys' | 'key ids in query results'): RequestTooLarge {
  const most = what === 'keys' ? REQUEST_BOUNDS.answerKeys : REQUEST_BOUNDS.queryResultIds;
  return new RequestTooLarge(
    `the answer would hold more than ${most} ${what}, the most one fetch answers: narrow the queries or send them in parts`,
  );
}

/** A key as fetch answers it, its data key sealed for this conversation. */
function fetchedKey(req: DeviceRequest, key: StoredKey, state = currentState(key)): FetchedKeyWire {
  const dataKey = Buffer.from(key.key, 'hex');
  const { mattrs, csig, msig } = state;
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
    } else {
      const values = asStringList(wanted);
      if (values === undefined) return undefined;
      query.attributes.push([name, values]);
    }
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

/** A key a query matched, with its state when it matched: what the answer seals. */
type Matched = { key: StoredKey; state: ReturnType<typeof currentState> };

/**
 * Fetch. The work is done in slices (pacing.ts): sealing each key asked for by id, the scan of
 * the tenant's keys for each query, sealing what the queries matched. A key's state is read once,
 * when it is sealed or matched, so a modify answered meanwhile never makes a key answer a query
 * its answered attributes do not match.
 */
export const fetchKeys: Operation = async (req) => {
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
  if (req.itemFault) {
    // Every id fails as the rule says, and the queries find nothing: no key is read.
    const data: Record<string, unknown> = { 'protection-keys': [] };
    if (rawQueries !== undefined) {
      data['query-results'] = Object.fromEntries(queries.map(([name]) => [name, { ids: [] }]));
    }
    return withItemErrors(req, data, injectedErrors(req.itemFault, list as string[]));
  }
  const tenantKeys = queries.length === 0 ? 0 : req.state.keys.countOfTenant(req.device.tenant);
  const checks = queries.length * tenantKeys;
  if (checks > REQUEST_BOUNDS.queryChecks) {
    throw new RequestTooLarge(
      `the queries would compare ${checks} keys (${queries.length} queries × ${tenantKeys} keys); a fetch compares at most ${REQUEST_BOUNDS.queryChecks}: send fewer queries at a time`,
    );
  }

  const pacer = new Pacer();
  const found = new Map<string, FetchedKeyWire>();
  const errors = new Map<string, ItemErrorWire>();
  for (const id of list as string[]) {
    if (pacer.due()) await pacer.pause();
    attempt(errors, id, () => found.set(id, fetchedKey(req, usableKey(req, id))));
  }
  const data: Record<string, unknown> = {};
  if (rawQueries !== undefined) {
    const { results, matched } = await runQueries(req, queries, found, pacer);
    for (const { key, state } of matched.values()) {
      if (pacer.due()) await pacer.pause();
      found.set(key.id, fetchedKey(req, key, state));
    }
    data['query-results'] = results;
  }
  data['protection-keys'] = [...found.values()];
  return withItemErrors(req, data, errors);
};

/**
 * The queries over the tenant's keys as they were when the fetch began, key by key: each key's
 * attributes and signatures are read once, at one moment, whatever the number of queries. Refused
 * as soon as the answer would pass REQUEST_BOUNDS: counted before any key is sealed, so a refusal
 * costs the scan, not the answer.
 */
async function runQueries(
  req: DeviceRequest,
  queries: [string, Query][],
  found: Map<string, FetchedKeyWire>,
  pacer: Pacer,
): Promise<{ results: Record<string, { ids: string[] }>; matched: Map<string, Matched> }> {
  const open = queries.map(([name, query]) => ({ name, query, ids: [] as string[] }));
  const matched = new Map<string, Matched>();
  let ids = 0;
  const keys = open.length === 0 ? [] : req.state.keys.ofTenant(req.device.tenant);
  for (const key of keys) {
    if (pacer.due()) await pacer.pause();
    const values = valuesOf(key);
    let state: Matched['state'] | undefined;
    let full = 0;
    for (const result of open) {
      const most = result.query.qty ?? MAX_ITEMS;
      if (result.ids.length === most) {
        full++;
        continue;
      }
      if (!matchesQuery(values, result.query)) continue;
      result.ids.push(key.id);
      if (++ids > REQUEST_BOUNDS.queryResultIds) throw answerTooLarge('key ids in query results');
      state ??= currentState(key);
      if (result.ids.length === most) full++;
    }
    if (state && !found.has(key.id)) {
      if (found.size + matched.size >= REQUEST_BOUNDS.answerKeys) throw answerTooLarge('keys');
      matched.set(key.id, { key, state });
    }
    if (full === open.length) break;
  }
  const results = Object.fromEntries(open.map(({ name, ids: list }) => [name, { ids: list }]));
  return { results, matched };
}

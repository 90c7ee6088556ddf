/**
 * Fetch (docs/design.md 2.4): keys by id and by attribute queries, each sealed for the
 * conversation, within REQUEST_BOUNDS (a fetch that would pass them is refused before the work).
 */
import { fetchedKeyAad } from '../../device/dialects.js';
import { wrapDataKey } from '../../device/crypto.js';
import type { FetchedKeyWire, ItemErrorWire } from '../../device/wire.js';
import { isJsonObject } from '../../encoding/json.js';
import type { Attributes } from './attributes.js';
import {
  attempt,
  currentState,
  type DeviceRequest,
  EMPTY_ATTRIBUTES,
  items,
  MAX_ITEMS,
  type Operation,
  REQUEST_BOUNDS,
  RequestTooLarge,
  usableKey,
  withItemErrors,
} from './operations.js';
import type { StoredKey } from './store.js';

function answerTooLarge(what: 'keys' | 'key ids in query results'): RequestTooLarge {
  const most = what === 'keys' ? REQUEST_BOUNDS.answerKeys : REQUEST_BOUNDS.queryResultIds;
  return new RequestTooLarge(
    `the answer would hold more than ${most} ${what}, the most one fetch answers: narrow the queries or send them in parts`,
  );
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

/**
 * The state a replay's mock starts from when no `--seed` is given: each marking as the recording
 * read it before any request changed it, its values as the answers showed them, and stand-ins
 * where a count says there were more (startingState).
 */
import { VALUES_MAX_PER_MARKING } from '../../common/markings/wire.js';
import type { JournalEntryWithBodies } from '../../common/mock/wire.js';
import type { Seed, SeedMarking } from '../usecases/mock.js';
import { isObject, type Json, markingsIn, markingsPath, parsed, whole } from './recorded-bodies.js';

/** What a marking's starting state is made of, as the recording lets it be inferred. */
interface Start {
  marking: SeedMarking;
  /** `detail.valueCount` as first read before any change to the marking. */
  valueCount?: number;
  /** Its values at the start, by name. */
  values: Map<string, { name: string; description?: string }>;
  /** Values read only after a change to the marking that no change of the recording answered first. */
  later: Map<string, { name: string; description?: string }>;
  /** The ids of the values above: a value renamed by the recording is still one value. */
  ids: Set<string>;
}

/** How the replay's starting state was made: told in the report. */
export interface StartingState {
  seed: Seed;
  /** Markings the recording read, as it first read them. */
  markings: number;
  /** Values the recording counted but never showed, seeded as stand-ins (STAND_IN names). */
  standIns: number;
  /** Stand-ins left out past STAND_INS_MAX. */
  standInsLeftOut: number;
}

/** The name of a stand-in value: `~` sorts it after the values a listing showed by name. */
export const STAND_IN = '~ksctl-stand-in-';
/**
 * Most stand-ins a replay seeds in all (a recording's counts are its word, not memory's measure):
 * past it, the counts of the markings left without differ, and the report says so.
 */
export const STAND_INS_MAX = 250_000;

/**
 * The mock's starting state from the recording: each marking as the recording read it before any
 * request changed it, with the values its answers showed, before or after a change (a listing of
 * values counts too; a value first seen in the answer to a request that named it new is one the
 * recording made, and the values read after a change fill the count only as far as it goes). A
 * default value is a value. Where a count (`detail.valueCount`, as with `valueLimit=0`) says a
 * marking had more values than the recording ever showed, stand-ins named `~ksctl-stand-in-N`
 * make up the count, so listings and counts replay alike. Markings the recording created are left
 * out: the replay creates them.
 */
export function startingState(exchanges: readonly JournalEntryWithBodies[]): StartingState {
  const starts = new Map<string, Start>();
  const byId = new Map<string, Start>();
  /** Markings a request changed (by id) or made (by name): read afterwards, they are not as they started. */
  const changed = new Set<string>();
  const created = new Set<string>();
  /** Value ids any answer showed, and those first shown by the answer to a change. */
  const seenValues = new Set<string>();
  const madeValues = new Set<string>();
  /** A value first seen in the answer to a request that named it new was made by the recording. */
  const noteValue = (v: Json, madeNow: ReadonlySet<string>) => {
    if (typeof v.id !== 'string' || seenValues.has(v.id)) return;
    seenValues.add(v.id);
    if (typeof v.name === 'string' && madeNow.has(v.name)) madeValues.add(v.id);
  };
  const addTo = (start: Start | undefined, v: Json, atStart: boolean) => {
    if (start === undefined || typeof v.name !== 'string') return;
    if (typeof v.id === 'string' && (madeValues.has(v.id) || start.ids.has(v.id))) return;
    const into = atStart ? start.values : start.later;
    if (into.has(v.name)) return;
    if (typeof v.id === 'string') start.ids.add(v.id);
    into.set(v.name, {
      name: v.name,
      // The service answers a value without a description with "": the seed leaves it out alike.
      ...(typeof v.description === 'string' && v.description !== ''
        ? { description: v.description }
        : {}),
    });
  };
  for (const e of exchanges) {
    const path = markingsPath(e.path) ?? '';
    const body = whole(e.response) ? parsed(e.response) : undefined;
    const write = e.method !== 'GET';
    if (write && e.status >= 300) continue;
    if (!write && (e.status !== 200 || body === undefined)) continue;
    const madeNow = write ? newValueNames(path, e.method, parsed(e.request)) : new Set<string>();
    for (const [, v] of valuesIn(body)) noteValue(v, madeNow);
    if (write) {
      // The other values a change answered with were there before it (a PUT answers them all).
      for (const [owner, v] of valuesIn(body)) addTo(byId.get(owner), v, false);
      const touched = /^\/markings\/([0-9a-f]{24})/.exec(path)?.[1];
      if (touched !== undefined) changed.add(touched);
      for (const m of e.method === 'POST' && /^\/markings(\?|$)/.test(path)
        ? markingsIn(body)
        : []) {
        if (typeof m.id === 'string') changed.add(m.id);
        if (typeof m.id === 'string' && !byId.has(m.id)) created.add(m.name as string);
      }
      continue;
    }
    const valuesOf = /^\/markings\/([0-9a-f]{24})\/values(?:\?|$)/.exec(path)?.[1];
    if (valuesOf !== undefined) {
      for (const v of markingsIn(body)) addTo(byId.get(valuesOf), v, !changed.has(valuesOf));
      continue;
    }
    for (const m of markingsIn(body)) {
      const name = m.name as string;
      if (typeof m.markingId === 'string' || created.has(name)) continue;
      const detail = isObject(m.detail) ? m.detail : {};
      const values = (Array.isArray(detail.values) ? detail.values : []).filter(isObject);
      const id = typeof m.id === 'string' ? m.id : undefined;
      if (id !== undefined && changed.has(id)) {
        for (const v of values) addTo(byId.get(id), v, false);
        continue;
      }
      let start = (id === undefined ? undefined : byId.get(id)) ?? starts.get(name);
      if (start === undefined) {
        start = {
          marking: {
            name,
            ...(typeof detail.description === 'string' ? { description: detail.description } : {}),
            public: m.public === true,
            adminOnly: m.adminOnly === true,
            defaultValue: typeof m.defaultValue === 'string' ? m.defaultValue : null,
          },
          // A count no marking can hold is not taken for one.
          ...(Number.isSafeInteger(detail.valueCount) &&
          (detail.valueCount as number) >= 0 &&
          (detail.valueCount as number) <= VALUES_MAX_PER_MARKING
            ? { valueCount: detail.valueCount as number }
            : {}),
          values: new Map(),
          later: new Map(),
          ids: new Set(),
        };
        starts.set(name, start);
      }
      if (id !== undefined) byId.set(id, start);
      for (const v of values) addTo(start, v, true);
    }
  }
  let standIns = 0;
  let standInsLeftOut = 0;
  const markings: SeedMarking[] = [];
  for (const start of starts.values()) {
    const { values, valueCount } = start;
    const defaultValue = start.marking.defaultValue;
    // A default value is one of the marking's values, shown by name even where its values are not.
    if (typeof defaultValue === 'string' && !values.has(defaultValue)) {
      values.set(defaultValue, start.later.get(defaultValue) ?? { name: defaultValue });
    }
    const room = () => valueCount === undefined || values.size < valueCount;
    for (const [name, v] of start.later) if (room() && !values.has(name)) values.set(name, v);
    if (valueCount !== undefined) {
      const width = String(valueCount).length;
      for (let n = 1; values.size < valueCount; n++) {
        if (standIns === STAND_INS_MAX) {
          standInsLeftOut += valueCount - values.size;
          break;
        }
        const name = `${STAND_IN}${String(n).padStart(width, '0')}`;
        if (values.has(name)) continue;
        values.set(name, { name });
        standIns++;
      }
    }
    markings.push({
      ...start.marking,
      values: [...values.values()].map((v) => (v.description === undefined ? v.name : v)),
    });
  }
  markings.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { seed: { markings }, markings: markings.length, standIns, standInsLeftOut };
}

/** The values an answer body shows: values, or markings' `detail.values`. */
function* valuesIn(body: unknown): Iterable<[owner: string, value: Json]> {
  for (const item of markingsIn(body)) {
    if (typeof item.markingId === 'string') {
      yield [item.markingId, item];
      continue;
    }
    const values =
      isObject(item.detail) && Array.isArray(item.detail.values) ? item.detail.values : [];
    for (const v of values) if (isObject(v)) yield [String(item.id), v];
  }
}

/**
 * The names of the values a change request makes: those a POST of values sends, and those a
 * marking's body lists without an id (an entry with an id is a value it keeps).
 */
function newValueNames(path: string, method: string, body: unknown): Set<string> {
  const names = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === 'string') names.add(v);
    else if (isObject(v) && typeof v.name === 'string' && v.id === undefined) names.add(v.name);
  };
  if (method === 'POST' && /^\/markings\/[0-9a-f]{24}\/values(?:\?|$)/.test(path)) {
    for (const v of Array.isArray(body) ? body : [body]) add(v);
    return names;
  }
  const markings = Array.isArray(body)
    ? body
    : isObject(body) && Array.isArray(body.markings)
      ? body.markings
      : [body];
  for (const m of markings) {
    if (!isObject(m)) continue;
    const values =
      isObject(m.detail) && Array.isArray(m.detail.values) ? m.detail.values : m.values;
    for (const v of Array.isArray(values) ? values : []) add(v);
  }
  return names;
}

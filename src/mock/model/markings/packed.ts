/**
 * A marking with its values packed, as snapshots hold them (the `marking.packed` record, state
 * format 3): the values' members in columns, one entry per value; a member all the values share
 * given once, and not at all when the marking has it too (a description, who made them and when,
 * as a marking created with its values has). A snapshot of many values is then mostly their ids
 * and names, a third of the bytes of one JSON object per value, and reads back in a third of the
 * time (bench/README.md). Every member round-trips exactly, whatever it holds: values whose
 * members are not the same list, in the same order, are not packed (the caller keeps them as
 * objects). Since format 4 the columns stand apart from the rest of the record (its head), read
 * when the marking is first used (deferred.ts).
 */
import type { MarkingRecord, StoredValue } from './stored.js';

/** A packed marking without its columns: what state format 4 parses at start (its head). */
export interface PackedHead {
  marking: MarkingRecord;
  /** How many values. */
  n: number;
  /** The values' members, in order; absent: VALUE_MEMBERS. */
  keys?: string[];
  /** Members every value holds alike, where the marking's member is not the same. */
  same?: Record<string, unknown>;
}

export interface PackedValues extends PackedHead {
  /** Members that differ between the values: one entry per value, in order. */
  columns: Record<string, unknown[]>;
}

/** The members of a stored value, in the order the store makes them. */
const VALUE_MEMBERS = [
  'id',
  'name',
  'description',
  'createdTs',
  'createdBy',
  'updatedTs',
  'updatedBy',
  'version',
] as const satisfies readonly (keyof StoredValue)[];

/** A member of StoredValue missing from VALUE_MEMBERS fails to compile here. */
const everyMemberListed: Exclude<keyof StoredValue, (typeof VALUE_MEMBERS)[number]> extends never
  ? true
  : never = true;
void everyMemberListed;

type Members = Record<string, unknown>;

const isPrimitive = (value: unknown) => typeof value !== 'object' || value === null;

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((key, i) => key === b[i]);
}

/** Whether `value` holds exactly `keys`, in that order, none of them undefined (JSON drops it). */
function holdsExactly(value: Members, keys: readonly string[]): boolean {
  return sameList(Object.keys(value), keys) && keys.every((key) => value[key] !== undefined);
}

/** The values packed, or undefined when their members are not one list (kept as objects then). */
export function packValues(
  marking: MarkingRecord,
  values: readonly StoredValue[],
): PackedValues | undefined {
  const packed: PackedValues = { marking, n: values.length, columns: {} };
  if (values.length === 0) return packed;
  const rows = values as unknown as readonly Members[];
  const keys = Object.keys(rows[0]!);
  if (!rows.every((value) => holdsExactly(value, keys))) return undefined;
  if (!sameList(keys, VALUE_MEMBERS)) packed.keys = keys;
  const same: Members = {};
  for (const key of keys) {
    const first = rows[0]![key];
    if (isPrimitive(first) && rows.every((value) => value[key] === first)) {
      const own = marking as unknown as Members;
      if (!(Object.hasOwn(own, key) && own[key] === first)) same[key] = first;
    } else {
      packed.columns[key] = rows.map((value) => value[key]);
    }
  }
  if (Object.keys(same).length > 0) packed.same = same;
  return packed;
}

/** Where one member of every value comes from: its column, or one value for all. */
interface Source {
  column: unknown[] | undefined;
  value: unknown;
}

function sourceOf(packed: PackedValues, key: string): Source {
  const column = packed.columns[key];
  if (column !== undefined) {
    if (!Array.isArray(column) || column.length !== packed.n) {
      throw new Error(`the column of "${key}" does not hold ${packed.n} entries`);
    }
    return { column, value: undefined };
  }
  for (const holder of [packed.same, packed.marking as unknown as Members]) {
    if (holder !== undefined && Object.hasOwn(holder, key)) {
      return { column: undefined, value: holder[key] };
    }
  }
  throw new Error(`the member "${key}" of the values is given nowhere`);
}

const entry = (source: Source, i: number) =>
  source.column === undefined ? source.value : source.column[i];

/**
 * The columns of a packed marking from the bytes of their JSON (state format 4 keeps them apart
 * from the rest of the record, unparsed). Throws when they are not an object of columns.
 */
export function parseColumns(bytes: Buffer): Record<string, unknown[]> {
  let columns: unknown;
  try {
    columns = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new Error(`its columns are not JSON (${(error as Error).message})`);
  }
  if (columns === null || typeof columns !== 'object' || Array.isArray(columns)) {
    throw new Error('its columns are not an object of columns');
  }
  return columns as Record<string, unknown[]>;
}

/**
 * The values a packed record holds, as the store held them (new objects, the members in their
 * order). Throws when the record does not hold them whole.
 */
export function unpackValues(packed: PackedValues): StoredValue[] {
  const { n } = packed;
  const keys: readonly string[] = packed.keys ?? VALUE_MEMBERS;
  if (!Number.isSafeInteger(n) || n < 0) throw new Error('the count of values is not a count');
  if (n === 0) return [];
  if (!Array.isArray(keys) || !keys.every((key) => typeof key === 'string')) {
    throw new Error('the list of members is not a list of names');
  }
  if (packed.columns === null || typeof packed.columns !== 'object') {
    throw new Error('the columns are missing');
  }
  if (packed.keys === undefined) return unpackStored(packed);
  // Any other list of members: each value a copy of one template, its columns set.
  const template: Members = {};
  const columns: [string, unknown[]][] = [];
  for (const key of keys) {
    const source = sourceOf(packed, key);
    template[key] = source.value;
    if (source.column !== undefined) columns.push([key, source.column]);
  }
  const values = new Array<StoredValue>(n);
  for (let i = 0; i < n; i++) {
    const value: Members = { ...template };
    for (const [key, column] of columns) value[key] = column[i];
    values[i] = value as unknown as StoredValue;
  }
  return values;
}

/** The store's own members: each value made in one step, all of one shape. */
function unpackStored(packed: PackedValues): StoredValue[] {
  const id = sourceOf(packed, 'id');
  const name = sourceOf(packed, 'name');
  const description = sourceOf(packed, 'description');
  const createdTs = sourceOf(packed, 'createdTs');
  const createdBy = sourceOf(packed, 'createdBy');
  const updatedTs = sourceOf(packed, 'updatedTs');
  const updatedBy = sourceOf(packed, 'updatedBy');
  const version = sourceOf(packed, 'version');
  const values = new Array<StoredValue>(packed.n);
  for (let i = 0; i < packed.n; i++) {
    values[i] = {
      id: entry(id, i),
      name: entry(name, i),
      description: entry(description, i),
      createdTs: entry(createdTs, i),
      createdBy: entry(createdBy, i),
      updatedTs: entry(updatedTs, i),
      updatedBy: entry(updatedBy, i),
      version: entry(version, i),
    } as StoredValue;
  }
  return values;
}

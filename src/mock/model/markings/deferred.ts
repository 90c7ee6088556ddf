/**
 * Markings restored from a snapshot of state format 4 whose values are still the bytes of their
 * packed columns (packed.ts): a restart parses each marking's head only, and makes a marking's
 * values the first time anything asks for them. Until then the marking's `valuesById` and
 * `valuesByName` are accessors that read the values and put the two maps in their own place, so
 * every path of the store works on them unchanged; its value count, its record and its snapshot
 * record need no reading. A deferred marking does not change: values take members from their
 * marking (packed.ts), so the store reads them before anything changes the marking.
 */
import { MarkingsErrorCode } from '../../../common/markings/wire.js';
import { MockHttpError } from '../../kit/http.js';
import { type PackedHead, parseColumns, unpackValues } from './packed.js';
import type { StoredMarking, StoredValue } from './stored.js';

/** The bytes of a marking's packed columns as read and checked, and where they stand. */
export interface ColumnsBytes {
  bytes: Buffer;
  file: string;
  line: number;
}

export interface Deferred {
  head: PackedHead;
  columns: ColumnsBytes;
}

const deferred = new WeakMap<StoredMarking, Deferred>();

/** The head and the columns of a marking whose values are not read yet. */
export const deferredOf = (m: StoredMarking): Deferred | undefined => deferred.get(m);

/** How many values a marking holds, read or not. */
export const valueCountOf = (m: StoredMarking): number =>
  deferred.get(m)?.head.n ?? m.valuesById.size;

/** The values indexed; throws what does not match the head (only a file made by hand). */
function indexValues({
  head,
  columns,
}: Deferred): Pick<StoredMarking, 'valuesById' | 'valuesByName'> {
  const values = unpackValues({ ...head, columns: parseColumns(columns.bytes) });
  const valuesById = new Map<string, StoredValue>();
  const valuesByName = new Map<string, StoredValue>();
  for (const value of values) {
    if (typeof value.id !== 'string' || typeof value.name !== 'string') {
      throw new Error('a value has no id or no name');
    }
    valuesById.set(value.id, value);
    valuesByName.set(value.name, value);
  }
  if (valuesById.size !== head.n || valuesByName.size !== head.n) {
    throw new Error('two of its values share an id or a name');
  }
  return { valuesById, valuesByName };
}

/**
 * Makes a deferred marking's values now (nothing for any other marking). Columns that verify
 * but do not read back (a file made by hand) are told as a mock error naming their line, and
 * the marking stays as it was: the mock goes on serving everything else.
 */
export function readValues(m: StoredMarking): void {
  const d = deferred.get(m);
  if (d === undefined) return;
  let maps: Pick<StoredMarking, 'valuesById' | 'valuesByName'>;
  try {
    maps = indexValues(d);
  } catch (error) {
    throw new MockHttpError(
      500,
      MarkingsErrorCode.internal,
      `the values of marking "${m.name}" cannot be read: ${d.columns.file}:${d.columns.line} verifies, but ${(error as Error).message} (a state file made or changed by hand: \`ksctl mock state recover\` leaves that record out)`,
    );
  }
  deferred.delete(m);
  for (const key of ['valuesById', 'valuesByName'] as const) {
    Object.defineProperty(m, key, {
      value: maps[key],
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
}

/** Reads the values, then answers the map asked for (or sets it). */
const mapAccessor = (key: 'valuesById' | 'valuesByName'): PropertyDescriptor => ({
  get(this: StoredMarking) {
    readValues(this);
    return this[key];
  },
  set(this: StoredMarking, map: Map<string, StoredValue>) {
    readValues(this);
    this[key] = map;
  },
  enumerable: true,
  configurable: true,
});

const ACCESSORS: PropertyDescriptorMap = {
  valuesById: mapAccessor('valuesById'),
  valuesByName: mapAccessor('valuesByName'),
};

/**
 * Takes `head.marking` over as a stored marking whose values are made from `columns` when first
 * asked for. Throws when the head is not one of a packed marking: that much is checked at start.
 */
export function deferValues(head: PackedHead, columns: ColumnsBytes): StoredMarking {
  const { marking, n, keys, same } = head;
  if (typeof marking?.id !== 'string' || typeof marking.name !== 'string') {
    throw new Error('the marking has no id or no name');
  }
  if (!Number.isSafeInteger(n) || n < 0) throw new Error('the count of values is not a count');
  if (keys !== undefined && !(Array.isArray(keys) && keys.every((k) => typeof k === 'string'))) {
    throw new Error('the list of members is not a list of names');
  }
  if (same !== undefined && (same === null || typeof same !== 'object')) {
    throw new Error('the members all values share are not an object');
  }
  const m = marking as StoredMarking;
  Object.defineProperties(m, ACCESSORS);
  m.sorted = undefined;
  deferred.set(m, { head, columns });
  return m;
}

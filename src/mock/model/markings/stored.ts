/**
 * The form the mock keeps markings and values in: indexes by id and by name, and the records the
 * durable state journals (a marking without its values, or one value), with the two helpers that
 * replay records into the indexes.
 */
/** What a marking and a value both carry: their name, and who made and last changed them, when. */
interface StoredEntry {
  id: string;
  name: string;
  description: string;
  createdTs: number;
  createdBy: string;
  updatedTs: number;
  updatedBy: string;
  version: number;
}

export type StoredValue = StoredEntry;

/** Who makes a change (a principal's name). */
export interface Actor {
  name: string;
}

export interface StoredMarking extends StoredEntry {
  public: boolean;
  adminOnly: boolean;
  defaultValue: string | null;
  /** The version at which defaultValue was last set; 0 while it is null. */
  defaultVersion: number;
  valuesByName: Map<string, StoredValue>;
  valuesById: Map<string, StoredValue>;
  /** Values ordered by name; rebuilt lazily after a change. */
  sorted: StoredValue[] | undefined;
}

/** A stored marking without its values and indexes. */
export type MarkingRecord = Omit<StoredMarking, 'valuesByName' | 'valuesById' | 'sorted'>;

/**
 * Where the store reports each change, in the form it holds the data: a marking without its
 * values, or one value (the durable state journals them; see durable-state.ts).
 */
export interface MarkingChanges {
  marking(record: MarkingRecord): void;
  markingDeleted(id: string): void;
  value(markingId: string, record: StoredValue): void;
  valueDeleted(markingId: string, id: string): void;
}

export const NO_CHANGES: MarkingChanges = {
  marking: () => undefined,
  markingDeleted: () => undefined,
  value: () => undefined,
  valueDeleted: () => undefined,
};

const NOT_RECORDED: ReadonlySet<string> = new Set(['valuesByName', 'valuesById', 'sorted']);

/** The marking without its values, never reading them (deferred.ts: they may not be read yet). */
export function markingRecord(m: StoredMarking): MarkingRecord {
  const record: Record<string, unknown> = {};
  for (const key of Object.keys(m)) {
    if (!NOT_RECORDED.has(key)) record[key] = (m as unknown as Record<string, unknown>)[key];
  }
  return record as MarkingRecord;
}

/** Orders by name (UTF-16 code units, as `<` compares). */
export function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export function isDefined<T>(item: T | undefined): item is T {
  return item !== undefined;
}

/**
 * Puts a replayed record into an id index and a name index, updating an existing entry in place,
 * and gives the entry. A rename replayed after a swap may find its old name taken by the other
 * entry already.
 */
export function restoreNamed<T extends { id: string; name: string }>(
  byId: Map<string, T>,
  byName: Map<string, T>,
  record: { id: string; name: string },
  fresh: () => T,
): T {
  const existing = byId.get(record.id);
  if (!existing) {
    const entry = fresh();
    byId.set(entry.id, entry);
    byName.set(entry.name, entry);
    return entry;
  }
  if (byName.get(existing.name) === existing) byName.delete(existing.name);
  Object.assign(existing, record);
  byName.set(existing.name, existing);
  return existing;
}

export function forgetNamed<T extends { name: string }>(
  byId: Map<string, T>,
  byName: Map<string, T>,
  id: string,
): void {
  const existing = byId.get(id);
  if (!existing) return;
  byId.delete(id);
  if (byName.get(existing.name) === existing) byName.delete(existing.name);
}

/**
 * One tenant's markings as the mock holds them: indexed by id and by name, sorted when listed, in
 * their wire form with each principal's changedBy, each change reported as a record for the
 * durable state, and rebuilt from those records. The service's operations on them are
 * MarkingsStore (store.ts); the values plan of an update is values-plan.ts.
 */
import {
  type Marking,
  type MarkingValue,
  MarkingsErrorCode,
} from '../../../common/markings/wire.js';
import { MockHttpError } from '../../kit/http.js';
import type { IdGenerator } from '../../kit/ids.js';
import { CHEAP_UNITS, LOOK, runWhole, type Steps, sortSteps } from '../../kit/pacing.js';
import {
  type ColumnsBytes,
  deferredOf,
  deferValues,
  readValues,
  valueCountOf,
} from './deferred.js';
import { type PackedHead, type PackedValues, parseColumns, unpackValues } from './packed.js';
import type { MarkingSpec, ValueSpec } from './specs.js';
import {
  type Actor,
  byName,
  forgetNamed,
  type MarkingChanges,
  type MarkingRecord,
  markingRecord,
  NO_CHANGES,
  restoreNamed,
  type StoredMarking,
  type StoredValue,
} from './stored.js';
import { WireForm } from './wire-form.js';

/**
 * A restored marking of more values than this is read at start, as before format 4: its first use
 * reads them in one step, which held the mock 100-200 ms for 100,000 values and takes a few
 * milliseconds for this many (about a slice of paced work, pacing.ts).
 */
const READ_AT_START_ABOVE = 2_000;

export class IndexedMarkings {
  protected readonly byId = new Map<string, StoredMarking>();
  protected readonly byName = new Map<string, StoredMarking>();
  protected sortedCache: StoredMarking[] | undefined;

  protected readonly wire: WireForm;
  /** Where each change is reported: the store's hook, counting the change first. */
  protected readonly changes: MarkingChanges;
  /**
   * Goes up with every change, reported or replayed, before anything can read the markings
   * again: what a cache of them (MarkingsStore.defaults) compares.
   */
  protected revision = 0;

  constructor(
    protected readonly ids: IdGenerator,
    private readonly tenantId = '',
    protected readonly now: () => number = Date.now,
    changes: MarkingChanges = NO_CHANGES,
  ) {
    this.wire = new WireForm(tenantId);
    const counted =
      <A extends unknown[]>(report: (...args: A) => void) =>
      (...args: A) => {
        this.revision++;
        report(...args);
      };
    this.changes = {
      marking: counted((record) => changes.marking(record)),
      markingDeleted: counted((id) => changes.markingDeleted(id)),
      value: counted((markingId, record) => changes.value(markingId, record)),
      valueDeleted: counted((markingId, id) => changes.valueDeleted(markingId, id)),
    };
  }

  get size(): number {
    return this.byId.size;
  }

  /** How many values all the markings hold. */
  get valueCount(): number {
    let count = 0;
    for (const m of this.byId.values()) count += valueCountOf(m);
    return count;
  }

  clear(): void {
    this.byId.clear();
    this.byName.clear();
    this.sortedCache = undefined;
    this.revision++;
  }

  // ---- durable state: replaying the records reported to `changes`, and listing them ----

  /** Takes `record` over as the stored marking (records are parsed afresh from the files). */
  restoreMarking(record: MarkingRecord): StoredMarking {
    this.revision++;
    const existing = this.byId.get(record.id);
    if (existing !== undefined) readValues(existing);
    const m = restoreNamed(this.byId, this.byName, record, () => {
      const fresh = record as StoredMarking;
      fresh.valuesByName = new Map();
      fresh.valuesById = new Map();
      fresh.sorted = undefined;
      return fresh;
    });
    this.sortedCache = undefined;
    return m;
  }

  forgetMarking(id: string): void {
    this.revision++;
    forgetNamed(this.byId, this.byName, id);
    this.sortedCache = undefined;
  }

  /** Takes `record` over as the stored value (records are parsed afresh from the files). */
  restoreValue(markingId: string, record: StoredValue): void {
    this.revision++;
    const m = this.mustGet(markingId);
    restoreNamed(m.valuesById, m.valuesByName, record, () => record);
    m.sorted = undefined;
  }

  /** A marking with its values, as a snapshot packs them (packed.ts), put into the indexes. */
  restorePacked(packed: PackedValues): void {
    const values = unpackValues(packed);
    const m = this.restoreMarking(packed.marking);
    m.sorted = undefined;
    if (m.valuesById.size === 0) {
      // A new marking (as in every snapshot): straight into the indexes, unless two values share
      // an id, which only a record made by hand can hold; then one by one, as a journal's.
      for (const value of values) {
        m.valuesById.set(value.id, value);
        m.valuesByName.set(value.name, value);
      }
      if (m.valuesById.size === values.length) return;
      m.valuesById.clear();
      m.valuesByName.clear();
    }
    for (const value of values) restoreNamed(m.valuesById, m.valuesByName, value, () => value);
  }

  /**
   * A marking a snapshot of format 4 packed, its columns still the bytes read: its values are made
   * when first asked for (deferred.ts), or now with `readNow` or when there are many of them (see
   * READ_AT_START_ABOVE). Its head is checked now.
   */
  restoreDeferred(head: PackedHead, columns: ColumnsBytes, readNow = false): void {
    if (this.byId.has(head.marking?.id)) {
      // Only a snapshot made by hand holds a marking twice: its values join the others now.
      this.restorePacked({ ...head, columns: parseColumns(columns.bytes) });
      return;
    }
    const m = deferValues(head, columns);
    if (readNow || head.n > READ_AT_START_ABOVE) readValues(m);
    this.revision++;
    this.byId.set(m.id, m);
    this.byName.set(m.name, m);
    this.sortedCache = undefined;
  }

  forgetValue(markingId: string, id: string): void {
    this.revision++;
    const m = this.mustGet(markingId);
    forgetNamed(m.valuesById, m.valuesByName, id);
    m.sorted = undefined;
  }

  /** Every marking with its values, copies of the records `changes` receives. */
  *records(): Generator<{ marking: MarkingRecord; values: StoredValue[] }> {
    for (const m of this.byId.values()) yield this.recordOf(m);
  }

  /**
   * Every marking as a snapshot holds it: as records() gives it, or, when its values are not read
   * yet, its packed head and its columns as they were read (a deferred marking does not change).
   */
  *snapshotRecords(): Generator<
    { marking: MarkingRecord; values: StoredValue[] } | { head: PackedHead; columns: Buffer }
  > {
    for (const m of this.byId.values()) {
      const d = deferredOf(m);
      if (d === undefined) {
        yield this.recordOf(m);
        continue;
      }
      const { n, keys, same } = d.head;
      const head = { marking: markingRecord(m), n, ...(keys && { keys }), ...(same && { same }) };
      yield { head, columns: d.columns.bytes };
    }
  }

  private recordOf(m: StoredMarking): { marking: MarkingRecord; values: StoredValue[] } {
    const values = [...m.valuesById.values()].map((v) => ({ ...v }));
    return { marking: markingRecord(m), values };
  }

  // ---- for the operations ----

  protected mustGet(id: string): StoredMarking {
    const m = this.byId.get(id);
    if (!m) throw new MockHttpError(404, MarkingsErrorCode.notFound, `no marking with id ${id}`);
    return m;
  }

  protected mustGetValue(m: StoredMarking, valueId: string): StoredValue {
    const v = m.valuesById.get(valueId);
    if (!v) {
      throw new MockHttpError(
        404,
        MarkingsErrorCode.notFound,
        `no value with id ${valueId} in marking "${m.name}"`,
      );
    }
    return v;
  }

  protected checkVersion(m: StoredMarking, ifMatch: number | undefined): void {
    if (ifMatch !== undefined && ifMatch !== m.version) {
      throw new MockHttpError(
        412,
        MarkingsErrorCode.preconditionFailed,
        `marking "${m.name}" is at version ${m.version}, not ${ifMatch}`,
      );
    }
  }

  /** A new marking with its values, made apart from the store (one step a value). */
  protected *build(spec: MarkingSpec, actor: Actor): Steps<StoredMarking> {
    const now = this.now();
    const m: StoredMarking = {
      id: this.ids.next(now),
      name: spec.name!,
      public: spec.public ?? false,
      adminOnly: spec.adminOnly ?? false,
      defaultValue: spec.defaultValue ?? null,
      description: spec.description ?? '',
      createdTs: now,
      createdBy: actor.name,
      updatedTs: now,
      updatedBy: actor.name,
      version: 1,
      defaultVersion: spec.defaultValue ? 1 : 0,
      valuesByName: new Map(),
      valuesById: new Map(),
      sorted: undefined,
    };
    for (const v of spec.values ?? []) {
      const value = this.newValue(v, actor);
      m.valuesByName.set(value.name, value);
      m.valuesById.set(value.id, value);
      yield;
    }
    return m;
  }

  /** Takes a marking made by build() into the store, and reports it and its values. */
  protected publish(m: StoredMarking): void {
    this.byId.set(m.id, m);
    this.byName.set(m.name, m);
    this.sortedCache = undefined;
    this.changes.marking(markingRecord(m));
    for (const v of m.valuesById.values()) this.changes.value(m.id, v);
  }

  protected newValue(spec: ValueSpec, actor: Actor): StoredValue {
    const now = this.now();
    return {
      id: this.ids.next(now),
      name: spec.name,
      description: spec.description ?? '',
      createdTs: now,
      createdBy: actor.name,
      updatedTs: now,
      updatedBy: actor.name,
      version: 1,
    };
  }

  protected addValue(m: StoredMarking, v: StoredValue): void {
    m.valuesByName.set(v.name, v);
    m.valuesById.set(v.id, v);
    m.sorted = undefined;
    this.changes.value(m.id, v);
  }

  /** Bumps the version; `defaultSet`: the default value was set or renamed by this change. */
  protected touch(m: StoredMarking, actor: Actor, defaultSet = false): void {
    readValues(m);
    m.version++;
    m.updatedTs = this.now();
    m.updatedBy = actor.name;
    if (defaultSet) m.defaultVersion = m.defaultValue === null ? 0 : m.version;
    this.changes.marking(markingRecord(m));
  }

  protected sortedMarkings(): StoredMarking[] {
    this.sortedCache ??= [...this.byId.values()].sort(byName);
    return this.sortedCache;
  }

  protected sortedValues(m: StoredMarking): StoredValue[] {
    m.sorted ??= [...m.valuesById.values()].sort(byName);
    return m.sorted;
  }

  /**
   * sortedValues in steps: a sort of 100,000 values took tens of milliseconds. Kept for the next
   * reader only if no write came meanwhile (any change of a value bumps the version).
   */
  protected *sortedValuesSteps(m: StoredMarking): Steps<StoredValue[]> {
    if (m.sorted) return m.sorted;
    const version = m.version;
    const sorted = yield* sortSteps([...m.valuesById.values()], byName);
    if (m.version === version) m.sorted ??= sorted;
    return sorted;
  }

  /**
   * A marking's wire form; valueLimit 0 leaves values out and does no per-value work at all.
   * The values are sorted and written in steps, and the marking read as it is at the last step: a
   * write that came meanwhile has the values made again in that step, so a reader sees all of a
   * write or none of it.
   */
  protected *wireSteps(m: StoredMarking, valueLimit: number | undefined): Steps<Marking> {
    if (valueLimit === 0) return this.wire.marking(m, undefined);
    const version = m.version;
    const values = yield* this.wireValuesSteps(m, valueLimit);
    if (m.version === version) return this.wire.marking(m, values);
    return this.wire.marking(m, runWhole(this.wireValuesSteps(m, valueLimit)));
  }

  /** The values of a wire form, in steps (writing 100,000 took tens of milliseconds). */
  private *wireValuesSteps(
    m: StoredMarking,
    valueLimit: number | undefined,
  ): Steps<MarkingValue[]> {
    // A step of its own for each marking of a listing, whatever its values.
    yield LOOK;
    const sorted = yield* this.sortedValuesSteps(m);
    const values: MarkingValue[] = [];
    for (const v of valueLimit === undefined ? sorted : sorted.slice(0, valueLimit)) {
      if (values.push(this.wire.value(m.id, v)) % CHEAP_UNITS === 0) yield;
    }
    return values;
  }
}

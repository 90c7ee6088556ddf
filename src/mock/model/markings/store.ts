/**
 * One tenant's markings and their values, as the mock serves them: reads through the indexes,
 * writes checked whole before anything changes (specs.ts). How they are held, indexed, reported
 * and put in wire form is indexed.ts.
 */
import type { ListFilter } from '../../../common/markings/filters.js';
import type { ErrorDetailWire } from '../../../common/http/error-body.js';
import {
  BULK_MAX_ITEMS,
  type Marking,
  MarkingsErrorCode,
  type MarkingValue,
  VALUES_MAX_PER_MARKING,
} from '../../../common/markings/wire.js';
import { MockHttpError } from '../../kit/http.js';
import { CHEAP_UNITS, runWhole, type Steps } from '../../kit/pacing.js';
import { exactName, readMarkingField, readValueField } from './fields.js';
import { readValues } from './deferred.js';
import { matchesFilter } from './filter-match.js';
import { IndexedMarkings } from './indexed.js';
import {
  checkBulkNames,
  checkValuesSteps,
  duplicateMarking,
  duplicateValue,
  type MarkingSpec,
  newIdProblem,
  otherIdProblem,
  parseMarkingSpecSteps,
  parseValueSpec,
  shownId,
  validationError,
  type ValueSpec,
} from './specs.js';
import { type Actor, isDefined, type StoredMarking, type StoredValue } from './stored.js';
import { commitValues, planValues, type ValueMaker, type ValuesPlan } from './values-plan.js';

/** A bulk item checked against the store (the version it was checked at): problems, or missing. */
type BulkItemCheck = { existing: StoredMarking | undefined; version: number | undefined } & (
  | { problems: ErrorDetailWire[]; missing?: undefined }
  | { problems?: undefined; missing: ErrorDetailWire }
);

export interface MarkingAttributeRule {
  name: string;
  hasValue(value: string): boolean;
  /** Ordered by name. */
  valueNames(): string[];
}

/** A marking's default value, as keys created without the marking's attribute receive it. */
export interface MarkingDefault {
  readonly name: string;
  readonly defaultValue: string;
}

/**
 * One tenant's markings. Every write changes the store in one step: the long ones (pacing.ts) read,
 * check and work out their changes in steps before it, and in that step check again whatever
 * changed meanwhile; a long read is made again in its last step if a write came meanwhile. So
 * operations on one marking are serialised, and readers never see half of a write.
 */
export class MarkingsStore extends IndexedMarkings {
  private defaultsCache: { revision: number; list: readonly MarkingDefault[] } | undefined;

  // ---- reads ----

  list(
    filter: ListFilter,
    skip: number,
    limit: number,
    valueLimit: number | undefined,
  ): { total: number; items: Marking[] } {
    return runWhole(this.listSteps(filter, skip, limit, valueLimit));
  }

  /** List, in steps (pacing.ts): one marking of the page at a time. */
  *listSteps(
    filter: ListFilter,
    skip: number,
    limit: number,
    valueLimit: number | undefined,
  ): Steps<{ total: number; items: Marking[] }> {
    // An exact name that must hold (AND) narrows to one marking through the index.
    const exact = filter.or ? undefined : exactName(filter);
    const candidates =
      exact === undefined ? this.sortedMarkings() : [this.byName.get(exact)].filter(isDefined);
    const filtered = candidates.filter((m) => matchesFilter(filter, m, readMarkingField));
    const items: Marking[] = [];
    for (const m of filtered.slice(skip, skip + limit)) {
      items.push(yield* this.wireSteps(m, valueLimit));
    }
    return { total: filtered.length, items };
  }

  get(id: string, valueLimit?: number): Marking {
    return runWhole(this.getSteps(id, valueLimit));
  }

  /** Get, in steps (pacing.ts). */
  *getSteps(id: string, valueLimit?: number): Steps<Marking> {
    return yield* this.wireSteps(this.mustGet(id), valueLimit);
  }

  version(id: string): number {
    return this.mustGet(id).version;
  }

  listValues(
    markingId: string,
    filter: ListFilter,
    skip: number,
    limit: number,
  ): { total: number; items: MarkingValue[] } {
    return runWhole(this.listValuesSteps(markingId, filter, skip, limit));
  }

  /**
   * List of a marking's values, in steps (pacing.ts): sorted and matched in steps, and
   * listed again in the last step if a write came meanwhile, so the page is of one moment.
   */
  *listValuesSteps(
    markingId: string,
    filter: ListFilter,
    skip: number,
    limit: number,
  ): Steps<{ total: number; items: MarkingValue[] }> {
    const m = this.mustGet(markingId);
    const version = m.version;
    const page = yield* this.valuesPageSteps(m, filter, skip, limit);
    return m.version === version ? page : runWhole(this.valuesPageSteps(m, filter, skip, limit));
  }

  private *valuesPageSteps(
    m: StoredMarking,
    filter: ListFilter,
    skip: number,
    limit: number,
  ): Steps<{ total: number; items: MarkingValue[] }> {
    const exact = filter.or ? undefined : exactName(filter);
    const candidates =
      exact === undefined
        ? yield* this.sortedValuesSteps(m)
        : [m.valuesByName.get(exact)].filter(isDefined);
    const values: StoredValue[] = [];
    for (const [i, v] of candidates.entries()) {
      if (matchesFilter(filter, v, readValueField)) values.push(v);
      if (i % CHEAP_UNITS === CHEAP_UNITS - 1) yield;
    }
    return {
      total: values.length,
      items: values.slice(skip, skip + limit).map((v) => this.wire.value(m.id, v)),
    };
  }

  getValue(markingId: string, valueId: string): MarkingValue {
    const m = this.mustGet(markingId);
    return this.wire.value(m.id, this.mustGetValue(m, valueId));
  }

  /**
   * The marking named `name` as device requests see it: markings are the attributes of keys
   * (docs/design.md 2.4), so a key attribute of this name may only carry these values.
   */
  attributeRule(name: string): MarkingAttributeRule | undefined {
    const m = this.byName.get(name);
    if (!m) return undefined;
    return {
      name: m.name,
      hasValue: (value) => m.valuesByName.has(value),
      valueNames: () => this.sortedValues(m).map((v) => v.name),
    };
  }

  /**
   * Markings with a default value, which keys created without their attribute receive: read for
   * every key created, so kept until the markings change (a scan of 10,000 markings took ~2 ms).
   */
  defaults(): readonly MarkingDefault[] {
    if (this.defaultsCache?.revision !== this.revision) {
      const list: MarkingDefault[] = [];
      for (const m of this.sortedMarkings()) {
        if (m.defaultValue !== null) list.push({ name: m.name, defaultValue: m.defaultValue });
      }
      this.defaultsCache = { revision: this.revision, list };
    }
    return this.defaultsCache.list;
  }

  // ---- writes ----

  create(raw: unknown, actor: Actor): Marking {
    return runWhole(this.createSteps(raw, actor));
  }

  /** Create, in steps (pacing.ts): the marking is made apart, then taken into the store whole. */
  *createSteps(raw: unknown, actor: Actor): Steps<Marking> {
    const problems: ErrorDetailWire[] = [];
    const spec = yield* parseMarkingSpecSteps(raw, '', 'create', problems);
    const wrongId = newIdProblem(spec.id, 'id', (id) => `/markings/${id}`);
    if (wrongId) problems.push(wrongId);
    yield* checkValuesSteps(undefined, spec, '', problems);
    if (problems.length > 0) throw validationError(problems);
    if (this.byName.has(spec.name!)) throw duplicateMarking(spec.name!);
    const m = yield* this.build(spec, actor);
    // Another request may have taken the name meanwhile.
    if (this.byName.has(spec.name!)) throw duplicateMarking(spec.name!);
    this.publish(m);
    return yield* this.wireSteps(m, undefined);
  }

  update(id: string, raw: unknown, actor: Actor, ifMatch: number | undefined): Marking {
    return runWhole(this.updateSteps(id, raw, actor, ifMatch));
  }

  /**
   * Update, in steps (pacing.ts): the body is read, checked against the marking and its values
   * worked out in steps; the change is then one step, against the marking as it is at that moment
   * (if another request changed it meanwhile, the checks and the values are made again there);
   * the answer is made in steps.
   */
  *updateSteps(
    id: string,
    raw: unknown,
    actor: Actor,
    ifMatch: number | undefined,
  ): Steps<Marking> {
    this.checkVersion(this.mustGet(id), ifMatch);
    const problems: ErrorDetailWire[] = [];
    const spec = yield* parseMarkingSpecSteps(raw, '', 'update', problems);
    const before = this.mustGet(id);
    const version = before.version;
    let checked: ErrorDetailWire[] = [];
    yield* checkValuesSteps(before, spec, '', checked);
    const values =
      problems.length === 0 && checked.length === 0 && spec.values
        ? yield* planValues(this.maker(), before, spec.values, actor)
        : undefined;
    // From here on one step.
    const m = this.mustGet(id);
    this.checkVersion(m, ifMatch);
    const wrongId = otherIdProblem(spec.id, m.id, 'id');
    if (wrongId) problems.push(wrongId);
    if (m !== before || m.version !== version) {
      checked = [];
      runWhole(checkValuesSteps(m, spec, '', checked));
    }
    for (const problem of checked) problems.push(problem);
    if (problems.length > 0) throw validationError(problems);
    if (spec.name !== undefined && spec.name !== m.name && this.byName.has(spec.name)) {
      throw duplicateMarking(spec.name);
    }
    this.apply(m, spec, actor, values);
    return yield* this.wireSteps(m, undefined);
  }

  /** Create or Update Multiple: everything is checked before anything changes. */
  bulk(raw: unknown, actor: Actor, valueLimit: number | undefined): Marking[] {
    return runWhole(this.bulkSteps(raw, actor, valueLimit));
  }

  /**
   * Create or Update Multiple, in steps (pacing.ts): the items are read and the new markings made
   * apart in slices; the checks against the store and every change are then one step, as if the
   * request had come at that moment; the answer is made in slices.
   */
  *bulkSteps(raw: unknown, actor: Actor, valueLimit: number | undefined): Steps<Marking[]> {
    if (!Array.isArray(raw)) throw validationError([{ path: '$', message: 'must be an array' }]);
    if (raw.length > BULK_MAX_ITEMS) {
      throw new MockHttpError(
        413,
        MarkingsErrorCode.payloadTooLarge,
        `at most ${BULK_MAX_ITEMS} markings per request, got ${raw.length}`,
      );
    }
    const problems: ErrorDetailWire[] = [];
    const specs: MarkingSpec[] = [];
    for (const [i, item] of raw.entries()) {
      const hasId = typeof item === 'object' && item !== null && 'id' in item;
      specs.push(
        yield* parseMarkingSpecSteps(item, `[${i}]`, hasId ? 'update' : 'create', problems),
      );
    }
    // Made only while nothing is wrong yet; a later problem leaves them unused.
    const made = new Map<MarkingSpec, StoredMarking>();
    for (const spec of problems.length === 0 ? specs : []) {
      if (spec.id === undefined) made.set(spec, yield* this.build(spec, actor));
    }
    // Each item checked against the marking it updates as it is now, and its values worked out
    // while nothing is wrong; in the last step, again for any marking changed meanwhile.
    const checks: BulkItemCheck[] = [];
    for (const [i, spec] of specs.entries()) checks.push(yield* this.checkBulkItemSteps(spec, i));
    const clean = problems.length === 0 && checks.every((c) => c.problems?.length === 0);
    const plans = new Map<MarkingSpec, ValuesPlan>();
    for (const [i, spec] of (clean ? specs : []).entries()) {
      const existing = checks[i]!.existing;
      if (existing && spec.values) {
        plans.set(spec, yield* planValues(this.maker(), existing, spec.values, actor));
      }
    }
    // From here on one step, as if the request had come at this moment.
    const missing: ErrorDetailWire[] = [];
    specs.forEach((spec, i) => {
      let check = checks[i]!;
      const existing = spec.id !== undefined ? this.byId.get(spec.id) : undefined;
      if (existing !== check.existing || existing?.version !== check.version) {
        check = runWhole(this.checkBulkItemSteps(spec, i));
      }
      if (check.problems) for (const problem of check.problems) problems.push(problem);
      else missing.push(check.missing);
    });
    if (problems.length > 0) throw validationError(problems);
    if (missing.length > 0) {
      throw new MockHttpError(404, MarkingsErrorCode.notFound, missing[0]!.message, missing);
    }
    checkBulkNames(this.byId.values(), specs);
    const touched = specs.map((spec) => {
      const m = spec.id === undefined ? made.get(spec)! : this.byId.get(spec.id)!;
      if (spec.id === undefined) this.publish(m);
      else this.apply(m, spec, actor, plans.get(spec));
      return m;
    });
    const answer: Marking[] = [];
    for (const m of touched) answer.push(yield* this.wireSteps(m, valueLimit));
    return answer;
  }

  /** One item of a bulk request against the store as it is now: what it updates, its problems. */
  private *checkBulkItemSteps(spec: MarkingSpec, i: number): Steps<BulkItemCheck> {
    const existing = spec.id !== undefined ? this.byId.get(spec.id) : undefined;
    if (spec.id !== undefined && !existing) {
      const missing = { path: `[${i}].id`, message: `no marking with id ${shownId(spec.id)}` };
      return { existing, version: undefined, missing };
    }
    const problems: ErrorDetailWire[] = [];
    yield* checkValuesSteps(existing, spec, `[${i}]`, problems);
    return { existing, version: existing?.version, problems };
  }

  delete(id: string, ifMatch: number | undefined): void {
    const m = this.mustGet(id);
    this.checkVersion(m, ifMatch);
    this.byId.delete(m.id);
    this.byName.delete(m.name);
    this.sortedCache = undefined;
    this.changes.markingDeleted(m.id);
  }

  createValue(markingId: string, raw: unknown, actor: Actor, ifMatch?: number): MarkingValue {
    const m = this.mustGet(markingId);
    this.checkVersion(m, ifMatch);
    const problems: ErrorDetailWire[] = [];
    const spec = parseValueSpec(raw, '$', 'create', problems);
    const wrongId = newIdProblem(spec?.id, '$.id', (id) => `/markings/${m.id}/values/${id}`);
    if (wrongId) problems.push(wrongId);
    if (!spec || problems.length > 0) throw validationError(problems);
    if (m.valuesByName.has(spec.name!)) throw duplicateValue(spec.name!, m.name);
    if (m.valuesByName.size >= VALUES_MAX_PER_MARKING) {
      throw validationError([
        { path: '$', message: `a marking has at most ${VALUES_MAX_PER_MARKING} values` },
      ]);
    }
    const value = this.newValue(spec as ValueSpec, actor);
    this.addValue(m, value);
    this.touch(m, actor);
    return this.wire.value(m.id, value);
  }

  updateValue(
    markingId: string,
    valueId: string,
    raw: unknown,
    actor: Actor,
    ifMatch?: number,
  ): MarkingValue {
    const m = this.mustGet(markingId);
    this.checkVersion(m, ifMatch);
    const value = this.mustGetValue(m, valueId);
    const problems: ErrorDetailWire[] = [];
    const spec = parseValueSpec(raw, '$', 'update', problems);
    const wrongId = otherIdProblem(spec?.id, value.id, '$.id');
    if (wrongId) problems.push(wrongId);
    if (!spec || problems.length > 0) throw validationError(problems);
    const renamed = spec.name !== undefined && spec.name !== value.name;
    if (renamed && m.valuesByName.has(spec.name!)) throw duplicateValue(spec.name!, m.name);
    const describe = spec.description !== undefined && spec.description !== value.description;
    if (!renamed && !describe) return this.wire.value(m.id, value);
    const renamesDefault = renamed && m.defaultValue === value.name;
    if (renamed) {
      if (renamesDefault) m.defaultValue = spec.name!;
      m.valuesByName.delete(value.name);
      value.name = spec.name!;
      m.valuesByName.set(value.name, value);
      m.sorted = undefined;
    }
    if (describe) value.description = spec.description!;
    value.updatedTs = this.now();
    value.updatedBy = actor.name;
    value.version++;
    this.changes.value(m.id, value);
    this.touch(m, actor, renamesDefault);
    return this.wire.value(m.id, value);
  }

  deleteValue(markingId: string, valueId: string, actor: Actor, ifMatch?: number): void {
    const m = this.mustGet(markingId);
    this.checkVersion(m, ifMatch);
    const value = this.mustGetValue(m, valueId);
    if (m.defaultValue === value.name) {
      throw new MockHttpError(
        409,
        MarkingsErrorCode.duplicateName,
        `value "${value.name}" is the default value of marking "${m.name}"; change the default first`,
      );
    }
    m.valuesByName.delete(value.name);
    m.valuesById.delete(value.id);
    m.sorted = undefined;
    this.changes.valueDeleted(m.id, value.id);
    this.touch(m, actor);
  }

  /**
   * Applies a validated partial update; bumps the version once if anything changed. `values`: its
   * values worked out beforehand (planValues), used when the marking has not changed since.
   */
  private apply(m: StoredMarking, spec: MarkingSpec, actor: Actor, values?: ValuesPlan): void {
    // Values not read yet take members from the marking as it is (deferred.ts).
    readValues(m);
    let changed = false;
    if (spec.name !== undefined && spec.name !== m.name) {
      // In a bulk request another item may already have taken the old name (a swap).
      if (this.byName.get(m.name) === m) this.byName.delete(m.name);
      m.name = spec.name;
      this.byName.set(m.name, m);
      this.sortedCache = undefined;
      changed = true;
    }
    const defaultChanged = spec.defaultValue !== undefined && spec.defaultValue !== m.defaultValue;
    for (const field of ['public', 'adminOnly', 'defaultValue', 'description'] as const) {
      const next = spec[field];
      if (next !== undefined && next !== m[field]) {
        (m as unknown as Record<string, unknown>)[field] = next;
        changed = true;
      }
    }
    if (spec.values) {
      const plan =
        values?.version === m.version
          ? values
          : runWhole(planValues(this.maker(), m, spec.values, actor));
      changed = commitValues(this.changes, m, plan) || changed;
    }
    if (changed) this.touch(m, actor, defaultChanged);
  }

  private maker(): ValueMaker {
    return { now: this.now, newValue: (spec, actor) => this.newValue(spec, actor) };
  }
}

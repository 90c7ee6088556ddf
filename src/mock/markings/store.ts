import { createHash } from 'node:crypto';
import type { ListFilter, MarkingFilterField, ValueFilterField } from '../../api/filters.js';
import { type FieldReader, matchesFilter } from './filter-match.js';
import { descriptionProblem, nameProblem } from '../../api/names.js';
import {
  BULK_MAX_ITEMS,
  type ChangedBy,
  type ErrorDetailWire,
  type Marking,
  MarkingsErrorCode,
  type MarkingValue,
  VALUES_MAX_PER_MARKING,
} from '../../api/wire.js';
import { MockHttpError } from '../http.js';
import type { IdGenerator } from '../ids.js';

export interface StoredValue {
  id: string;
  name: string;
  description: string;
  createdTs: number;
  createdBy: string;
  updatedTs: number;
  updatedBy: string;
  version: number;
}

interface StoredMarking {
  id: string;
  name: string;
  public: boolean;
  adminOnly: boolean;
  defaultValue: string | null;
  description: string;
  createdTs: number;
  createdBy: string;
  updatedTs: number;
  updatedBy: string;
  version: number;
  /** The version at which defaultValue was last set; 0 while it is null. */
  defaultVersion: number;
  valuesByName: Map<string, StoredValue>;
  valuesById: Map<string, StoredValue>;
  /** Values ordered by name; rebuilt lazily after a change. */
  sorted: StoredValue[] | undefined;
}

/** A value in a request body after validation. */
interface ValueSpec {
  id?: string;
  name: string;
  description?: string;
}

/** A create or update body after validation; `values` present means "the complete set". */
interface MarkingSpec {
  id?: string;
  name?: string;
  public?: boolean;
  adminOnly?: boolean;
  defaultValue?: string | null;
  description?: string;
  values?: ValueSpec[];
}

function validationError(details: ErrorDetailWire[]): MockHttpError {
  const first = details[0];
  const summary = first ? `${first.path}: ${first.message}` : 'invalid request';
  return new MockHttpError(
    400,
    MarkingsErrorCode.validation,
    `validation failed: ${summary}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}`,
    details,
  );
}

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Reads a request body into a MarkingSpec, collecting every problem under `prefix`. */
function parseMarkingSpec(
  raw: unknown,
  prefix: string,
  mode: 'create' | 'update',
  problems: ErrorDetailWire[],
): MarkingSpec {
  const at = (path: string) => (prefix ? `${prefix}.${path}` : path);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push({ path: prefix || '$', message: 'must be a JSON object' });
    return {};
  }
  const body = raw as Record<string, unknown>;
  const spec: MarkingSpec = {};
  if (body.id !== undefined) {
    if (typeof body.id === 'string') spec.id = body.id;
    else problems.push({ path: at('id'), message: 'must be a string' });
  }
  if (body.name !== undefined || mode === 'create') {
    const problem = nameProblem(body.name);
    if (problem) problems.push({ path: at('name'), message: problem });
    else spec.name = body.name as string;
  }
  for (const flag of ['public', 'adminOnly'] as const) {
    if (body[flag] === undefined) continue;
    if (typeof body[flag] === 'boolean') spec[flag] = body[flag];
    else problems.push({ path: at(flag), message: 'must be true or false' });
  }
  if (body.defaultValue !== undefined) {
    if (body.defaultValue === null || typeof body.defaultValue === 'string') {
      spec.defaultValue = body.defaultValue;
    } else problems.push({ path: at('defaultValue'), message: 'must be null or a value name' });
  }
  if (body.detail !== undefined && body.detail !== null) {
    if (typeof body.detail !== 'object' || Array.isArray(body.detail)) {
      problems.push({ path: at('detail'), message: 'must be an object' });
      return spec;
    }
    const detail = body.detail as Record<string, unknown>;
    if (detail.description !== undefined) {
      const problem = descriptionProblem(detail.description);
      if (problem) problems.push({ path: at('detail.description'), message: problem });
      else spec.description = detail.description as string;
    }
    if (detail.values !== undefined) {
      spec.values = parseValueSpecs(detail.values, at('detail.values'), problems);
    }
  }
  return spec;
}

function parseValueSpecs(raw: unknown, path: string, problems: ErrorDetailWire[]): ValueSpec[] {
  if (!Array.isArray(raw)) {
    problems.push({ path, message: 'must be an array' });
    return [];
  }
  if (raw.length > VALUES_MAX_PER_MARKING) {
    problems.push({ path, message: `at most ${VALUES_MAX_PER_MARKING} values per marking` });
    return [];
  }
  const seen = new Set<string>();
  const specs: ValueSpec[] = [];
  raw.forEach((item, i) => {
    // The item's path is only spelt out for a problem: a bulk request holds 50,000 values.
    const spec = parseValueSpec(item, () => `${path}[${i}]`, 'create', problems);
    if (!spec) return;
    if (seen.has(spec.name!)) {
      problems.push({ path: `${path}[${i}].name`, message: `duplicate value name "${spec.name}"` });
    }
    seen.add(spec.name!);
    specs.push(spec as ValueSpec);
  });
  return specs;
}

function parseValueSpec(
  raw: unknown,
  at: string | (() => string),
  mode: 'create' | 'update',
  problems: ErrorDetailWire[],
): Partial<ValueSpec> | undefined {
  const path = () => (typeof at === 'string' ? at : at());
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push({ path: path(), message: 'must be an object with a name' });
    return undefined;
  }
  const v = raw as Record<string, unknown>;
  const spec: Partial<ValueSpec> = {};
  let ok = true;
  if (v.id !== undefined) {
    if (typeof v.id === 'string') spec.id = v.id;
    else {
      problems.push({ path: `${path()}.id`, message: 'must be a string' });
      ok = false;
    }
  }
  if (v.name !== undefined || mode === 'create') {
    const problem = nameProblem(v.name);
    if (problem) {
      problems.push({ path: `${path()}.name`, message: problem });
      ok = false;
    } else spec.name = v.name as string;
  }
  if (v.description !== undefined) {
    const problem = descriptionProblem(v.description);
    if (problem) {
      problems.push({ path: `${path()}.description`, message: problem });
      ok = false;
    } else spec.description = v.description as string;
  }
  return ok ? spec : undefined;
}

export interface MarkingAttributeRule {
  name: string;
  hasValue(value: string): boolean;
  /** Ordered by name. */
  valueNames(): string[];
}

export interface Actor {
  name: string;
}

/**
 * Where the store reports each change, in the form it holds the data: a marking without its
 * values, or one value (the durable state journals them; see persistence/records.ts).
 */
export interface MarkingChanges {
  marking(record: MarkingRecord): void;
  markingDeleted(id: string): void;
  value(markingId: string, record: StoredValue): void;
  valueDeleted(markingId: string, id: string): void;
}

/** A stored marking without its values and indexes. */
export type MarkingRecord = Omit<StoredMarking, 'valuesByName' | 'valuesById' | 'sorted'>;

const NO_CHANGES: MarkingChanges = {
  marking: () => undefined,
  markingDeleted: () => undefined,
  value: () => undefined,
  valueDeleted: () => undefined,
};

function markingRecord(m: StoredMarking): MarkingRecord {
  const { valuesByName: _byName, valuesById: _byId, sorted: _sorted, ...record } = m;
  return record;
}

/**
 * One tenant's markings. Every operation runs synchronously once its body is parsed, so operations
 * on one marking are serialised and readers never see half an update.
 */
export class MarkingsStore {
  private readonly byId = new Map<string, StoredMarking>();
  private readonly byName = new Map<string, StoredMarking>();
  private sortedCache: StoredMarking[] | undefined;

  /** `changedBy` of each principal name, built once. */
  private readonly principals = new Map<string, ChangedBy>();

  constructor(
    private readonly ids: IdGenerator,
    private readonly tenantId = '',
    private readonly now: () => number = Date.now,
    private readonly changes: MarkingChanges = NO_CHANGES,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  // ---- reads ----

  list(
    filter: ListFilter,
    skip: number,
    limit: number,
    valueLimit: number | undefined,
  ): { total: number; items: Marking[] } {
    // An exact name that must hold (AND) narrows to one marking through the index.
    const exact = filter.or ? undefined : exactName(filter);
    const candidates =
      exact === undefined ? this.sortedMarkings() : [this.byName.get(exact)].filter(isDefined);
    const filtered = candidates.filter((m) => matchesFilter(filter, m, readMarkingField));
    return {
      total: filtered.length,
      items: filtered.slice(skip, skip + limit).map((m) => this.toWire(m, valueLimit)),
    };
  }

  get(id: string, valueLimit?: number): Marking {
    return this.toWire(this.mustGet(id), valueLimit);
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
    const m = this.mustGet(markingId);
    const exact = filter.or ? undefined : exactName(filter);
    const candidates =
      exact === undefined ? this.sortedValues(m) : [m.valuesByName.get(exact)].filter(isDefined);
    const values = candidates.filter((v) => matchesFilter(filter, v, readValueField));
    return {
      total: values.length,
      items: values.slice(skip, skip + limit).map((v) => this.valueToWire(m.id, v)),
    };
  }

  getValue(markingId: string, valueId: string): MarkingValue {
    const m = this.mustGet(markingId);
    return this.valueToWire(m.id, this.mustGetValue(m, valueId));
  }

  /**
   * The marking named `name` as device requests see it: markings are the attributes of keys
   * (DESIGN.md 2.4), so a key attribute of this name may only carry these values.
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

  /** Markings with a default value, which keys created without their attribute receive. */
  defaults(): { name: string; defaultValue: string }[] {
    return this.sortedMarkings().flatMap((m) =>
      m.defaultValue === null ? [] : [{ name: m.name, defaultValue: m.defaultValue }],
    );
  }

  // ---- writes ----

  create(raw: unknown, actor: Actor): Marking {
    const problems: ErrorDetailWire[] = [];
    const spec = parseMarkingSpec(raw, '', 'create', problems);
    this.checkDefault(spec, undefined, '', problems);
    if (problems.length > 0) throw validationError(problems);
    if (this.byName.has(spec.name!)) throw duplicateMarking(spec.name!);
    return this.toWire(this.insert(spec, actor), undefined);
  }

  update(id: string, raw: unknown, actor: Actor, ifMatch: number | undefined): Marking {
    const m = this.mustGet(id);
    this.checkVersion(m, ifMatch);
    const problems: ErrorDetailWire[] = [];
    const spec = parseMarkingSpec(raw, '', 'update', problems);
    this.checkValueIds(m, spec, '', problems);
    this.checkDefault(spec, m, '', problems);
    if (problems.length > 0) throw validationError(problems);
    if (spec.name !== undefined && spec.name !== m.name && this.byName.has(spec.name)) {
      throw duplicateMarking(spec.name);
    }
    this.apply(m, spec, actor);
    return this.toWire(m, undefined);
  }

  /** Create or Update Multiple: everything is checked before anything changes. */
  bulk(raw: unknown, actor: Actor, valueLimit: number | undefined): Marking[] {
    if (!Array.isArray(raw)) throw validationError([{ path: '$', message: 'must be an array' }]);
    if (raw.length > BULK_MAX_ITEMS) {
      throw new MockHttpError(
        413,
        MarkingsErrorCode.payloadTooLarge,
        `at most ${BULK_MAX_ITEMS} markings per request, got ${raw.length}`,
      );
    }
    const problems: ErrorDetailWire[] = [];
    const specs = raw.map((item, i) => {
      const hasId = typeof item === 'object' && item !== null && 'id' in item;
      return parseMarkingSpec(item, `[${i}]`, hasId ? 'update' : 'create', problems);
    });
    const missing: ErrorDetailWire[] = [];
    specs.forEach((spec, i) => {
      const existing = spec.id !== undefined ? this.byId.get(spec.id) : undefined;
      if (spec.id !== undefined && !existing) {
        missing.push({ path: `[${i}].id`, message: `no marking with id ${spec.id}` });
        return;
      }
      this.checkValueIds(existing, spec, `[${i}]`, problems);
      this.checkDefault(spec, existing, `[${i}]`, problems);
    });
    if (problems.length > 0) throw validationError(problems);
    if (missing.length > 0) {
      throw new MockHttpError(404, MarkingsErrorCode.notFound, missing[0]!.message, missing);
    }
    this.checkBulkNames(specs);
    const touched = specs.map((spec) => {
      if (spec.id === undefined) return this.insert(spec, actor);
      const m = this.byId.get(spec.id)!;
      this.apply(m, spec, actor);
      return m;
    });
    return touched.map((m) => this.toWire(m, valueLimit));
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
    return this.valueToWire(m.id, value);
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
    if (!spec || problems.length > 0) throw validationError(problems);
    const renamed = spec.name !== undefined && spec.name !== value.name;
    if (renamed && m.valuesByName.has(spec.name!)) throw duplicateValue(spec.name!, m.name);
    const describe = spec.description !== undefined && spec.description !== value.description;
    if (!renamed && !describe) return this.valueToWire(m.id, value);
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
    return this.valueToWire(m.id, value);
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

  clear(): void {
    this.byId.clear();
    this.byName.clear();
    this.sortedCache = undefined;
  }

  // ---- internals ----

  private mustGet(id: string): StoredMarking {
    const m = this.byId.get(id);
    if (!m) throw new MockHttpError(404, MarkingsErrorCode.notFound, `no marking with id ${id}`);
    return m;
  }

  private mustGetValue(m: StoredMarking, valueId: string): StoredValue {
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

  private checkVersion(m: StoredMarking, ifMatch: number | undefined): void {
    if (ifMatch !== undefined && ifMatch !== m.version) {
      throw new MockHttpError(
        412,
        MarkingsErrorCode.preconditionFailed,
        `marking "${m.name}" is at version ${m.version}, not ${ifMatch}`,
      );
    }
  }

  /** Values given with an id must belong to the marking being updated. */
  private checkValueIds(
    m: StoredMarking | undefined,
    spec: MarkingSpec,
    prefix: string,
    problems: ErrorDetailWire[],
  ): void {
    // Each existing value may be matched once, by id or by name, or two entries would fight over it.
    const matchedBy = new Map<StoredValue, number>();
    // A new marking has no values to match: nothing to check for its values.
    if (m === undefined && !spec.values?.some((v) => v.id !== undefined)) return;
    spec.values?.forEach((v, i) => {
      const path = () => `${prefix ? `${prefix}.` : ''}detail.values[${i}]`;
      if (v.id !== undefined && !m?.valuesById.has(v.id)) {
        problems.push({
          path: `${path()}.id`,
          message: `no value with id ${v.id} in this marking`,
        });
        return;
      }
      const existing = v.id !== undefined ? m?.valuesById.get(v.id) : m?.valuesByName.get(v.name);
      if (existing === undefined) return;
      const other = matchedBy.get(existing);
      if (other !== undefined) {
        problems.push({
          path: path(),
          message: `matches the same existing value ("${existing.name}") as detail.values[${other}]`,
        });
      }
      matchedBy.set(existing, i);
    });
  }

  /** defaultValue must name one of the values the marking will have. */
  private checkDefault(
    spec: MarkingSpec,
    m: StoredMarking | undefined,
    prefix: string,
    problems: ErrorDetailWire[],
  ): void {
    const wanted = spec.defaultValue !== undefined ? spec.defaultValue : (m?.defaultValue ?? null);
    if (wanted === null) return;
    const names = spec.values
      ? new Set(
          spec.values.map((v) => v.name ?? (v.id ? m?.valuesById.get(v.id)?.name : undefined)),
        )
      : new Set(m?.valuesByName.keys());
    if (!names.has(wanted)) {
      problems.push({
        path: `${prefix ? `${prefix}.` : ''}defaultValue`,
        message: `"${wanted}" is not one of the marking's values`,
      });
    }
  }

  /** Marking names after the whole request must be unique, renames and swaps included. */
  private checkBulkNames(specs: MarkingSpec[]): void {
    const finalName = new Map<string, string>();
    for (const m of this.byId.values()) finalName.set(m.id, m.name);
    const indexById = new Map<string, number>();
    specs.forEach((spec, i) => {
      if (spec.id === undefined) return;
      indexById.set(spec.id, i);
      if (spec.name !== undefined) finalName.set(spec.id, spec.name);
    });
    const conflicts: ErrorDetailWire[] = [];
    const conflict = (i: number, message: string) =>
      conflicts.push({ path: `[${i}].name`, message });
    // Owner of each final name: a marking id, or `#i` for the i-th new item.
    const owner = new Map<string, string>();
    for (const [id, name] of finalName) {
      const other = owner.get(name);
      if (other === undefined) owner.set(name, id);
      else
        conflict(indexById.get(id) ?? indexById.get(other)!, `"${name}" would name two markings`);
    }
    specs.forEach((spec, i) => {
      if (spec.id !== undefined || spec.name === undefined) return;
      const other = owner.get(spec.name);
      if (other === undefined) owner.set(spec.name, `#${i}`);
      else if (other.startsWith('#'))
        conflict(i, `"${spec.name}" is also used by item ${other.slice(1)}`);
      else if (indexById.has(other))
        conflict(i, `"${spec.name}" is also the new name of item ${indexById.get(other)}`);
      else conflict(i, `a marking named "${spec.name}" already exists`);
    });
    if (conflicts.length > 0) {
      throw new MockHttpError(
        409,
        MarkingsErrorCode.duplicateName,
        `duplicate marking name: ${conflicts[0]!.path}: ${conflicts[0]!.message}`,
        conflicts,
      );
    }
  }

  private insert(spec: MarkingSpec, actor: Actor): StoredMarking {
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
    this.byId.set(m.id, m);
    this.byName.set(m.name, m);
    this.sortedCache = undefined;
    this.changes.marking(markingRecord(m));
    for (const v of spec.values ?? []) this.addValue(m, this.newValue(v, actor));
    return m;
  }

  /** Applies a validated partial update; bumps the version once if anything changed. */
  private apply(m: StoredMarking, spec: MarkingSpec, actor: Actor): void {
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
    if (spec.values) changed = this.replaceValues(m, spec.values, actor) || changed;
    if (changed) this.touch(m, actor, defaultChanged);
  }

  /** The complete set: matched by id when given, else by name; the rest are deleted. */
  private replaceValues(m: StoredMarking, specs: ValueSpec[], actor: Actor): boolean {
    const now = this.now();
    let changed = false;
    const keep = new Set<StoredValue>();
    const updates: [StoredValue, ValueSpec][] = [];
    const creates: ValueSpec[] = [];
    for (const spec of specs) {
      const existing =
        spec.id !== undefined ? m.valuesById.get(spec.id) : m.valuesByName.get(spec.name);
      if (existing) {
        keep.add(existing);
        updates.push([existing, spec]);
      } else creates.push(spec);
    }
    for (const v of [...m.valuesById.values()]) {
      if (keep.has(v)) continue;
      m.valuesById.delete(v.id);
      m.valuesByName.delete(v.name);
      this.changes.valueDeleted(m.id, v.id);
      changed = true;
    }
    for (const [v, spec] of updates) {
      const describe = spec.description !== undefined && spec.description !== v.description;
      if (spec.name === v.name && !describe) continue;
      if (spec.name !== v.name) {
        if (m.valuesByName.get(v.name) === v) m.valuesByName.delete(v.name);
        v.name = spec.name;
      }
      if (describe) v.description = spec.description!;
      v.updatedTs = now;
      v.updatedBy = actor.name;
      v.version++;
      this.changes.value(m.id, v);
      changed = true;
    }
    for (const v of updates.map(([v]) => v)) m.valuesByName.set(v.name, v);
    for (const spec of creates) {
      this.addValue(m, this.newValue(spec, actor));
      changed = true;
    }
    if (changed) m.sorted = undefined;
    return changed;
  }

  private newValue(spec: ValueSpec, actor: Actor): StoredValue {
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

  private addValue(m: StoredMarking, v: StoredValue): void {
    m.valuesByName.set(v.name, v);
    m.valuesById.set(v.id, v);
    m.sorted = undefined;
    this.changes.value(m.id, v);
  }

  /** Bumps the version; `defaultSet`: the default value was set or renamed by this change. */
  private touch(m: StoredMarking, actor: Actor, defaultSet = false): void {
    m.version++;
    m.updatedTs = this.now();
    m.updatedBy = actor.name;
    if (defaultSet) m.defaultVersion = m.defaultValue === null ? 0 : m.version;
    this.changes.marking(markingRecord(m));
  }

  // ---- durable state: replaying the records reported to `changes`, and listing them ----

  restoreMarking(record: MarkingRecord): void {
    restoreNamed(this.byId, this.byName, record, () => ({
      ...record,
      valuesByName: new Map(),
      valuesById: new Map(),
      sorted: undefined,
    }));
    this.sortedCache = undefined;
  }

  forgetMarking(id: string): void {
    forgetNamed(this.byId, this.byName, id);
    this.sortedCache = undefined;
  }

  /** Takes `record` over as the stored value (records are parsed afresh from the files). */
  restoreValue(markingId: string, record: StoredValue): void {
    const m = this.mustGet(markingId);
    restoreNamed(m.valuesById, m.valuesByName, record, () => record);
    m.sorted = undefined;
  }

  forgetValue(markingId: string, id: string): void {
    const m = this.mustGet(markingId);
    forgetNamed(m.valuesById, m.valuesByName, id);
    m.sorted = undefined;
  }

  /** Every marking with its values, copies of the records `changes` receives (a snapshot). */
  *records(): Generator<{ marking: MarkingRecord; values: StoredValue[] }> {
    for (const m of this.byId.values()) {
      const values = [...m.valuesById.values()].map((v) => ({ ...v }));
      yield { marking: markingRecord(m), values };
    }
  }

  private sortedMarkings(): StoredMarking[] {
    this.sortedCache ??= [...this.byId.values()].sort(byName);
    return this.sortedCache;
  }

  private sortedValues(m: StoredMarking): StoredValue[] {
    m.sorted ??= [...m.valuesById.values()].sort(byName);
    return m.sorted;
  }

  /** valueLimit 0 leaves values out and does no per-value work at all. */
  private toWire(m: StoredMarking, valueLimit: number | undefined): Marking {
    const detail: Marking['detail'] = {
      description: m.description,
      valueCount: m.valuesById.size,
      dataType: 'string',
      default: false,
      defaultVersion: m.defaultVersion,
      policies: { referenced: 0 },
    };
    if (valueLimit !== 0) {
      const sorted = this.sortedValues(m);
      const slice = valueLimit === undefined ? sorted : sorted.slice(0, valueLimit);
      detail.values = slice.map((v) => this.valueToWire(m.id, v));
    }
    return {
      id: m.id,
      name: m.name,
      public: m.public,
      adminOnly: m.adminOnly,
      defaultValue: m.defaultValue,
      detail,
      _createdTs: m.createdTs,
      _createdBy: m.createdBy,
      _updatedTs: m.updatedTs,
      _updatedBy: m.updatedBy,
      _version: m.version,
      changedBy: this.changedBy(m.updatedBy),
    };
  }

  private valueToWire(markingId: string, v: StoredValue): MarkingValue {
    return {
      id: v.id,
      markingId,
      name: v.name,
      description: v.description,
      _createdTs: v.createdTs,
      _createdBy: v.createdBy,
      _updatedTs: v.updatedTs,
      _updatedBy: v.updatedBy,
      _version: v.version,
      changedBy: this.changedBy(v.updatedBy),
      policies: { referenced: 0, relevant: 0 },
    };
  }

  /** The public API's principal object; its id is stable for a name within the tenant. */
  private changedBy(userName: string): ChangedBy {
    let principal = this.principals.get(userName);
    if (principal === undefined) {
      const id = createHash('sha256')
        .update(`${this.tenantId}/${userName}`)
        .digest('hex')
        .slice(0, 24);
      principal = { tenantId: this.tenantId, id, userName, display: userName, exists: true };
      this.principals.set(userName, principal);
    }
    return { ...principal };
  }
}

function isDefined<T>(item: T | undefined): item is T {
  return item !== undefined;
}

/**
 * Puts a replayed record into an id index and a name index, updating an existing entry in place.
 * A rename replayed after a swap may find its old name taken by the other entry already.
 */
function restoreNamed<T extends { id: string; name: string }>(
  byId: Map<string, T>,
  byName: Map<string, T>,
  record: { id: string; name: string },
  fresh: () => T,
): void {
  const existing = byId.get(record.id);
  if (!existing) {
    const entry = fresh();
    byId.set(entry.id, entry);
    byName.set(entry.name, entry);
    return;
  }
  if (byName.get(existing.name) === existing) byName.delete(existing.name);
  Object.assign(existing, record);
  byName.set(existing.name, existing);
}

function forgetNamed<T extends { name: string }>(
  byId: Map<string, T>,
  byName: Map<string, T>,
  id: string,
): void {
  const existing = byId.get(id);
  if (!existing) return;
  byId.delete(id);
  if (byName.get(existing.name) === existing) byName.delete(existing.name);
}

/** The name an AND filter requires exactly, if it has a `name=` term. */
function exactName(filter: ListFilter): string | undefined {
  const term = filter.terms.find((t) => t.field === 'name' && t.op === 'eq' && !t.negated);
  return term === undefined ? undefined : (term.operands[0] as string);
}

/** What markings and values share: every filterable field of a value. */
type CommonFields = Pick<StoredValue, 'id' | 'name' | 'description' | 'createdTs' | 'updatedTs'>;

const readValueField: FieldReader<CommonFields> = (v, field) => {
  switch (field as ValueFilterField) {
    case 'id':
      return v.id;
    case 'name':
      return v.name;
    case 'description':
      return v.description;
    case '_createdTs':
      return v.createdTs;
    case '_updatedTs':
      return v.updatedTs;
  }
};

const readMarkingField: FieldReader<StoredMarking> = (m, field) => {
  switch (field as MarkingFilterField) {
    case 'public':
      return m.public;
    case 'adminOnly':
      return m.adminOnly;
    case 'defaultValue':
      return m.defaultValue;
    case '_createdBy':
      return m.createdBy;
    case '_updatedBy':
      return m.updatedBy;
    default:
      return readValueField(m, field);
  }
};

function duplicateMarking(name: string): MockHttpError {
  return new MockHttpError(
    409,
    MarkingsErrorCode.duplicateName,
    `a marking named "${name}" already exists`,
    [{ path: 'name', message: 'must be unique in the tenant' }],
  );
}

function duplicateValue(name: string, marking: string): MockHttpError {
  return new MockHttpError(
    409,
    MarkingsErrorCode.duplicateName,
    `marking "${marking}" already has a value named "${name}"`,
    [{ path: 'name', message: 'must be unique within the marking' }],
  );
}

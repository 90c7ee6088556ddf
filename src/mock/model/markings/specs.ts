/**
 * Request bodies of the markings endpoints, checked before anything changes: read into specs with
 * every problem collected (a 400 lists them all), then checked against the stored markings (value
 * ids, the default value, unique names across a bulk request), and the errors for names in use.
 */
import { descriptionProblem, nameProblem } from '../../../common/markings/names.js';
import type { ErrorDetailWire } from '../../../common/http/error-body.js';
import { MarkingsErrorCode, VALUES_MAX_PER_MARKING } from '../../../common/markings/wire.js';
import { MockHttpError } from '../../kit/http.js';
import type { StoredMarking, StoredValue } from './stored.js';
import { CHEAP_UNITS, type Steps } from '../../kit/pacing.js';

/** A value in a request body after validation. */
export interface ValueSpec {
  id?: string;
  name: string;
  description?: string;
}

/** A create or update body after validation; `values` present means "the complete set". */
export interface MarkingSpec {
  id?: string;
  name?: string;
  public?: boolean;
  adminOnly?: boolean;
  defaultValue?: string | null;
  description?: string;
  values?: ValueSpec[];
}

/**
 * Problems an answer lists: one for each item of the largest bulk request, not the millions a
 * hostile 32 MiB body can hold (one a member, one a value). The message counts them all.
 */
const DETAILS_MAX = 1000;

export function validationError(details: ErrorDetailWire[]): MockHttpError {
  const first = details[0];
  const summary = first ? `${first.path}: ${first.message}` : 'invalid request';
  const listed =
    details.length <= DETAILS_MAX
      ? details
      : [
          ...details.slice(0, DETAILS_MAX),
          { path: '$', message: `and ${details.length - DETAILS_MAX} more problems` },
        ];
  return new MockHttpError(
    400,
    MarkingsErrorCode.validation,
    `validation failed: ${summary}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}`,
    listed,
  );
}

/**
 * The members a body may hold (docs/design.md 1.2: nothing is silently ignored): what a request
 * sets, and what the service manages (timestamps, versions, counts), which is accepted and left
 * alone so that a marking or value as read can be sent back. Any other member is a 400 naming it.
 */
const MEMBERS = {
  marking: {
    sets: ['id', 'name', 'public', 'adminOnly', 'defaultValue', 'detail'],
    managed: ['_createdTs', '_createdBy', '_updatedTs', '_updatedBy', '_version', 'changedBy'],
    takes: 'a marking takes name, public, adminOnly, defaultValue and detail',
  },
  detail: {
    sets: ['description', 'values'],
    managed: ['valueCount', 'dataType', 'default', 'defaultVersion', 'policies'],
    takes: 'detail takes description and values',
  },
  value: {
    sets: ['id', 'name', 'description'],
    managed: [
      'markingId',
      '_createdTs',
      '_createdBy',
      '_updatedTs',
      '_updatedBy',
      '_version',
      'changedBy',
      'policies',
    ],
    takes: 'a value takes name and description',
  },
} as const;

type MemberSet = keyof typeof MEMBERS;
const KNOWN: Record<MemberSet, ReadonlySet<string>> = {
  marking: new Set([...MEMBERS.marking.sets, ...MEMBERS.marking.managed]),
  detail: new Set([...MEMBERS.detail.sets, ...MEMBERS.detail.managed]),
  value: new Set([...MEMBERS.value.sets, ...MEMBERS.value.managed]),
};

/** Where a member put at the wrong level belongs. */
const BELONGS: Partial<Record<MemberSet, Record<string, string>>> = {
  marking: {
    description: "a marking's description goes in detail.description",
    values: "a marking's values go in detail.values",
  },
  detail: Object.fromEntries(
    ['name', 'public', 'adminOnly', 'defaultValue'].map((m) => [
      m,
      `${m} is a member of the marking, not of detail`,
    ]),
  ),
};

/** Unknown members told one by one in an object; the rest are counted. */
const UNKNOWN_LISTED = 10;

/** A problem for each member of `body` that `set` does not know. */
function unknownMembers(
  body: Record<string, unknown>,
  set: MemberSet,
  path: (member: string) => string,
  problems: ErrorDetailWire[],
): void {
  const known = KNOWN[set];
  let unknown = 0;
  for (const member in body) {
    if (known.has(member) || !Object.hasOwn(body, member)) continue;
    if (++unknown > UNKNOWN_LISTED) continue;
    const advice = BELONGS[set]?.[member] ?? MEMBERS[set].takes;
    // A member that is no plain name (a space, a dot) is quoted, so the path stays readable.
    const name = /^[A-Za-z_$][\w$]*$/.test(member) ? member : JSON.stringify(member);
    problems.push({ path: path(name), message: `unknown member: ${advice}` });
  }
  if (unknown > UNKNOWN_LISTED) {
    problems.push({
      path: path('*'),
      message: `and ${unknown - UNKNOWN_LISTED} more unknown members`,
    });
  }
}

/**
 * Reads a request body into a MarkingSpec, collecting every problem under `prefix`; in steps
 * (pacing.ts), one a value: a marking may hold 100,000.
 */
export function* parseMarkingSpecSteps(
  raw: unknown,
  prefix: string,
  mode: 'create' | 'update',
  problems: ErrorDetailWire[],
): Steps<MarkingSpec> {
  const at = (path: string) => (prefix ? `${prefix}.${path}` : path);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push({ path: prefix || '$', message: 'must be a JSON object' });
    return {};
  }
  const body = raw as Record<string, unknown>;
  unknownMembers(body, 'marking', at, problems);
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
    unknownMembers(detail, 'detail', (member) => at(`detail.${member}`), problems);
    if (detail.description !== undefined) {
      const problem = descriptionProblem(detail.description);
      if (problem) problems.push({ path: at('detail.description'), message: problem });
      else spec.description = detail.description as string;
    }
    if (detail.values !== undefined) {
      spec.values = yield* parseValueSpecs(detail.values, at('detail.values'), problems);
    }
  }
  return spec;
}

function* parseValueSpecs(
  raw: unknown,
  path: string,
  problems: ErrorDetailWire[],
): Steps<ValueSpec[]> {
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
  for (const [i, item] of raw.entries()) {
    yield;
    // The item's path is only spelt out for a problem: a bulk request holds 50,000 values.
    const spec = parseValueSpec(item, () => `${path}[${i}]`, 'create', problems);
    if (!spec) continue;
    if (seen.has(spec.name!)) {
      problems.push({ path: `${path}[${i}].name`, message: `duplicate value name "${spec.name}"` });
    }
    seen.add(spec.name!);
    specs.push(spec as ValueSpec);
  }
  return specs;
}

export function parseValueSpec(
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
  const before = problems.length;
  unknownMembers(v, 'value', (member) => `${path()}.${member}`, problems);
  let ok = problems.length === before;
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

/** Ids told back in a problem are cut: an "id" in a body may be thousands of characters. */
const ID_SHOWN_MAX = 64;

/** An id from a body as a problem tells it: as sent, or its start. */
export function shownId(id: string): string {
  return id.length <= ID_SHOWN_MAX ? id : `${id.slice(0, ID_SHOWN_MAX - 1)}…`;
}

/**
 * An `id` in a create's body: the service assigns ids, and nothing is silently ignored
 * (docs/design.md 1.2). `update` is the path that changes what the id names.
 */
export function newIdProblem(
  given: string | undefined,
  path: string,
  update: (id: string) => string,
): ErrorDetailWire | undefined {
  if (given === undefined) return undefined;
  return {
    path,
    message: `the service assigns ids: leave it out, or PUT ${update(shownId(given))}`,
  };
}

/** An `id` in an update's body: the id of what is updated, as read, or a problem. */
export function otherIdProblem(
  given: string | undefined,
  target: string,
  path: string,
): ErrorDetailWire | undefined {
  if (given === undefined || given === target) return undefined;
  return { path, message: `is ${shownId(given)}, but this updates ${target}: an id never changes` };
}

/**
 * A body's values against the marking they update (or none, for a new marking): values given with
 * an id must belong to it, and each existing value may be matched once; defaultValue must name one
 * of the values the marking will have. In steps (pacing.ts): a marking may hold 100,000, and
 * checking them took tens of milliseconds.
 */
export function* checkValuesSteps(
  m: StoredMarking | undefined,
  spec: MarkingSpec,
  prefix: string,
  problems: ErrorDetailWire[],
): Steps<void> {
  yield* checkValueIdsSteps(m, spec, prefix, problems);
  yield* checkDefaultSteps(spec, m, prefix, problems);
}

function* checkValueIdsSteps(
  m: StoredMarking | undefined,
  spec: MarkingSpec,
  prefix: string,
  problems: ErrorDetailWire[],
): Steps<void> {
  // A new marking has no values to match: nothing to check for its values.
  if (m === undefined && !spec.values?.some((v) => v.id !== undefined)) return;
  // Each existing value may be matched once, by id or by name, or two entries would fight over it.
  const matchedBy = new Map<StoredValue, number>();
  for (const [i, v] of (spec.values ?? []).entries()) {
    if (i % CHEAP_UNITS === CHEAP_UNITS - 1) yield;
    const path = () => `${prefix ? `${prefix}.` : ''}detail.values[${i}]`;
    if (v.id !== undefined && !m?.valuesById.has(v.id)) {
      problems.push({
        path: `${path()}.id`,
        message: `no value with id ${shownId(v.id)} in this marking`,
      });
      continue;
    }
    const existing = v.id !== undefined ? m?.valuesById.get(v.id) : m?.valuesByName.get(v.name);
    if (existing === undefined) continue;
    const other = matchedBy.get(existing);
    if (other !== undefined) {
      problems.push({
        path: path(),
        message: `matches the same existing value ("${existing.name}") as detail.values[${other}]`,
      });
    }
    matchedBy.set(existing, i);
  }
}

function* checkDefaultSteps(
  spec: MarkingSpec,
  m: StoredMarking | undefined,
  prefix: string,
  problems: ErrorDetailWire[],
): Steps<void> {
  const wanted = spec.defaultValue !== undefined ? spec.defaultValue : (m?.defaultValue ?? null);
  if (wanted === null) return;
  let named: boolean;
  if (spec.values) {
    named = false;
    for (const [i, v] of spec.values.entries()) {
      if (i % CHEAP_UNITS === CHEAP_UNITS - 1) yield;
      if ((v.name ?? (v.id ? m?.valuesById.get(v.id)?.name : undefined)) === wanted) {
        named = true;
        break;
      }
    }
  } else named = m?.valuesByName.has(wanted) ?? false;
  if (!named) {
    problems.push({
      path: `${prefix ? `${prefix}.` : ''}defaultValue`,
      message: `"${wanted}" is not one of the marking's values`,
    });
  }
}

/** Marking names after the whole request must be unique, renames and swaps included. */
export function checkBulkNames(stored: Iterable<StoredMarking>, specs: MarkingSpec[]): void {
  const finalName = new Map<string, string>();
  for (const m of stored) finalName.set(m.id, m.name);
  const indexById = new Map<string, number>();
  specs.forEach((spec, i) => {
    if (spec.id === undefined) return;
    indexById.set(spec.id, i);
    if (spec.name !== undefined) finalName.set(spec.id, spec.name);
  });
  const conflicts: ErrorDetailWire[] = [];
  const conflict = (i: number, message: string) => conflicts.push({ path: `[${i}].name`, message });
  // Owner of each final name: a marking id, or `#i` for the i-th new item.
  const owner = new Map<string, string>();
  for (const [id, name] of finalName) {
    const other = owner.get(name);
    if (other === undefined) owner.set(name, id);
    else conflict(indexById.get(id) ?? indexById.get(other)!, `"${name}" would name two markings`);
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

export function duplicateMarking(name: string): MockHttpError {
  return new MockHttpError(
    409,
    MarkingsErrorCode.duplicateName,
    `a marking named "${name}" already exists`,
    [{ path: 'name', message: 'must be unique in the tenant' }],
  );
}

export function duplicateValue(name: string, marking: string): MockHttpError {
  return new MockHttpError(
    409,
    MarkingsErrorCode.duplicateName,
    `marking "${marking}" already has a value named "${name}"`,
    [{ path: 'name', message: 'must be unique within the marking' }],
  );
}

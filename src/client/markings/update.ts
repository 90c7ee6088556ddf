/**
 * How `markings update` changes a marking, apart from the command line: the checks made before
 * anything is sent (the values change, a free name), a complete set of values put under
 * If-Match that survives someone else's change meanwhile, and the words for what was done.
 */
import type { MarkingsApi } from './markings-api.js';
import type {
  Marking,
  MarkingUpdate,
  MarkingValue,
  ValueInput,
} from '../../common/markings/wire.js';
import { quoted } from '../../common/text/words.js';
import { ConflictError, InputError, NotFoundError, UsageError } from '../../common/errors.js';
import { plural, quotedNames } from '../../common/text/words.js';
import type { NameAndDescription } from './changes.js';
const SET_VALUES_ATTEMPTS = 5;

/**
 * Update Marking with a complete set of values, guarded by If-Match: if someone changed the marking
 * meanwhile (412), read it again and rebuild the set, so their other changes are not overwritten
 * blindly. A value the user was not shown as going (one added meanwhile) is never removed: the
 * command stops instead, with nothing changed.
 */
export async function putCompleteSet(
  api: MarkingsApi,
  read: Marking,
  scalar: MarkingUpdate,
  wanted: NameAndDescription[],
  confirmedRemovals: ReadonlySet<string>,
): Promise<Marking> {
  let current = read;
  for (let attempt = 1; ; attempt++) {
    const existing = new Map((current.detail.values ?? []).map((v) => [v.name, v]));
    const wantedNames = new Set(wanted.map((w) => w.name));
    const unconfirmed = [...existing.keys()].filter(
      (name) => !wantedNames.has(name) && !confirmedRemovals.has(name),
    );
    if (unconfirmed.length > 0) {
      throw new ConflictError(
        `marking "${current.name}" changed meanwhile: the new set would also remove ${quotedNames(unconfirmed)}; nothing was changed`,
        { hint: 'run the command again to see and confirm what it removes' },
      );
    }
    const values: ValueInput[] = wanted.map((w) => {
      const old = existing.get(w.name);
      return old
        ? { id: old.id, name: w.name, description: w.description ?? old.description }
        : { name: w.name, description: w.description };
    });
    try {
      return await api.updateMarking(
        current.id,
        { ...scalar, detail: { ...scalar.detail, values } },
        current._version,
      );
    } catch (error) {
      const stale = error instanceof ConflictError && error.status === 412;
      if (!stale || attempt >= SET_VALUES_ATTEMPTS) throw error;
    }
    current = await api.getMarking(read.id);
  }
}

/** The marking fields an update changes, as a user calls them. */
export function changedFields(scalar: MarkingUpdate): string[] {
  const fields: string[] = [];
  if (scalar.name !== undefined) fields.push(`name (to ${JSON.stringify(scalar.name)})`);
  if (scalar.detail?.description !== undefined) fields.push('description');
  if (scalar.public !== undefined) fields.push('public');
  if (scalar.adminOnly !== undefined) fields.push('admin-only');
  if (scalar.defaultValue !== undefined) fields.push('default value');
  return fields;
}

/**
 * Everything about an update that the marking as read can tell, checked before the first request
 * so that a command never stops half-way over something it could have known. Returns the values
 * that go.
 */
export function checkValuesChange(
  marking: Marking,
  change: { adds: NameAndDescription[]; removes: string[]; set?: NameAndDescription[] },
  scalar: MarkingUpdate,
): MarkingValue[] {
  // Read without values: the update touches neither the values nor the default.
  if (marking.detail.values === undefined) return [];
  const values = marking.detail.values;
  const byName = new Map(values.map((v) => [v.name, v]));
  const where = `marking "${marking.name}"`;
  let removed: MarkingValue[];
  let after: Set<string>;
  if (change.set) {
    after = new Set(change.set.map((v) => v.name));
    removed = values.filter((v) => !after.has(v.name));
  } else {
    const taken = change.adds.filter((v) => byName.has(v.name)).map((v) => v.name);
    if (taken.length > 0) {
      throw new ConflictError(
        `${where} already has a value named ${quotedNames(taken)}; nothing was sent`,
      );
    }
    removed = [];
    for (const ref of change.removes) {
      const value = byName.get(ref) ?? values.find((v) => v.id === ref);
      if (!value) {
        throw new NotFoundError(`value ${quoted(ref)} not found in ${where}; nothing was sent`, {
          hint: `list its values with \`ksctl markings values list ${marking.name}\``,
        });
      }
      if (change.adds.some((v) => v.name === value.name)) {
        throw new UsageError(`value ${quoted(value.name)} is both added and removed`);
      }
      removed.push(value);
    }
    after = new Set(values.map((v) => v.name));
    for (const v of removed) after.delete(v.name);
    for (const v of change.adds) after.add(v.name);
  }
  if (typeof scalar.defaultValue === 'string' && !after.has(scalar.defaultValue)) {
    throw new InputError(
      `defaultValue: ${quoted(scalar.defaultValue)} is not one of the marking's values${change.adds.length || change.set ? ' after this update' : ''}; nothing was sent`,
    );
  }
  const defaultValue = marking.defaultValue;
  if (scalar.defaultValue === undefined && defaultValue && !after.has(defaultValue)) {
    throw new ConflictError(
      `value ${quoted(defaultValue)} is the default value of ${where}; nothing was sent`,
      { hint: 'give another one with --default-value, or clear it with --no-default-value' },
    );
  }
  return removed;
}

/** A rename onto a name another marking has would fail after the other changes were made. */
export async function checkNameFree(
  api: MarkingsApi,
  marking: Marking,
  name: string,
): Promise<void> {
  if (name === marking.name) return;
  const { items } = await api.listMarkingsPage({ name, valueLimit: 0, limit: 1 });
  if (items.length > 0) {
    throw new ConflictError(`a marking named ${quoted(name)} already exists; nothing was sent`);
  }
}

export type ChangeKind = 'add' | 'fields' | 'remove';

export interface Change {
  kind: ChangeKind;
  /** The value name, or the fields changed. */
  what: string;
}

/** One request of an update. */
export interface UpdateStep extends Change {
  run: () => Promise<unknown>;
}

const STEP_WORDS: Record<ChangeKind, { done: string; todo: string }> = {
  add: { done: 'added', todo: 'add' },
  fields: { done: 'changed', todo: 'change' },
  remove: { done: 'removed', todo: 'remove' },
};

/** Steps as one phrase per kind: `added values "a", "b"; changed description`. */
export function describeSteps(steps: readonly Change[], tense: 'done' | 'todo'): string {
  const phrases: string[] = [];
  for (const kind of ['add', 'fields', 'remove'] as const) {
    const names = steps.filter((s) => s.kind === kind).map((s) => s.what);
    if (names.length === 0) continue;
    const verb = STEP_WORDS[kind][tense];
    phrases.push(
      kind === 'fields'
        ? `${verb} ${names.join(', ')}`
        : `${verb} ${names.length === 1 ? 'value' : 'values'} ${quotedNames(names)}`,
    );
  }
  return phrases.join('; ');
}

/** What a complete-set update did, from the marking before and after. */
export function describeSetResult(before: Marking, after: Marking, fields: string[]): string {
  const names = (m: Marking) => new Set((m.detail.values ?? []).map((v) => v.name));
  const old = names(before);
  const now = names(after);
  const changes: Change[] = [
    ...[...now].filter((n) => !old.has(n)).map((n) => ({ kind: 'add' as const, what: n })),
    ...(fields.length > 0 ? [{ kind: 'fields' as const, what: fields.join(', ') }] : []),
    ...[...old].filter((n) => !now.has(n)).map((n) => ({ kind: 'remove' as const, what: n })),
  ];
  return changes.length > 0
    ? describeSteps(changes, 'done')
    : `kept its ${plural(now.size, 'value')}`;
}

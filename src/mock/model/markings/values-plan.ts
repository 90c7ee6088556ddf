/**
 * The values plan of a marking update that gives its complete set of values: worked out apart
 * from the marking, one step a value, then put in place in one step (commitValues), so readers
 * never see half of it.
 */
import type { Steps } from '../../kit/pacing.js';
import type { ValueSpec } from './specs.js';
import type { Actor, MarkingChanges, StoredMarking, StoredValue } from './stored.js';

/** A marking's complete set of values, worked out apart from it (planValues). */
export interface ValuesPlan {
  /** The marking's version it was worked out against. */
  version: number;
  byId: Map<string, StoredValue>;
  byName: Map<string, StoredValue>;
  deleted: StoredValue[];
  /** Changed copies of existing values. */
  updated: StoredValue[];
  created: StoredValue[];
}

/** What a plan needs of the store: its clock, and how it makes a new value. */
export interface ValueMaker {
  now(): number;
  newValue(spec: ValueSpec, actor: Actor): StoredValue;
}

/**
 * The complete set of values: matched by id when given, else by name; the rest are deleted.
 * Worked out apart from the marking, one step a value (a value that changes is a changed copy),
 * so that commitValues() changes the marking in one step. Undefined when nothing changes.
 */
export function* planValues(
  maker: ValueMaker,
  m: StoredMarking,
  specs: ValueSpec[],
  actor: Actor,
): Steps<ValuesPlan> {
  const now = maker.now();
  const plan: ValuesPlan = {
    version: m.version,
    byId: new Map(),
    byName: new Map(),
    deleted: [],
    updated: [],
    created: [],
  };
  const kept = new Set<StoredValue>();
  for (const spec of specs) {
    yield;
    const existing =
      spec.id !== undefined ? m.valuesById.get(spec.id) : m.valuesByName.get(spec.name);
    let value: StoredValue;
    if (!existing) {
      value = maker.newValue(spec, actor);
      plan.created.push(value);
    } else {
      kept.add(existing);
      const describe = spec.description !== undefined && spec.description !== existing.description;
      if (spec.name === existing.name && !describe) value = existing;
      else {
        value = {
          ...existing,
          name: spec.name,
          description: describe ? spec.description! : existing.description,
          updatedTs: now,
          updatedBy: actor.name,
          version: existing.version + 1,
        };
        plan.updated.push(value);
      }
    }
    plan.byId.set(value.id, value);
    plan.byName.set(value.name, value);
  }
  for (const v of m.valuesById.values()) {
    yield;
    if (!kept.has(v)) plan.deleted.push(v);
  }
  return plan;
}

/** Puts a plan of planValues() in place; says whether anything changed. */
export function commitValues(changes: MarkingChanges, m: StoredMarking, plan: ValuesPlan): boolean {
  for (const v of plan.deleted) changes.valueDeleted(m.id, v.id);
  for (const v of [...plan.updated, ...plan.created]) changes.value(m.id, v);
  const changed = plan.deleted.length + plan.updated.length + plan.created.length > 0;
  if (!changed) return false;
  m.valuesById = plan.byId;
  m.valuesByName = plan.byName;
  m.sorted = undefined;
  return true;
}

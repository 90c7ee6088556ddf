/**
 * The plan of `markings apply`: what must change, marking by marking and field by field, for the
 * service to match the files. Pure: it compares what the files want with what the service has.
 */
import type { Marking, ValueInput } from '../../common/markings/wire.js';
import { InputError, InternalError } from '../../common/errors.js';
import {
  compareNames,
  type DesiredMarking,
  formatPosition,
} from '../../common/markings/desired.js';

export type ScalarField = 'description' | 'public' | 'adminOnly' | 'defaultValue';

export interface FieldChange {
  field: ScalarField;
  from: string | boolean | null;
  to: string | boolean | null;
}

export interface MarkingUpdatePlan {
  id: string;
  name: string;
  /** `_version` the plan was computed from. */
  version: number;
  /** Values the marking has now. */
  valueCount: number;
  fieldChanges: FieldChange[];
  valuesAdded: { name: string; description?: string }[];
  valuesRemoved: { id: string; name: string }[];
  /** Description changes of values kept. */
  valuesChanged: { id: string; name: string; from: string; to: string }[];
  /**
   * The complete value set after the update, existing values referenced by `id` and carrying
   * their final description; present when values change, for a request that sends the whole set.
   */
  targetValues?: ValueInput[];
}

export interface Plan {
  create: DesiredMarking[];
  update: MarkingUpdatePlan[];
  /** `version` is the `_version` the plan was computed from (the delete is guarded by it). */
  delete: { id: string; name: string; version: number; valueCount: number }[];
  /** Markings in the files that already match the service. */
  unchanged: number;
}

export interface PlanOptions {
  /** Delete markings of the service that no file lists. */
  prune: boolean;
}

/** Names of the markings the caller must fetch with their values (the others with valueLimit=0). */
export function markingsNeedingValues(desired: readonly DesiredMarking[]): Set<string> {
  return new Set(desired.filter((marking) => marking.values !== undefined).map((m) => m.name));
}

export function planIsEmpty(plan: Plan): boolean {
  return plan.create.length === 0 && plan.update.length === 0 && plan.delete.length === 0;
}

/**
 * What must change so that the service matches the files. Markings are identified by name (a file
 * cannot express a rename). A field the file leaves out keeps the service's value; a field given
 * and equal to the service's is no change. Throws InputError when a file keeps a defaultValue that
 * its own value list removes, which the service would reject half-way through.
 */
export function computePlan(
  desired: readonly DesiredMarking[],
  current: readonly Marking[],
  options: PlanOptions,
): Plan {
  const currentByName = new Map(current.map((marking) => [marking.name, marking]));
  const plan: Plan = { create: [], update: [], delete: [], unchanged: 0 };
  const problems: { path: string; message: string }[] = [];

  for (const marking of desired) {
    const existing = currentByName.get(marking.name);
    if (existing === undefined) {
      if (typeof marking.defaultValue === 'string' && marking.values === undefined) {
        problems.push({
          path: formatPosition(marking.source),
          message: `marking "${marking.name}" is new, so its defaultValue "${marking.defaultValue}" must be one of the values it lists; add \`values\``,
        });
      }
      plan.create.push(marking);
      continue;
    }
    const update = diffMarking(marking, existing);
    const lostDefault = lostDefaultValue(marking, existing);
    if (lostDefault !== undefined) {
      problems.push({
        path: formatPosition(marking.source),
        message: `marking "${marking.name}" keeps defaultValue "${lostDefault}" but its values no longer include it; set defaultValue`,
      });
    }
    if (update === undefined) plan.unchanged += 1;
    else plan.update.push(update);
  }
  if (problems.length > 0) {
    throw new InputError('the files cannot be applied to this tenant (nothing was sent)', {
      hint: 'fix the files and run the command again',
      details: problems,
    });
  }

  if (options.prune) {
    const desiredNames = new Set(desired.map((marking) => marking.name));
    for (const marking of current) {
      if (desiredNames.has(marking.name)) continue;
      plan.delete.push({
        id: marking.id,
        name: marking.name,
        version: marking._version,
        valueCount: marking.detail.valueCount,
      });
    }
  }

  plan.create.sort(byName);
  plan.update.sort(byName);
  plan.delete.sort(byName);
  return plan;
}

const byName = (a: { name: string }, b: { name: string }) => compareNames(a.name, b.name);

function lostDefaultValue(marking: DesiredMarking, existing: Marking): string | undefined {
  if (marking.values === undefined || marking.defaultValue !== undefined) return undefined;
  const kept = existing.defaultValue;
  if (kept === null || marking.values.some((value) => value.name === kept)) return undefined;
  return kept;
}

function diffMarking(marking: DesiredMarking, existing: Marking): MarkingUpdatePlan | undefined {
  const fieldChanges: FieldChange[] = [];
  const compare = (
    field: ScalarField,
    to: string | boolean | null | undefined,
    from: string | boolean | null,
  ) => {
    if (to !== undefined && to !== from) fieldChanges.push({ field, from, to });
  };
  compare('description', marking.description, existing.detail.description);
  compare('public', marking.public, existing.public);
  compare('adminOnly', marking.adminOnly, existing.adminOnly);
  compare('defaultValue', marking.defaultValue, existing.defaultValue);

  const update: MarkingUpdatePlan = {
    id: existing.id,
    name: existing.name,
    version: existing._version,
    valueCount: existing.detail.valueCount,
    fieldChanges,
    valuesAdded: [],
    valuesRemoved: [],
    valuesChanged: [],
  };
  if (marking.values !== undefined) diffValues(marking, existing, update);

  const changed =
    fieldChanges.length > 0 ||
    update.valuesAdded.length > 0 ||
    update.valuesRemoved.length > 0 ||
    update.valuesChanged.length > 0;
  return changed ? update : undefined;
}

function diffValues(marking: DesiredMarking, existing: Marking, update: MarkingUpdatePlan): void {
  const currentValues = existing.detail.values;
  if (currentValues === undefined || currentValues.length !== existing.detail.valueCount) {
    throw new InternalError(
      `marking "${existing.name}" was read without all its values, but the files list them`,
    );
  }
  const currentByName = new Map(currentValues.map((value) => [value.name, value]));
  const desiredValues = marking.values ?? [];
  const targetValues: ValueInput[] = [];
  for (const value of desiredValues) {
    const present = currentByName.get(value.name);
    if (present === undefined) {
      update.valuesAdded.push(value);
      targetValues.push(value);
      continue;
    }
    const description = value.description ?? present.description;
    if (description !== present.description) {
      update.valuesChanged.push({
        id: present.id,
        name: present.name,
        from: present.description,
        to: description,
      });
    }
    targetValues.push({ id: present.id, name: present.name, description });
  }
  const desiredNames = new Set(desiredValues.map((value) => value.name));
  for (const value of currentValues) {
    if (!desiredNames.has(value.name))
      update.valuesRemoved.push({ id: value.id, name: value.name });
  }

  update.valuesAdded.sort(byName);
  update.valuesRemoved.sort(byName);
  update.valuesChanged.sort(byName);
  if (update.valuesAdded.length + update.valuesRemoved.length + update.valuesChanged.length > 0) {
    update.targetValues = targetValues.sort(byName);
  }
}

import type { Marking, MarkingValue } from '../../src/common/markings/wire.js';

let lastId = 0;
function nextId(): string {
  lastId += 1;
  return lastId.toString(16).padStart(24, '0');
}

export interface MarkingSpec {
  description?: string;
  public?: boolean;
  adminOnly?: boolean;
  defaultValue?: string | null;
  /** A value's name, or [name, description]. */
  values?: (string | [string, string])[];
  version?: number;
}

/** A marking as the service returns it (with all its values, ordered by name). */
export function serviceMarking(name: string, spec: MarkingSpec = {}): Marking {
  const id = nextId();
  const values: MarkingValue[] = (spec.values ?? [])
    .map((value): [string, string] => (typeof value === 'string' ? [value, ''] : value))
    .map(([valueName, description]) => ({
      id: nextId(),
      markingId: id,
      name: valueName,
      description,
      _createdTs: 1,
      _updatedTs: 1,
      _version: 1,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    id,
    name,
    public: spec.public ?? false,
    adminOnly: spec.adminOnly ?? false,
    defaultValue: spec.defaultValue ?? null,
    detail: { description: spec.description ?? '', valueCount: values.length, values },
    _createdTs: 1,
    _createdBy: 'test',
    _updatedTs: 1,
    _updatedBy: 'test',
    _version: spec.version ?? 1,
  };
}

/** The same marking as a `valueLimit=0` answer: no `detail.values`. */
export function withoutValues(marking: Marking): Marking {
  const { values: _values, ...detail } = marking.detail;
  return { ...marking, detail };
}

/** `count` values named v00000, v00001, ... */
export function manyValues(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `v${String(i).padStart(5, '0')}`);
}

import type { Marking } from '../api/wire.js';
import { InternalError } from '../errors.js';
import { compareNames } from './types.js';

/** A value as written in a file: a plain name when it has no description. */
export type FileValue = string | { name: string; description: string };

/** A marking as written in a file (DESIGN.md 5.1), with the service's defaults left out. */
export interface FileMarking {
  name: string;
  description?: string;
  public?: true;
  adminOnly?: true;
  defaultValue?: string;
  values: FileValue[];
}

export interface MarkingsDocument {
  markings: FileMarking[];
}

/**
 * The file that `apply` turns back into this state: markings and values sorted by name, defaults
 * (public false, adminOnly false, defaultValue null, empty descriptions) left out. `values` is
 * always written, even empty, because a listed set is complete: applying the export restores
 * exactly these values. The markings must have been read with all their values.
 */
export function exportMarkings(markings: readonly Marking[]): MarkingsDocument {
  const sorted = [...markings].sort((a, b) => compareNames(a.name, b.name));
  return { markings: sorted.map(exportMarking) };
}

function exportMarking(marking: Marking): FileMarking {
  const values = marking.detail.values;
  if (values === undefined || values.length !== marking.detail.valueCount) {
    throw new InternalError(`marking "${marking.name}" was read without all its values`);
  }
  const entry: Omit<FileMarking, 'values'> = { name: marking.name };
  if (marking.detail.description !== '') entry.description = marking.detail.description;
  if (marking.public) entry.public = true;
  if (marking.adminOnly) entry.adminOnly = true;
  if (marking.defaultValue !== null) entry.defaultValue = marking.defaultValue;
  return {
    ...entry,
    values: [...values]
      .sort((a, b) => compareNames(a.name, b.name))
      .map((value) =>
        value.description === ''
          ? value.name
          : { name: value.name, description: value.description },
      ),
  };
}

/**
 * YAML, one line per scalar (no folding): long descriptions stay greppable and diff line by line.
 * Names that YAML would read as numbers, booleans or null are quoted by the library.
 */
export async function toYaml(doc: MarkingsDocument): Promise<string> {
  const { stringify } = await import('yaml');
  return stringify(doc, { lineWidth: 0 });
}

export function toJson(doc: MarkingsDocument): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

import type { Marking } from '../../common/markings/wire.js';
import { InternalError, ServiceError } from '../../common/errors.js';
import { chunked } from '../output/streaming.js';
import { compareNames } from '../../common/markings/desired.js';

/** A value as written in a file: a plain name when it has no description. */
export type FileValue = string | { name: string; description: string };

/** A marking as written in a file (docs/design.md 5.1), with the service's defaults left out. */
export interface FileMarking {
  name: string;
  description?: string;
  public?: true;
  adminOnly?: true;
  defaultValue?: string;
  values: FileValue[];
}

/**
 * The file that `apply` turns back into this state, as text in chunks while the markings arrive
 * (memory stays that of a marking or two, however many): markings and values sorted by name,
 * defaults (public false, adminOnly false, defaultValue null, empty descriptions) left out.
 * `values` is always written, even empty, because a listed set is complete: applying the export
 * restores exactly these values. The markings must come in name order, as the service lists them,
 * each with all its values; one that comes again (a page that shifted as a marking was added
 * meanwhile) is written once. `counted` hears of each marking written.
 */
export function exportDocument(
  markings: AsyncIterable<Marking>,
  format: 'json' | 'yaml',
  counted: (marking: Marking) => void = () => undefined,
): AsyncIterable<string> {
  return (async function* () {
    const { item, ...ends } = format === 'json' ? JSON_PARTS : await yamlParts();
    yield* chunked(
      inNameOrder(markings, counted),
      (marking, index) => item(exportMarking(marking), index),
      ends,
    );
  })();
}

/**
 * The document in parts: one marking's text as it sits in the whole (the first one opens the
 * document), what closes it, and the document without markings.
 */
interface Parts {
  item: (marking: FileMarking, index: number) => string;
  end: string;
  empty: string;
}

/** As JSON.stringify(document, null, 2) writes it, a marking two levels in. */
const JSON_PARTS: Parts = {
  item: (marking, index) =>
    `${index === 0 ? '{\n  "markings": [\n' : ',\n'}${JSON.stringify([[marking]], null, 2).slice(6, -6)}`,
  end: '\n  ]\n}\n',
  empty: `${JSON.stringify({ markings: [] }, null, 2)}\n`,
};

const YAML_KEY = 'markings:\n';

/**
 * YAML, one line per scalar (no folding): long descriptions stay greppable and diff line by line.
 * Names that YAML would read as numbers, booleans or null are quoted by the library. A marking is
 * the document of itself alone, its first line (`markings:`) written only once.
 */
async function yamlParts(): Promise<Parts> {
  const { stringify } = await import('yaml');
  const yaml = (markings: FileMarking[]) => stringify({ markings }, { lineWidth: 0 });
  return {
    item: (marking, index) =>
      `${index === 0 ? YAML_KEY : ''}${yaml([marking]).slice(YAML_KEY.length)}`,
    end: '',
    empty: yaml([]),
  };
}

/** The markings in strictly rising name order: a repeat is dropped, a step back is an error. */
async function* inNameOrder(
  markings: AsyncIterable<Marking>,
  counted: (marking: Marking) => void,
): AsyncIterable<Marking> {
  let last: string | undefined;
  for await (const marking of markings) {
    if (last !== undefined && compareNames(marking.name, last) <= 0) {
      if (marking.name === last) continue;
      throw new ServiceError(
        `the service listed marking "${marking.name}" after "${last}", out of name order; the export is incomplete`,
      );
    }
    last = marking.name;
    counted(marking);
    yield marking;
  }
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

/**
 * The fast path for markings files that are valid JSON: JSON.parse and one scan for positions. It
 * only ever accepts; anything it does not like goes to the YAML path, which reports every problem
 * with its position.
 */
import type { ParsedMarking, SourceText } from '../../common/markings/file-format.js';
import {
  checkMarking,
  documentEntries,
  isPlainMapping,
  plainTree,
} from '../../common/markings/file-rules.js';
import type { SourcePosition } from '../../common/markings/desired.js';

/**
 * The fast path for valid JSON files. The YAML library needs seconds for a file of 100,000
 * values (JSON included), while `JSON.parse` needs milliseconds; positions cost one scan of the
 * text. This path only ever accepts: at the first problem the rules of file-rules.ts find (or a
 * syntax error, or a key given twice) it returns undefined, and the caller reads the file again
 * on the path that reports every problem with its position. Messages stay identical that way,
 * and a valid file reads to exactly the same markings on both paths.
 */
export function parseValidJson(
  source: SourceText,
  single = false,
  /** The text as JSON.parse gave it, when the caller has parsed it already. */
  given?: { data: unknown },
): ParsedMarking[] | undefined {
  let data: unknown;
  if (given !== undefined) data = given.data;
  else {
    try {
      data = JSON.parse(source.text);
    } catch {
      return undefined;
    }
  }
  if (!isPlainMapping(data)) return undefined;
  // A marking document may be one marking itself, read as a list of one.
  const itself = single && !('markings' in data);
  // Entries that are not objects fail below anyway: no scan for their places.
  if (!itself && Array.isArray(data.markings) && !data.markings.every(isPlainMapping)) {
    return undefined;
  }
  const places = markingPlaces(source.text, itself);
  if (places === undefined) return undefined;
  try {
    const document = documentEntries(tree, data, single, refuse);
    if (document === undefined) return undefined;
    const entries = 'itself' in document ? [document.itself] : document.entries;
    if (entries.length !== places.length) return undefined;
    const position = positionFinder(source);
    const parsed: ParsedMarking[] = [];
    for (const [index, entry] of entries.entries()) {
      const place = places[index];
      if (place?.nameOffset === undefined) return undefined;
      const checked = checkMarking(tree, entry, () => position(place.offset), refuse);
      if (checked === undefined) return undefined;
      parsed.push({
        marking: checked.marking,
        nameOffset: place.nameOffset,
        namePosition: position(place.nameOffset),
      });
    }
    return parsed;
  } catch (error) {
    if (error === NOT_ACCEPTED) return undefined;
    throw error;
  }
}

const tree = plainTree();
/** Thrown at the first problem: this path only accepts, the others tell what is wrong. */
const NOT_ACCEPTED = new Error('not accepted by the fast path');
const refuse = (): never => {
  throw NOT_ACCEPTED;
};

/**
 * Line and column (1-based) of an offset, as the YAML library's LineCounter counts them. Offsets
 * asked in order (as the readers ask them) cost one scan of the text in all, and no table of line
 * starts: a file of 64 MiB of newlines would make that table half a gigabyte.
 */
export function positionFinder(source: SourceText): (offset: number) => SourcePosition {
  const { text } = source;
  let line = 1;
  let lineStart = 0;
  // The first line break at or after lineStart (-1: none), found once however often it is asked.
  let next = text.indexOf('\n');
  return (offset) => {
    if (offset < lineStart) {
      line = 1;
      lineStart = 0;
      next = text.indexOf('\n');
    }
    while (next !== -1 && next < offset) {
      line += 1;
      lineStart = next + 1;
      next = text.indexOf('\n', lineStart);
    }
    return { file: source.label, line, column: offset - lineStart + 1 };
  };
}

export interface MarkingPlace {
  /** Where the marking's `{` is. */
  offset: number;
  /** Where the value of its `name` key starts (its opening quote). */
  nameOffset?: number;
}

class DuplicateKey extends Error {
  constructor(
    readonly offset: number,
    readonly key: string,
  ) {
    super(key);
  }
}

type Role = 'root' | 'markings' | 'marking' | 'other';

/**
 * One scan of a text that `JSON.parse` accepted: where each entry of the top-level `markings`
 * list (or the top-level marking itself) and its name start, and whether any object repeats a key (JSON.parse keeps the last one
 * silently; the file is then invalid, as it is for YAML). Undefined when a key repeats.
 */
export function markingPlaces(
  text: string,
  rootIsMarking: boolean,
  /** Hears of a repeated key (the reason for undefined): where, and which. */
  duplicate?: (offset: number, key: string) => void,
): MarkingPlace[] | undefined {
  const places: MarkingPlace[] = [];
  let at = 0;
  // Character loops rather than regular expressions: this runs over every value of the file.
  const skipWhiteSpace = () => {
    for (let c = text.charCodeAt(at); c === 32 || c === 10 || c === 13 || c === 9;) {
      c = text.charCodeAt(++at);
    }
  };
  /** From an opening quote to after its closing one (the text is valid JSON). */
  const skipString = () => {
    let end = text.indexOf('"', at + 1);
    for (;;) {
      let backslashes = 0;
      while (text.charCodeAt(end - 1 - backslashes) === 92) backslashes += 1;
      if (backslashes % 2 === 0) break;
      end = text.indexOf('"', end + 1);
    }
    at = end + 1;
  };
  /** A number, true, false or null: up to the next separator. */
  const skipOther = () => {
    for (let c = text.charCodeAt(at); ; c = text.charCodeAt(++at)) {
      if (Number.isNaN(c) || c === 44 || c === 93 || c === 125) return;
      if (c === 32 || c === 10 || c === 13 || c === 9) return;
    }
  };
  const value = (role: Role): void => {
    skipWhiteSpace();
    const ch = text[at];
    if (ch === '{') object(role);
    else if (ch === '[') array(role);
    else if (ch === '"') skipString();
    else skipOther();
  };

  const object = (role: Role): void => {
    const place = role === 'marking' ? places[places.length - 1] : undefined;
    const keys = new Set<string>();
    at += 1;
    for (;;) {
      skipWhiteSpace();
      if (text[at] === '}') break;
      const start = at;
      skipString();
      const raw = text.slice(start, at);
      const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      if (keys.has(key)) throw new DuplicateKey(start, key);
      keys.add(key);
      skipWhiteSpace();
      at += 1; // ':'
      skipWhiteSpace();
      if (place !== undefined && key === 'name') place.nameOffset = at;
      value(role === 'root' && key === 'markings' ? 'markings' : 'other');
      skipWhiteSpace();
      if (text[at] === ',') at += 1;
    }
    at += 1;
  };

  const array = (role: Role): void => {
    at += 1;
    for (;;) {
      skipWhiteSpace();
      if (text[at] === ']') break;
      if (role === 'markings') places.push({ offset: at });
      value(role === 'markings' ? 'marking' : 'other');
      skipWhiteSpace();
      if (text[at] === ',') at += 1;
    }
    at += 1;
  };

  try {
    if (rootIsMarking) {
      skipWhiteSpace();
      places.push({ offset: at });
    }
    value(rootIsMarking ? 'marking' : 'root');
    return places;
  } catch (error) {
    // A repeated key, or nesting deeper than the stack: the careful path decides.
    if (error instanceof DuplicateKey) duplicate?.(error.offset, error.key);
    if (error instanceof DuplicateKey || error instanceof RangeError) return undefined;
    throw error;
  }
}

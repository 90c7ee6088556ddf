/**
 * The second bound on what a user hands ksctl, beside the size cap (bounded-read.ts): how many
 * values a file may hold. Parsed, a value costs tens of bytes whatever its text costs, so a file
 * well under the size cap (64 MiB of `- a` lines, of `[0,0,0`, or `[[[[`) would otherwise take
 * gigabytes. The budget is counted before or while a file is parsed, never after, and a file over
 * it is a clear refusal naming the file and the limit (exit 3). KSCTL_MAX_INPUT_MIB raises both.
 */
import { InputError } from '../errors.js';
import { INPUT_LIMIT_ENV, type ReadLimit } from './bounded-read.js';

const MIB = 1024 * 1024;

/**
 * Values (lists, mappings, keys and scalars, each counted once) per MiB of the size cap: 4,194,304
 * under the default 64 MiB, well above a 100,000-marking export (about 2.5 million with its
 * markings' own weight). Measured at 25-70 bytes each once parsed, this keeps the worst file
 * within ~200 MiB of a command's working set (bench group hostile-inputs).
 */
export const NODES_PER_MIB = 65_536;
/** Nesting no file ksctl reads needs more than a handful of levels of. */
export const NESTING_MAX = 64;
/**
 * Keys in one mapping: the files ksctl reads have a handful (a marking six, a profile six). A
 * key held in a mapping costs ~150 bytes, several times a value in a list.
 */
export const KEYS_MAX = 10_000;

export interface NodeBudget {
  /** The most values the file may hold. */
  nodes: number;
  /** The name of the input in messages: "markings file". */
  what: string;
}

/** The budget that goes with a size cap (inputLimit's). */
export function nodeBudget(limit: ReadLimit): NodeBudget {
  return {
    nodes: Math.max(1, Math.floor((limit.bytes / MIB) * NODES_PER_MIB)),
    what: limit.what,
  };
}

/** `name` holds more values than `budget` allows: exit 3, naming the file and the limit. */
export function tooManyValuesError(name: string, budget: NodeBudget): InputError {
  return new InputError(
    `${name}: more than ${budget.nodes.toLocaleString('en')} values (lists, mappings, keys and scalars, ` +
      `aliases counted where they are used), the most a ${budget.what} may hold`,
    {
      hint: `${INPUT_LIMIT_ENV} raises this limit with the size cap (${NODES_PER_MIB.toLocaleString('en')} values per MiB)`,
    },
  );
}

/** `name` has a mapping of more than KEYS_MAX keys (`where`: " at line 3", or nothing). */
export function tooManyKeysError(name: string, what: string, where = ''): InputError {
  return new InputError(
    `${name}${where}: a mapping of more than ${KEYS_MAX.toLocaleString('en')} keys; a ${what} never has one`,
    { hint: 'the file may be damaged or not the file meant' },
  );
}

/** `name` nests deeper than NESTING_MAX levels. */
export function nestedTooDeeplyError(name: string, what: string): InputError {
  return new InputError(
    `${name}: nested deeper than ${NESTING_MAX} levels of lists or mappings; a ${what} never is`,
    { hint: 'the file may be damaged or not the file meant' },
  );
}

export interface JsonCount {
  /** Values and keys counted, at most budget + 1 (the scan stops there). */
  nodes: number;
  /** Deepest nesting seen, at most NESTING_MAX + 1. */
  depth: number;
  /** Objects three levels down: the entries of a list in the top-level object (`{"markings": [{`). */
  entries: number;
  /** The most keys of one object, at most KEYS_MAX + 1. */
  widest: number;
}

/**
 * One scan of a JSON text, before `JSON.parse` builds anything: its values and keys (every `{`,
 * `[`, `,` and `:` outside strings, plus one) and its nesting. It stops as soon as either is over
 * its limit. Invalid JSON is counted just as well; `JSON.parse` says what is wrong with it after.
 */
export function countJsonNodes(text: string, maxNodes: number): JsonCount {
  let nodes = 1;
  let entries = 0;
  let depth = 0;
  let deepest = 0;
  let widest = 0;
  // Per open level: its keys so far, or -1 for a list.
  const keys = new Int32Array(NESTING_MAX + 2);
  const length = text.length;
  for (let at = 0; at < length; at++) {
    const c = text.charCodeAt(at);
    if (c === 34) {
      // A string: to its closing quote, past escaped ones.
      for (at++; at < length; at++) {
        const s = text.charCodeAt(at);
        if (s === 92) at++;
        else if (s === 34) break;
      }
    } else if (c === 123 || c === 91) {
      nodes++;
      if (++depth > deepest) deepest = depth;
      if (deepest > NESTING_MAX) break;
      if (depth === 3 && c === 123) entries++;
      keys[depth] = c === 123 ? 0 : -1;
    } else if (c === 125 || c === 93) {
      if (depth > 0) depth--;
    } else if (c === 58) {
      nodes++;
      if (depth > 0 && keys[depth] !== -1 && ++keys[depth]! > widest) {
        widest = keys[depth]!;
        if (widest > KEYS_MAX) break;
      }
    } else if (c === 44) {
      nodes++;
    } else {
      continue;
    }
    if (nodes > maxNodes) break;
  }
  return { nodes: Math.min(nodes, maxNodes + 1), depth: deepest, entries, widest };
}

/**
 * `JSON.parse` of a text whose values and nesting are first checked against the budget: a
 * refusal (tooManyValuesError, nestedTooDeeplyError) instead of the memory the parse would take.
 * JSON syntax errors are thrown as `JSON.parse` throws them, for the caller to word.
 */
export function parseJsonWithin(text: string, name: string, budget: NodeBudget): unknown {
  const count = countJsonNodes(text, budget.nodes);
  if (count.nodes > budget.nodes) throw tooManyValuesError(name, budget);
  if (count.depth > NESTING_MAX) throw nestedTooDeeplyError(name, budget.what);
  if (count.widest > KEYS_MAX) throw tooManyKeysError(name, budget.what);
  return JSON.parse(text);
}

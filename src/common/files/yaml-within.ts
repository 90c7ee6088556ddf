/**
 * YAML read to plain values within a node budget (node-budget.ts), for files too large for the
 * `yaml` library's documents with positions (a hundred times the text in memory). js-yaml builds
 * plain values with no syntax tree, about 70 bytes a value; its 4.x line, because 5.x keeps a
 * list of every parse event first, three times that (measured). Values are counted as the
 * parser opens them, so a file over the budget stops there; aliases are counted where they are
 * used, so an alias bomb stops too. Heavy: load it lazily.
 */
import { CORE_SCHEMA, load, type LoadOptions, type State, YAMLException } from 'js-yaml';
import {
  KEYS_MAX,
  NESTING_MAX,
  type NodeBudget,
  nestedTooDeeplyError,
  tooManyKeysError,
  tooManyValuesError,
} from './node-budget.js';

/** Where a node starts: 1-based line and column, and the offset. */
export interface YamlPlace {
  line: number;
  column: number;
  offset: number;
}

export interface YamlHook {
  /** The nesting level (the document's top node is 1) whose nodes `replace` sees. */
  depth: number;
  /**
   * Called as each node at `depth` is complete, with where it starts; what it returns takes the
   * node's place in its parent, so a large list can be checked item by item and keep only what
   * the checks give.
   */
  replace: (value: unknown, place: YamlPlace) => unknown;
  /**
   * Levels whose nodes are mappings in any file worth reading: a node there with more than
   * KEYS_MAX keys (twice as many children) is refused as it is read.
   */
  mappingDepths?: readonly number[];
}

/** A YAML syntax error, with where it is (1-based). */
export class YamlSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly place: YamlPlace,
  ) {
    super(reason);
  }
}

class OverBudget extends Error {}

/**
 * One YAML document as plain values (YAML 1.2 core schema, duplicate keys refused), at most
 * `budget.nodes` values and NESTING_MAX levels: beyond them, an InputError naming `name`.
 * Syntax errors are YamlSyntaxError.
 */
export function loadYamlWithin(
  text: string,
  name: string,
  budget: NodeBudget,
  hook?: YamlHook,
): unknown {
  let nodes = 0;
  let depth = 0;
  let shift = 0;
  const places: YamlPlace[] = [];
  // Children of each open level, for the levels of hook.mappingDepths.
  const children = new Int32Array(NESTING_MAX + 2);
  const watched = new Set(hook?.mappingDepths);
  const listener = (event: 'open' | 'close', state: State): void => {
    if (event === 'open') {
      depth += 1;
      if (++nodes > budget.nodes) throw new OverBudget();
      if (depth === 2 && nodes === 2) {
        // The parser reads a top-level flow collection (`{markings: [...]}`) as a would-be key
        // one level down, then keeps it as the document: its children are a level deeper.
        const c = state.input.charCodeAt(state.position);
        if (c === 0x7b || c === 0x5b) shift = 1;
      }
      if (depth <= NESTING_MAX) children[depth] = 0;
      if (watched.has(depth - 1 - shift) && ++children[depth - 1]! > 2 * KEYS_MAX + 1) {
        throw tooManyKeysError(name, budget.what, ` at line ${state.line + 1}`);
      }
      if (depth === (hook?.depth ?? 0) + shift) {
        places.push({
          line: state.line + 1,
          column: state.position - state.lineStart + 1,
          offset: state.position,
        });
      }
      return;
    }
    if (hook !== undefined && depth === hook.depth + shift) {
      const place = places.pop() as YamlPlace;
      state.result = hook.replace(state.result, place);
    }
    depth -= 1;
  };
  const options = {
    schema: CORE_SCHEMA,
    json: false,
    maxDepth: NESTING_MAX,
    listener,
  } as LoadOptions;
  try {
    return load(text, options);
  } catch (error) {
    if (error instanceof OverBudget) throw tooManyValuesError(name, budget);
    if (error instanceof RangeError) throw nestedTooDeeplyError(name, budget.what);
    if (error instanceof YAMLException) {
      if (/maxDepth/.test(error.reason)) throw nestedTooDeeplyError(name, budget.what);
      const mark = error.mark;
      throw new YamlSyntaxError(error.reason, {
        line: mark.line + 1,
        column: mark.column + 1,
        offset: mark.position,
      });
    }
    throw error;
  }
}

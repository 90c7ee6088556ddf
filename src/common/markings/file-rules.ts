/**
 * The rules of a markings file and the words of its problems, written once for the three readers:
 * the fast JSON path (parse-json.ts), the YAML reader with positions (parse-yaml.ts) and the reader
 * of large files (parse-plain.ts). A reader shows its syntax as a FileTree (what each node is,
 * its keys and items) and calls these checks; a check says what is wrong and at which node, and
 * the reader says where that is: a line and column, or a path such as `markings[3].values[1]`.
 * So a file gets the same words whichever reader reads it, at any size.
 */
import { descriptionProblem, nameProblem } from './names.js';
import { quoted } from '../text/words.js';
import { VALUES_MAX_PER_MARKING } from './wire.js';
import { FILE_KEYS } from './file-format.js';
import {
  type DesiredMarking,
  type DesiredValue,
  formatPosition,
  type SourcePosition,
} from './desired.js';
import { closest } from '../text/did-you-mean.js';

export type NodeKind =
  'mapping' | 'list' | 'text' | 'number' | 'boolean' | 'nothing' | 'unknown alias' | 'other';

/** How a reader shows its nodes (`N`: a YAML node, or a plain value) to the checks. */
export interface FileTree<N> {
  /** What a node is, aliases followed. */
  kind(node: N): NodeKind;
  /** A text node's text; undefined for any other node. */
  text(node: N): string | undefined;
  /** A boolean node's value; undefined for any other node. */
  boolean(node: N): boolean | undefined;
  /** A number, boolean or unknown alias as the file writes it (`0x1F`, `*anchor`). */
  written(node: N): string;
  /** A mapping's value for `key`; undefined when the key is absent. */
  get(map: N, key: string): N | undefined;
  /** The keys of a mapping, in order, as text (undefined for a key that is not text). */
  keys(map: N): readonly (string | undefined)[];
  /** The node of a mapping's key `index`, when the reader keeps one. */
  keyNode(map: N, index: number): N | undefined;
  items(list: N): readonly N[];
  /** Where the first of two values of one name is, after "first": `at line 6, column 9`. */
  firstAt(first: N, index: number): string;
}

/**
 * Where a problem is. `path` names it inside its marking (`.values[1]`; `''` the marking itself),
 * for a reader that keeps no positions inside a marking; `node` is the node the problem is about,
 * and `key` the key, when the problem is the key itself.
 */
export interface ProblemPlace<N> {
  path: string;
  node: N | undefined;
  key?: N | undefined;
}

export type ReportProblem<N> = (place: ProblemPlace<N>, reason: string) => void;

/** The words of problems the readers find in a file's syntax, before the rules. */
export const syntaxWords = {
  json: (reason: string) => `invalid JSON: ${reason}`,
  yaml: (reason: string) => `invalid YAML: ${reason}`,
  oneDocument: 'a file holds one YAML document; put further markings in the same `markings` list',
  nestedTooDeeply: 'nested too deeply to read (thousands of levels of lists or maps)',
  keyGivenTwice: (key: string | undefined) =>
    `${key === undefined ? 'a key' : `the key ${quoted(key)}`} is given twice in one mapping`,
} as const;

/** Where JSON's rules apply: a `.json` file, or any text that starts like JSON. */
export const declaredJson = (label: string) => /\.json$/i.test(label);
export const looksLikeJson = (text: string) => /^\s*[[{]/.test(text);

/** The words a marking defined twice across the files gets (sources.ts finds it). */
export function definedTwice(name: string, first: SourcePosition): string {
  return `marking ${quoted(name)} is defined more than once (first at ${formatPosition(first)})`;
}

/**
 * The markings a document holds: the entries of its `markings` list, or (`single`, a marking
 * document) the document itself when it has no `markings` key. Undefined after a problem.
 */
export function documentEntries<N>(
  tree: FileTree<N>,
  root: N,
  single: boolean,
  report: ReportProblem<N>,
): { entries: readonly N[] } | { itself: N } | undefined {
  const here = (node: N | undefined): ProblemPlace<N> => ({ path: '', node });
  const kind = tree.kind(root);
  if (kind === 'nothing') {
    report(here(undefined), 'the file is empty; expected a `markings` list');
    return undefined;
  }
  if (kind !== 'mapping') {
    report(here(root), `expected a mapping with a \`markings\` list, ${found(tree, root)}`);
    return undefined;
  }
  const list = tree.get(root, 'markings');
  if (single && list === undefined) return { itself: root };
  const unknown = unknownKeys(tree, root, FILE_KEYS.document);
  if (unknown) reportKeys(tree, root, unknown, FILE_KEYS.document, 'the top level', '', report);
  if (list === undefined) {
    report(here(root), 'missing the `markings` list');
    return undefined;
  }
  if (tree.kind(list) !== 'list') {
    report(here(list), `\`markings\` must be a list, ${found(tree, list)}`);
    return undefined;
  }
  return { entries: tree.items(list) };
}

/** A marking that keeps every rule, and the node of its name. */
export interface CheckedMarking<N> {
  marking: DesiredMarking;
  name: N;
}

/**
 * One entry of a file's markings, checked by every rule: the marking, or undefined after
 * reporting each problem it has (reading goes on past the first, so one run lists them all).
 * Words and places are made only for a problem: a file of 100,000 values checks them all.
 */
export function checkMarking<N>(
  tree: FileTree<N>,
  entry: N,
  /** Where the entry is, asked once it is found to be a mapping. */
  source: () => SourcePosition,
  report: ReportProblem<N>,
): CheckedMarking<N> | undefined {
  if (tree.kind(entry) !== 'mapping') {
    report(
      { path: '', node: entry },
      `a marking must be a mapping with at least a name, ${found(tree, entry)}`,
    );
    return undefined;
  }
  let valid = true;
  const fail: ReportProblem<N> = (place, reason) => {
    valid = false;
    report(place, reason);
  };
  const nameNode = tree.get(entry, 'name');
  const nameWrong = nameNode === undefined ? undefined : notName(tree, nameNode);
  if (nameNode === undefined) fail({ path: '', node: entry }, 'a marking has no name');
  else if (nameWrong !== undefined) {
    fail({ path: '.name', node: nameNode }, `marking name ${nameWrong}`);
  }
  const name = nameNode === undefined || nameWrong !== undefined ? '' : (tree.text(nameNode) ?? '');
  // Messages about the rest of the entry name it as written, even when the name is invalid.
  let quotedName: string | undefined;
  const label = () =>
    (quotedName ??= quoted(
      (nameNode === undefined ? undefined : tree.text(nameNode)) ?? '(unnamed)',
    ));
  const unknown = unknownKeys(tree, entry, FILE_KEYS.marking);
  if (unknown) reportKeys(tree, entry, unknown, FILE_KEYS.marking, `marking ${label()}`, '', fail);

  const marking: DesiredMarking = { name, source: source() };
  const description = tree.get(entry, 'description');
  if (description !== undefined) {
    const wrong = notDescription(tree, description);
    if (wrong !== undefined) {
      fail(
        { path: '.description', node: description },
        `description of marking ${label()} ${wrong}`,
      );
    }
    const text = tree.text(description);
    if (text !== undefined) marking.description = text;
  }
  for (const flag of ['public', 'adminOnly'] as const) {
    const node = tree.get(entry, flag);
    if (node === undefined) continue;
    const value = tree.boolean(node);
    if (value === undefined) {
      fail({ path: `.${flag}`, node }, `${flag} must be true or false, ${found(tree, node)}`);
    } else {
      marking[flag] = value;
    }
  }
  const values = tree.get(entry, 'values');
  if (values !== undefined) marking.values = checkValues(tree, values, label, fail);
  const defaultNode = tree.get(entry, 'defaultValue');
  if (defaultNode !== undefined) {
    const place = { path: '.defaultValue', node: defaultNode };
    const wrong = tree.kind(defaultNode) === 'nothing' ? undefined : notName(tree, defaultNode);
    const value = tree.text(defaultNode) ?? null;
    if (wrong !== undefined) fail(place, `defaultValue ${wrong}`);
    else if (value !== null && marking.values?.some((v) => v.name === value) === false) {
      fail(place, `defaultValue ${quoted(value)} is not one of the values listed for ${label()}`);
    } else marking.defaultValue = value;
  }
  return valid && nameNode !== undefined ? { marking, name: nameNode } : undefined;
}

/** A marking's `values`: its complete set, or undefined after reporting each problem. */
function checkValues<N>(
  tree: FileTree<N>,
  node: N,
  label: () => string,
  report: ReportProblem<N>,
): DesiredValue[] | undefined {
  if (tree.kind(node) !== 'list') {
    report({ path: '.values', node }, `values of ${label()} must be a list, ${found(tree, node)}`);
    return undefined;
  }
  const items = tree.items(node);
  if (items.length > VALUES_MAX_PER_MARKING) {
    // Not read further: the values of a list this long are not worth a problem each.
    report(
      { path: '.values', node },
      `${label()} lists ${items.length} values; at most ${VALUES_MAX_PER_MARKING} are allowed`,
    );
    return undefined;
  }
  const values: DesiredValue[] = [];
  /** The index of the first value of each name. */
  const seen = new Map<string, number>();
  let valid = true;
  const fail: ReportProblem<N> = (place, reason) => {
    valid = false;
    report(place, reason);
  };
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index] as N;
    const value = checkValue(tree, item, label, index, fail);
    if (value === undefined) continue;
    const first = seen.get(value.name);
    if (first === undefined) {
      seen.set(value.name, index);
      values.push(value);
      continue;
    }
    const firstAt = tree.firstAt(nameOf(tree, items[first] as N), first);
    fail(
      { path: `.values[${index}]`, node: nameOf(tree, item) },
      `value ${quoted(value.name)} is listed twice in ${label()} (first ${firstAt})`,
    );
  }
  return valid ? values : undefined;
}

/** The node of a value's name: the value itself, or the `name` of `{name, description}`. */
function nameOf<N>(tree: FileTree<N>, item: N): N {
  return tree.kind(item) === 'mapping' ? (tree.get(item, 'name') ?? item) : item;
}

/**
 * One entry of `values`, a name or `{name, description}`: the value when its name is valid
 * (a problem with its description is reported all the same), else undefined.
 */
function checkValue<N>(
  tree: FileTree<N>,
  item: N,
  label: () => string,
  index: number,
  report: ReportProblem<N>,
): DesiredValue | undefined {
  const kind = tree.kind(item);
  if (kind === 'text') {
    const wrong = notName(tree, item);
    if (wrong === undefined) return { name: tree.text(item) as string };
    report(valueAt(index, item), `value name ${wrong}`);
    return undefined;
  }
  if (kind !== 'mapping') {
    report(
      valueAt(index, item),
      `a value of ${label()} must be a name or {name, description}, ${found(tree, item, true)}`,
    );
    return undefined;
  }
  const unknown = unknownKeys(tree, item, FILE_KEYS.value);
  if (unknown) {
    const where = `a value of ${label()}`;
    reportKeys(tree, item, unknown, FILE_KEYS.value, where, `.values[${index}]`, report);
  }
  const nameNode = tree.get(item, 'name');
  if (nameNode === undefined) {
    report(valueAt(index, item), `a value of ${label()} has no name`);
    return undefined;
  }
  const wrongName = notName(tree, nameNode);
  if (wrongName !== undefined) report(valueAt(index, nameNode), `value name ${wrongName}`);
  const descriptionNode = tree.get(item, 'description');
  let description: string | undefined;
  if (descriptionNode !== undefined) {
    const wrong = notDescription(tree, descriptionNode);
    if (wrong !== undefined) {
      report(
        valueAt(index, descriptionNode),
        `values[${index}].description of marking ${label()} ${wrong}`,
      );
    }
    description = tree.text(descriptionNode);
  }
  if (wrongName !== undefined) return undefined;
  const value: DesiredValue = { name: tree.text(nameNode) as string };
  if (description !== undefined) value.description = description;
  return value;
}

const valueAt = <N>(index: number, node: N): ProblemPlace<N> => ({
  path: `.values[${index}]`,
  node,
});

/** Why a node is not a marking or value name, after what it is: undefined when it is one. */
function notName<N>(tree: FileTree<N>, node: N): string | undefined {
  const text = tree.text(node);
  if (text === undefined) return `must be text, ${found(tree, node, true)}`;
  const problem = nameProblem(text);
  return problem === undefined ? undefined : `${quoted(text)} ${problem}`;
}

/** Why a node is not a description, after what it is: undefined when it is one. */
function notDescription<N>(tree: FileTree<N>, node: N): string | undefined {
  const text = tree.text(node);
  if (text === undefined) return `must be text, ${found(tree, node, true)}`;
  return descriptionProblem(text);
}

interface UnknownKey {
  index: number;
  key: string | undefined;
}

/** The keys of `map` not in `allowed`; undefined when there are none. */
function unknownKeys<N>(
  tree: FileTree<N>,
  map: N,
  allowed: readonly string[],
): UnknownKey[] | undefined {
  const keys = tree.keys(map);
  let unknown: UnknownKey[] | undefined;
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index];
    if (key === undefined || !allowed.includes(key)) (unknown ??= []).push({ index, key });
  }
  return unknown;
}

/** Each unknown key of `map` (in `where`), with the allowed key it most likely meant. */
function reportKeys<N>(
  tree: FileTree<N>,
  map: N,
  unknown: readonly UnknownKey[],
  allowed: readonly string[],
  where: string,
  path: string,
  report: ReportProblem<N>,
): void {
  for (const { index, key } of unknown) {
    report(
      { path, node: map, key: tree.keyNode(map, index) },
      unknownKeyWords(key, allowed, where),
    );
  }
}

/**
 * `unknown key "colr" in WHERE (did you mean "colour"?)`: a near miss gets what was meant, any
 * other key the keys allowed. Without `where` the caller names the place itself.
 */
export function unknownKeyWords(
  key: string | undefined,
  allowed: readonly string[],
  where?: string,
): string {
  const suggestion = key === undefined ? undefined : closest(key, allowed);
  return (
    `unknown key ${quoted(key ?? '(not text)')}${where === undefined ? '' : ` in ${where}`}` +
    (suggestion ? ` (did you mean "${suggestion}"?)` : ` (allowed: ${allowed.join(', ')})`)
  );
}

/**
 * "found ..." for a node of the wrong type. Where text is expected, a number or boolean gets a
 * hint: `- 1001` is a number to YAML, and a user who meant the name "1001" needs to quote it.
 */
export function found<N>(tree: FileTree<N>, node: N, textExpected = false): string {
  const kind = tree.kind(node);
  switch (kind) {
    case 'mapping':
    case 'list':
      return `found a ${kind}`;
    case 'nothing':
      return 'found nothing';
    case 'text':
      return `found the text ${quoted(tree.text(node) ?? '')}`;
    case 'unknown alias':
      return `found an alias to an unknown anchor ${tree.written(node)}`;
    case 'number':
    case 'boolean': {
      const written = tree.written(node);
      const hint = textExpected ? ` (quote it, "${written}", to use it as text)` : '';
      return `found the ${kind} ${written}${hint}`;
    }
    default:
      return 'found something else';
  }
}

/** Plain values (JSON.parse, js-yaml) as a FileTree; `counted` hears of each list or mapping. */
export function plainTree(counted?: (children: number) => void): FileTree<unknown> {
  return {
    kind: plainKind,
    text: (node) => (typeof node === 'string' ? node : undefined),
    boolean: (node) => (typeof node === 'boolean' ? node : undefined),
    written: String,
    // JSON.parse and js-yaml make own properties only (`__proto__` too), and no key a rule asks
    // for is inherited.
    get: (map, key) => (map as Plain)[key],
    keys(map) {
      const keys = Object.keys(map as object);
      counted?.(keys.length);
      return keys;
    },
    keyNode: () => undefined,
    items(list) {
      const items = list as unknown[];
      if (items.length <= VALUES_MAX_PER_MARKING) counted?.(items.length);
      return items;
    },
    firstAt: (_first, index) => `as values[${index}]`,
  };
}

type Plain = Record<string, unknown>;

export function isPlainMapping(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function plainKind(node: unknown): NodeKind {
  if (Array.isArray(node)) return 'list';
  switch (typeof node) {
    case 'string':
      return 'text';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'object':
      return node === null ? 'nothing' : 'mapping';
    case 'undefined':
      return 'nothing';
    default:
      return 'other';
  }
}

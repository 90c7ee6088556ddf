/** The path that reads any YAML or JSON file and reports every problem with its position. */
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  parseDocument,
  type YAMLMap,
} from 'yaml';
import { descriptionProblem, nameProblem } from '../api/names.js';
import { VALUES_MAX_PER_MARKING } from '../api/wire.js';
import { findJsonSyntaxError } from './json-syntax.js';
import type { DesiredMarking, DesiredValue, SourcePosition } from './types.js';
import {
  FILE_KEYS,
  type ParsedFile,
  type ParsedMarking,
  type ParseOptions,
  type Problem,
  type SourceText,
} from './file-format.js';

type AnyNode = Node | Pair | null | undefined;

export function parseWithPositions(source: SourceText, options: ParseOptions): ParsedFile {
  const lineCounter = new LineCounter();
  const problems: Problem[] = [];
  const positionOf = (offset: number): SourcePosition => {
    const { line, col } = lineCounter.linePos(offset);
    return { file: source.label, line, column: col };
  };
  const report = (offset: number, reason: string) => {
    problems.push({ position: positionOf(offset), offset, reason });
  };

  const doc = parseDocument(source.text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const jsonError = jsonSyntaxError(source, doc.errors.length > 0);
  if (jsonError !== undefined) {
    report(jsonError.offset, `invalid JSON: ${jsonError.reason}`);
    return { markings: [], problems };
  }
  if (doc.errors.length > 0) {
    for (const error of doc.errors) {
      report(
        error.pos[0],
        error.code === 'MULTIPLE_DOCS'
          ? 'a file holds one YAML document; put further markings in the same `markings` list'
          : `invalid YAML: ${error.message}`,
      );
    }
    return { markings: [], problems };
  }

  // An alias stands for its anchor's node; an alias to no anchor stays, for the message.
  const resolve = (node: AnyNode): AnyNode => (isAlias(node) ? (node.resolve(doc) ?? node) : node);
  const offsetOf = (node: AnyNode, fallback: number): number => {
    const range = node && 'range' in node ? node.range : undefined;
    return range?.[0] ?? fallback;
  };

  /** The offset of a pair's value, or of its key when the value is missing (`name:` alone). */
  const valueOffset = (pair: Pair): number => {
    const value = pair.value as AnyNode;
    const keyOffset = offsetOf(pair.key as AnyNode, 0);
    if (
      isScalar(value) &&
      value.value === null &&
      value.range &&
      value.range[0] === value.range[1]
    ) {
      return keyOffset;
    }
    return offsetOf(value, keyOffset);
  };

  const checkKeys = (map: YAMLMap, allowed: readonly string[], where: string) => {
    for (const pair of map.items) {
      const key = resolve(pair.key as AnyNode);
      const keyText = isScalar(key) ? String(key.value) : undefined;
      if (keyText !== undefined && allowed.includes(keyText)) continue;
      const suggestion = keyText === undefined ? undefined : closest(keyText, allowed);
      report(
        offsetOf(key, offsetOf(map, 0)),
        `unknown key ${JSON.stringify(keyText ?? '(not text)')} in ${where}` +
          (suggestion ? ` (did you mean "${suggestion}"?)` : ` (allowed: ${allowed.join(', ')})`),
      );
    }
  };

  const pairOf = (map: YAMLMap, key: string): Pair | undefined =>
    map.items.find((pair) => {
      const k = resolve(pair.key as AnyNode);
      return isScalar(k) && k.value === key;
    });

  const text = (pair: Pair, what: string): string | undefined => {
    const node = resolve(pair.value as AnyNode);
    if (isScalar(node) && typeof node.value === 'string') return node.value;
    report(valueOffset(pair), `${what} must be text, ${found(node, true)}`);
    return undefined;
  };

  const name = (pair: Pair, what: string): string | undefined => {
    const value = text(pair, what);
    if (value === undefined) return undefined;
    const problem = nameProblem(value);
    if (problem !== undefined) {
      report(valueOffset(pair), `${what} ${JSON.stringify(value)} ${problem}`);
      return undefined;
    }
    return value;
  };

  const description = (pair: Pair, what: string): string | undefined => {
    const value = text(pair, what);
    if (value === undefined) return undefined;
    const problem = descriptionProblem(value);
    if (problem !== undefined) report(valueOffset(pair), `${what} ${problem}`);
    return value;
  };

  const boolean = (pair: Pair, what: string): boolean | undefined => {
    const node = resolve(pair.value as AnyNode);
    if (isScalar(node) && typeof node.value === 'boolean') return node.value;
    report(valueOffset(pair), `${what} must be true or false, ${found(node)}`);
    return undefined;
  };

  /** `markingLabel` is the marking's name quoted for messages. */
  const readValue = (
    node: AnyNode,
    markingLabel: string,
  ): { value: DesiredValue; offset: number } | undefined => {
    const item = resolve(node);
    // Where the entry is written: an alias's own place, not its anchor's.
    const offset = offsetOf(node, 0);
    if (isScalar(item)) {
      if (typeof item.value !== 'string') {
        report(
          offset,
          `a value of ${markingLabel} must be a name or {name, description}, ${found(item, true)}`,
        );
        return undefined;
      }
      const problem = nameProblem(item.value);
      if (problem !== undefined) {
        report(offset, `value name ${JSON.stringify(item.value)} ${problem}`);
        return undefined;
      }
      return { value: { name: item.value }, offset };
    }
    if (!isMap(item)) {
      report(
        offset,
        `a value of ${markingLabel} must be a name or {name, description}, ${found(item)}`,
      );
      return undefined;
    }
    checkKeys(item, FILE_KEYS.value, `a value of ${markingLabel}`);
    const namePair = pairOf(item, 'name');
    if (namePair === undefined) {
      report(offset, `a value of ${markingLabel} has no name`);
      return undefined;
    }
    const valueName = name(namePair, 'value name');
    const descriptionPair = pairOf(item, 'description');
    const valueDescription =
      descriptionPair === undefined ? undefined : description(descriptionPair, 'value description');
    if (valueName === undefined) return undefined;
    const value: DesiredValue = { name: valueName };
    if (valueDescription !== undefined) value.description = valueDescription;
    return { value, offset: valueOffset(namePair) };
  };

  const readValues = (pair: Pair, markingLabel: string): DesiredValue[] | undefined => {
    const node = resolve(pair.value as AnyNode);
    if (!isSeq(node)) {
      report(valueOffset(pair), `values of ${markingLabel} must be a list, ${found(node)}`);
      return undefined;
    }
    if (node.items.length > VALUES_MAX_PER_MARKING) {
      report(
        valueOffset(pair),
        `${markingLabel} lists ${node.items.length} values; at most ${VALUES_MAX_PER_MARKING} are allowed`,
      );
    }
    const values: DesiredValue[] = [];
    const seen = new Map<string, number>();
    let valid = true;
    for (const itemNode of node.items) {
      const read = readValue(itemNode as AnyNode, markingLabel);
      if (read === undefined) {
        valid = false;
        continue;
      }
      const first = seen.get(read.value.name);
      if (first !== undefined) {
        const { line, col } = lineCounter.linePos(first);
        report(
          read.offset,
          `value "${read.value.name}" is listed twice in ${markingLabel} (first at line ${line}, column ${col})`,
        );
        valid = false;
        continue;
      }
      seen.set(read.value.name, read.offset);
      values.push(read.value);
    }
    return valid ? values : undefined;
  };

  const readMarking = (node: AnyNode): ParsedMarking | undefined => {
    const item = resolve(node);
    const offset = offsetOf(node, 0);
    if (!isMap(item)) {
      report(offset, `a marking must be a mapping with at least a name, ${found(item)}`);
      return undefined;
    }
    const namePair = pairOf(item, 'name');
    const markingName = namePair === undefined ? undefined : name(namePair, 'marking name');
    if (namePair === undefined) report(offset, 'a marking has no name');
    // Messages about the rest of the entry name it as written, even when the name is invalid.
    const written = namePair === undefined ? undefined : resolve(namePair.value as AnyNode);
    const label = JSON.stringify(
      markingName ??
        (isScalar(written) && typeof written.value === 'string' ? written.value : '(unnamed)'),
    );
    checkKeys(item, FILE_KEYS.marking, `marking ${label}`);

    const marking: DesiredMarking = { name: markingName ?? '', source: positionOf(offset) };
    const problemsBefore = problems.length;
    const descriptionPair = pairOf(item, 'description');
    if (descriptionPair) marking.description = description(descriptionPair, 'description');
    const publicPair = pairOf(item, 'public');
    if (publicPair) marking.public = boolean(publicPair, 'public');
    const adminOnlyPair = pairOf(item, 'adminOnly');
    if (adminOnlyPair) marking.adminOnly = boolean(adminOnlyPair, 'adminOnly');
    const valuesPair = pairOf(item, 'values');
    if (valuesPair) marking.values = readValues(valuesPair, label);
    const defaultPair = pairOf(item, 'defaultValue');
    if (defaultPair) {
      const node = resolve(defaultPair.value as AnyNode);
      if (isScalar(node) && node.value === null) {
        marking.defaultValue = null;
      } else {
        const defaultValue = name(defaultPair, 'defaultValue');
        if (
          defaultValue !== undefined &&
          marking.values !== undefined &&
          !marking.values.some((value) => value.name === defaultValue)
        ) {
          report(
            valueOffset(defaultPair),
            `defaultValue "${defaultValue}" is not one of the values listed for ${label}`,
          );
        }
        marking.defaultValue = defaultValue;
      }
    }
    if (markingName === undefined || problems.length > problemsBefore) return undefined;
    const nameOffset = valueOffset(namePair as Pair);
    return { marking, nameOffset, namePosition: positionOf(nameOffset) };
  };

  const root = resolve(doc.contents as AnyNode);
  if (root === null || root === undefined || (isScalar(root) && root.value === null)) {
    report(0, 'the file is empty; expected a `markings` list');
    return { markings: [], problems };
  }
  if (!isMap(root)) {
    report(offsetOf(root, 0), `expected a mapping with a \`markings\` list, ${found(root)}`);
    return { markings: [], problems };
  }
  if (options.single && pairOf(root, 'markings') === undefined) {
    const parsed = readMarking(root);
    return { markings: parsed === undefined ? [] : [parsed], problems };
  }
  checkKeys(root, FILE_KEYS.document, 'the top level');
  const markingsPair = pairOf(root, 'markings');
  if (markingsPair === undefined) {
    report(offsetOf(root, 0), 'missing the `markings` list');
    return { markings: [], problems };
  }
  const list = resolve(markingsPair.value as AnyNode);
  if (!isSeq(list)) {
    report(valueOffset(markingsPair), `\`markings\` must be a list, ${found(list)}`);
    return { markings: [], problems };
  }
  const markings: ParsedMarking[] = [];
  for (const node of list.items) {
    const parsed = readMarking(node as AnyNode);
    if (parsed !== undefined) markings.push(parsed);
  }
  return { markings, problems };
}

/**
 * A JSON file (by its `.json` name, or any text that starts like JSON and fails as YAML too) is
 * checked with JSON's rules, so the user reads a JSON reason instead of a YAML one.
 */
function jsonSyntaxError(source: SourceText, yamlFailed: boolean) {
  const declaredJson = /\.json$/i.test(source.label);
  const looksJson = /^\s*[[{]/.test(source.text);
  if (!declaredJson && !(looksJson && yamlFailed)) return undefined;
  try {
    JSON.parse(source.text);
    return undefined;
  } catch {
    return findJsonSyntaxError(source.text);
  }
}

/**
 * "found ..." for a node of the wrong type. Where text is expected, a YAML number or boolean gets
 * a hint: `- 1001` is a number to YAML, and a user who meant the name "1001" needs to quote it.
 */
function found(node: AnyNode, textExpected = false): string {
  if (isMap(node)) return 'found a mapping';
  if (isSeq(node)) return 'found a list';
  if (isAlias(node)) return `found an alias to an unknown anchor *${node.source}`;
  if (isScalar(node)) {
    const { value } = node;
    if (value === null) return 'found nothing';
    if (typeof value === 'string') return `found the text ${excerpt(value)}`;
    const source = node.source ?? String(value);
    const hint = textExpected ? ` (quote it, "${source}", to use it as text)` : '';
    return `found ${typeof value === 'boolean' ? 'the boolean' : 'the number'} ${source}${hint}`;
  }
  return 'found something else';
}

const EXCERPT_CHARS = 60;

/** Quoted, and cut short: a file of garbage must not flood the terminal. */
function excerpt(text: string): string {
  if (text.length <= EXCERPT_CHARS) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, EXCERPT_CHARS))}… (${text.length.toLocaleString('en')} characters)`;
}

/** The allowed key a mistyped one most likely meant: same letters in another case, or one edit. */
function closest(key: string, allowed: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  return (
    allowed.find((candidate) => candidate.toLowerCase() === lower) ??
    allowed.find((candidate) => editDistance(candidate.toLowerCase(), lower) <= 2)
  );
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

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
import { VALUES_MAX_PER_MARKING } from '../markings/wire.js';
import { findJsonSyntaxError } from './json-syntax.js';
import { closest, excerpt } from './problem-words.js';
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
  const reader = new MarkingsReader(source);
  const markings = reader.syntaxErrors() ? [] : reader.readDocument(options);
  return { markings, problems: reader.problems };
}

/**
 * One file's text read as a YAML document into markings: every problem is reported with its
 * line and column, and reading goes on past it, so one run lists them all.
 */
class MarkingsReader {
  readonly problems: Problem[] = [];
  private readonly lineCounter = new LineCounter();
  private readonly doc: ReturnType<typeof parseDocument>;

  constructor(private readonly source: SourceText) {
    this.doc = parseDocument(source.text, {
      lineCounter: this.lineCounter,
      prettyErrors: false,
      uniqueKeys: true,
    });
  }

  /** Reports the syntax errors (JSON's own, for a JSON file); true when there are any. */
  syntaxErrors(): boolean {
    const jsonError = jsonSyntaxError(this.source, this.doc.errors.length > 0);
    if (jsonError !== undefined) {
      this.report(jsonError.offset, `invalid JSON: ${jsonError.reason}`);
      return true;
    }
    for (const error of this.doc.errors) {
      this.report(
        error.pos[0],
        error.code === 'MULTIPLE_DOCS'
          ? 'a file holds one YAML document; put further markings in the same `markings` list'
          : /call stack/i.test(error.message)
            ? 'nested too deeply to read (thousands of levels of lists or maps)'
            : `invalid YAML: ${error.message}`,
      );
    }
    return this.doc.errors.length > 0;
  }

  private positionOf(offset: number): SourcePosition {
    const { line, col } = this.lineCounter.linePos(offset);
    return { file: this.source.label, line, column: col };
  }

  private report(offset: number, reason: string): void {
    this.problems.push({ position: this.positionOf(offset), offset, reason });
  }

  /** An alias stands for its anchor's node; an alias to no anchor stays, for the message. */
  private resolve(node: AnyNode): AnyNode {
    return isAlias(node) ? (node.resolve(this.doc) ?? node) : node;
  }
  private offsetOf(node: AnyNode, fallback: number): number {
    const range = node && 'range' in node ? node.range : undefined;
    return range?.[0] ?? fallback;
  }

  /** The offset of a pair's value, or of its key when the value is missing (`name:` alone). */
  private valueOffset(pair: Pair): number {
    const value = pair.value as AnyNode;
    const keyOffset = this.offsetOf(pair.key as AnyNode, 0);
    if (
      isScalar(value) &&
      value.value === null &&
      value.range &&
      value.range[0] === value.range[1]
    ) {
      return keyOffset;
    }
    return this.offsetOf(value, keyOffset);
  }

  private checkKeys(map: YAMLMap, allowed: readonly string[], where: string) {
    for (const pair of map.items) {
      const key = this.resolve(pair.key as AnyNode);
      const keyText = isScalar(key) ? String(key.value) : undefined;
      if (keyText !== undefined && allowed.includes(keyText)) continue;
      const suggestion = keyText === undefined ? undefined : closest(keyText, allowed);
      this.report(
        this.offsetOf(key, this.offsetOf(map, 0)),
        `unknown key ${excerpt(keyText ?? '(not text)')} in ${where}` +
          (suggestion ? ` (did you mean "${suggestion}"?)` : ` (allowed: ${allowed.join(', ')})`),
      );
    }
  }

  private pairOf(map: YAMLMap, key: string): Pair | undefined {
    return map.items.find((pair) => {
      const k = this.resolve(pair.key as AnyNode);
      return isScalar(k) && k.value === key;
    });
  }

  private text(pair: Pair, what: string): string | undefined {
    const node = this.resolve(pair.value as AnyNode);
    if (isScalar(node) && typeof node.value === 'string') return node.value;
    this.report(this.valueOffset(pair), `${what} must be text, ${found(node, true)}`);
    return undefined;
  }

  private name(pair: Pair, what: string): string | undefined {
    const value = this.text(pair, what);
    if (value === undefined) return undefined;
    const problem = nameProblem(value);
    if (problem !== undefined) {
      this.report(this.valueOffset(pair), `${what} ${excerpt(value)} ${problem}`);
      return undefined;
    }
    return value;
  }

  private description(pair: Pair, what: string): string | undefined {
    const value = this.text(pair, what);
    if (value === undefined) return undefined;
    const problem = descriptionProblem(value);
    if (problem !== undefined) this.report(this.valueOffset(pair), `${what} ${problem}`);
    return value;
  }

  private boolean(pair: Pair, what: string): boolean | undefined {
    const node = this.resolve(pair.value as AnyNode);
    if (isScalar(node) && typeof node.value === 'boolean') return node.value;
    this.report(this.valueOffset(pair), `${what} must be true or false, ${found(node)}`);
    return undefined;
  }

  /** `markingLabel` is the marking's name quoted for messages. */
  private readValue(
    node: AnyNode,
    markingLabel: string,
    index: number,
  ): { value: DesiredValue; offset: number } | undefined {
    const item = this.resolve(node);
    // Where the entry is written: an alias's own place, not its anchor's.
    const offset = this.offsetOf(node, 0);
    if (isScalar(item)) {
      if (typeof item.value !== 'string') {
        this.report(
          offset,
          `a value of ${markingLabel} must be a name or {name, description}, ${found(item, true)}`,
        );
        return undefined;
      }
      const problem = nameProblem(item.value);
      if (problem !== undefined) {
        this.report(offset, `value name ${excerpt(item.value)} ${problem}`);
        return undefined;
      }
      return { value: { name: item.value }, offset };
    }
    if (!isMap(item)) {
      this.report(
        offset,
        `a value of ${markingLabel} must be a name or {name, description}, ${found(item)}`,
      );
      return undefined;
    }
    this.checkKeys(item, FILE_KEYS.value, `a value of ${markingLabel}`);
    const namePair = this.pairOf(item, 'name');
    if (namePair === undefined) {
      this.report(offset, `a value of ${markingLabel} has no name`);
      return undefined;
    }
    const valueName = this.name(namePair, 'value name');
    const descriptionPair = this.pairOf(item, 'description');
    const valueDescription =
      descriptionPair === undefined
        ? undefined
        : this.description(
            descriptionPair,
            `values[${index}].description of marking ${markingLabel}`,
          );
    if (valueName === undefined) return undefined;
    const value: DesiredValue = { name: valueName };
    if (valueDescription !== undefined) value.description = valueDescription;
    return { value, offset: this.valueOffset(namePair) };
  }

  private readValues(pair: Pair, markingLabel: string): DesiredValue[] | undefined {
    const node = this.resolve(pair.value as AnyNode);
    if (!isSeq(node)) {
      this.report(
        this.valueOffset(pair),
        `values of ${markingLabel} must be a list, ${found(node)}`,
      );
      return undefined;
    }
    if (node.items.length > VALUES_MAX_PER_MARKING) {
      this.report(
        this.valueOffset(pair),
        `${markingLabel} lists ${node.items.length} values; at most ${VALUES_MAX_PER_MARKING} are allowed`,
      );
    }
    const values: DesiredValue[] = [];
    const seen = new Map<string, number>();
    let valid = true;
    for (const [index, itemNode] of node.items.entries()) {
      const read = this.readValue(itemNode as AnyNode, markingLabel, index);
      if (read === undefined) {
        valid = false;
        continue;
      }
      const first = seen.get(read.value.name);
      if (first !== undefined) {
        const { line, col } = this.lineCounter.linePos(first);
        this.report(
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
  }

  private readMarking(node: AnyNode): ParsedMarking | undefined {
    const item = this.resolve(node);
    const offset = this.offsetOf(node, 0);
    if (!isMap(item)) {
      this.report(offset, `a marking must be a mapping with at least a name, ${found(item)}`);
      return undefined;
    }
    const namePair = this.pairOf(item, 'name');
    const markingName = namePair === undefined ? undefined : this.name(namePair, 'marking name');
    if (namePair === undefined) this.report(offset, 'a marking has no name');
    // Messages about the rest of the entry name it as written, even when the name is invalid.
    const written = namePair === undefined ? undefined : this.resolve(namePair.value as AnyNode);
    const label = excerpt(
      markingName ??
        (isScalar(written) && typeof written.value === 'string' ? written.value : '(unnamed)'),
    );
    this.checkKeys(item, FILE_KEYS.marking, `marking ${label}`);

    const marking: DesiredMarking = { name: markingName ?? '', source: this.positionOf(offset) };
    const problemsBefore = this.problems.length;
    const descriptionPair = this.pairOf(item, 'description');
    if (descriptionPair) {
      marking.description = this.description(descriptionPair, `description of marking ${label}`);
    }
    const publicPair = this.pairOf(item, 'public');
    if (publicPair) marking.public = this.boolean(publicPair, 'public');
    const adminOnlyPair = this.pairOf(item, 'adminOnly');
    if (adminOnlyPair) marking.adminOnly = this.boolean(adminOnlyPair, 'adminOnly');
    const valuesPair = this.pairOf(item, 'values');
    if (valuesPair) marking.values = this.readValues(valuesPair, label);
    const defaultPair = this.pairOf(item, 'defaultValue');
    if (defaultPair) {
      const node = this.resolve(defaultPair.value as AnyNode);
      if (isScalar(node) && node.value === null) {
        marking.defaultValue = null;
      } else {
        const defaultValue = this.name(defaultPair, 'defaultValue');
        if (
          defaultValue !== undefined &&
          marking.values !== undefined &&
          !marking.values.some((value) => value.name === defaultValue)
        ) {
          this.report(
            this.valueOffset(defaultPair),
            `defaultValue "${defaultValue}" is not one of the values listed for ${label}`,
          );
        }
        marking.defaultValue = defaultValue;
      }
    }
    if (markingName === undefined || this.problems.length > problemsBefore) return undefined;
    const nameOffset = this.valueOffset(namePair as Pair);
    return { marking, nameOffset, namePosition: this.positionOf(nameOffset) };
  }

  /** The document's markings: a `markings` list, or (options.single) one marking itself. */
  readDocument(options: ParseOptions): ParsedMarking[] {
    const root = this.resolve(this.doc.contents as AnyNode);
    if (root === null || root === undefined || (isScalar(root) && root.value === null)) {
      this.report(0, 'the file is empty; expected a `markings` list');
      return [];
    }
    if (!isMap(root)) {
      this.report(
        this.offsetOf(root, 0),
        `expected a mapping with a \`markings\` list, ${found(root)}`,
      );
      return [];
    }
    if (options.single && this.pairOf(root, 'markings') === undefined) {
      const parsed = this.readMarking(root);
      return parsed === undefined ? [] : [parsed];
    }
    this.checkKeys(root, FILE_KEYS.document, 'the top level');
    const markingsPair = this.pairOf(root, 'markings');
    if (markingsPair === undefined) {
      this.report(this.offsetOf(root, 0), 'missing the `markings` list');
      return [];
    }
    const list = this.resolve(markingsPair.value as AnyNode);
    if (!isSeq(list)) {
      this.report(this.valueOffset(markingsPair), `\`markings\` must be a list, ${found(list)}`);
      return [];
    }
    const markings: ParsedMarking[] = [];
    for (const node of list.items) {
      const parsed = this.readMarking(node as AnyNode);
      if (parsed !== undefined) markings.push(parsed);
    }
    return markings;
  }
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

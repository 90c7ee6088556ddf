/**
 * The path that reads any YAML or JSON file and reports every problem with its position: the
 * `yaml` library's document, with a position for every node, shown to the rules of file-rules.ts.
 */
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  parseDocument,
  visit,
} from 'yaml';
import { findJsonSyntaxError } from './json-syntax.js';
import {
  checkMarking,
  declaredJson,
  documentEntries,
  type FileTree,
  looksLikeJson,
  type NodeKind,
  type ProblemPlace,
  syntaxWords,
} from '../../common/markings/file-rules.js';
import type { SourcePosition } from '../../common/markings/desired.js';
import type {
  ParsedFile,
  ParsedMarking,
  ParseOptions,
  Problem,
  SourceText,
} from '../../common/markings/file-format.js';

type AnyNode = Node | Pair | null | undefined;

/** A node as its parent holds it: a pair's value (placed at its key when it is empty), or an item. */
interface Slot {
  node: AnyNode;
  pair?: Pair;
}

export function parseWithPositions(source: SourceText, options: ParseOptions): ParsedFile {
  const file = new YamlFile(source);
  const markings = file.syntaxErrors() ? [] : file.readDocument(options);
  return { markings, problems: file.problems };
}

/**
 * One file's text read as a YAML document into markings: every problem is reported with its
 * line and column, and reading goes on past it, so one run lists them all.
 */
class YamlFile implements FileTree<Slot> {
  readonly problems: Problem[] = [];
  private readonly lineCounter = new LineCounter();
  private readonly doc: ReturnType<typeof parseDocument>;

  constructor(private readonly source: SourceText) {
    // Keys given twice are found below, in the words every reader gives them.
    this.doc = parseDocument(source.text, {
      lineCounter: this.lineCounter,
      prettyErrors: false,
      uniqueKeys: false,
    });
  }

  /** Reports the syntax errors (JSON's own, for a JSON file); true when there are any. */
  syntaxErrors(): boolean {
    const jsonError = jsonSyntaxError(this.source, this.doc.errors.length > 0);
    if (jsonError !== undefined) {
      this.report(jsonError.offset, syntaxWords.json(jsonError.reason));
      return true;
    }
    for (const error of this.doc.errors) {
      this.report(
        error.pos[0],
        error.code === 'MULTIPLE_DOCS'
          ? syntaxWords.oneDocument
          : /call stack/i.test(error.message)
            ? syntaxWords.nestedTooDeeply
            : syntaxWords.yaml(error.message),
      );
    }
    return this.doc.errors.length > 0 || this.keyGivenTwice();
  }

  /** The first key given twice in one mapping, in reading order, as the other readers stop at. */
  private keyGivenTwice(): boolean {
    let first: { offset: number; key: string } | undefined;
    visit(this.doc, {
      Map: (_, map) => {
        const seen = new Set<unknown>();
        for (const pair of map.items) {
          if (!isScalar(pair.key)) continue;
          const offset = pair.key.range?.[0] ?? 0;
          if (!seen.has(pair.key.value)) seen.add(pair.key.value);
          else if (first === undefined || offset < first.offset) {
            first = { offset, key: String(pair.key.value) };
          }
        }
      },
    });
    if (first !== undefined) this.report(first.offset, syntaxWords.keyGivenTwice(first.key));
    return first !== undefined;
  }

  /** The document's markings: a `markings` list, or (options.single) one marking itself. */
  readDocument(options: ParseOptions): ParsedMarking[] {
    const report = (place: ProblemPlace<Slot>, reason: string) =>
      this.report(this.placeOffset(place), reason);
    const document = documentEntries(
      this,
      { node: this.doc.contents },
      options.single === true,
      report,
    );
    if (document === undefined) return [];
    const entries = 'itself' in document ? [document.itself] : document.entries;
    const markings: ParsedMarking[] = [];
    for (const entry of entries) {
      const source = () => this.positionOf(this.offsetOf(entry.node, 0));
      const checked = checkMarking(this, entry, source, report);
      if (checked === undefined) continue;
      const nameOffset = this.slotOffset(checked.name);
      markings.push({
        marking: checked.marking,
        nameOffset,
        namePosition: this.positionOf(nameOffset),
      });
    }
    return markings;
  }

  kind(slot: Slot): NodeKind {
    const node = this.resolve(slot.node);
    if (isMap(node)) return 'mapping';
    if (isSeq(node)) return 'list';
    if (isAlias(node)) return 'unknown alias';
    if (node === null || node === undefined) return 'nothing';
    if (!isScalar(node)) return 'other';
    const { value } = node;
    if (value === null) return 'nothing';
    if (typeof value === 'string') return 'text';
    if (typeof value === 'number' || typeof value === 'bigint') return 'number';
    return typeof value === 'boolean' ? 'boolean' : 'other';
  }

  text(slot: Slot): string | undefined {
    const node = this.resolve(slot.node);
    return isScalar(node) && typeof node.value === 'string' ? node.value : undefined;
  }

  boolean(slot: Slot): boolean | undefined {
    const node = this.resolve(slot.node);
    return isScalar(node) && typeof node.value === 'boolean' ? node.value : undefined;
  }

  written(slot: Slot): string {
    const node = this.resolve(slot.node);
    if (isAlias(node)) return `*${node.source}`;
    return isScalar(node) ? (node.source ?? String(node.value)) : '';
  }

  get(map: Slot, key: string): Slot | undefined {
    const node = this.resolve(map.node);
    if (!isMap(node)) return undefined;
    const pair = node.items.find((item) => {
      const k = this.resolve(item.key as AnyNode);
      return isScalar(k) && k.value === key;
    });
    return pair === undefined ? undefined : { node: pair.value as AnyNode, pair };
  }

  keys(map: Slot): (string | undefined)[] {
    const node = this.resolve(map.node);
    if (!isMap(node)) return [];
    return node.items.map((pair) => {
      const key = this.resolve(pair.key as AnyNode);
      return isScalar(key) ? String(key.value) : undefined;
    });
  }

  keyNode(map: Slot, index: number): Slot | undefined {
    const node = this.resolve(map.node);
    const pair = isMap(node) ? node.items[index] : undefined;
    return pair === undefined ? undefined : { node: this.resolve(pair.key as AnyNode) };
  }

  items(list: Slot): readonly Slot[] {
    const node = this.resolve(list.node);
    return isSeq(node) ? node.items.map((item) => ({ node: item as AnyNode })) : [];
  }

  firstAt(first: Slot): string {
    const { line, col } = this.lineCounter.linePos(this.slotOffset(first));
    return `at line ${line}, column ${col}`;
  }

  private positionOf(offset: number): SourcePosition {
    const { line, col } = this.lineCounter.linePos(offset);
    return { file: this.source.label, line, column: col };
  }

  private report(offset: number, reason: string): void {
    this.problems.push({ position: this.positionOf(offset), offset, reason });
  }

  /** A key where the problem is the key, else the node; the file's start when there is none. */
  private placeOffset(place: ProblemPlace<Slot>): number {
    if (place.node === undefined) return 0;
    const fallback = this.offsetOf(this.resolve(place.node.node), 0);
    if (place.key !== undefined) return this.offsetOf(place.key.node, fallback);
    return this.slotOffset(place.node);
  }

  /** Where a slot is written: an alias's own place, not its anchor's. */
  private slotOffset(slot: Slot): number {
    return slot.pair === undefined ? this.offsetOf(slot.node, 0) : this.valueOffset(slot.pair);
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
}

/**
 * A JSON file (by its `.json` name, or any text that starts like JSON and fails as YAML too) is
 * checked with JSON's rules, so the user reads a JSON reason instead of a YAML one.
 */
function jsonSyntaxError(source: SourceText, yamlFailed: boolean) {
  if (!declaredJson(source.label) && !(looksLikeJson(source.text) && yamlFailed)) return undefined;
  try {
    JSON.parse(source.text);
    return undefined;
  } catch {
    return findJsonSyntaxError(source.text);
  }
}

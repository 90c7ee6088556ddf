/**
 * The path for markings files too large for positions (parse-yaml.ts takes a hundred times a
 * file's size): the file is read to plain values within the node budget (JSON by `JSON.parse`,
 * YAML by js-yaml), and each marking is checked by the rules of file-rules.ts as soon as it is
 * read, keeping only what the checks give, so memory stays that of the markings themselves.
 * Problems are placed at their marking's entry (line and column of the entry, or of the syntax
 * error) and named by their path in the file (`markings[1234].values[2]`), since no position is
 * kept for what is inside it.
 */
import {
  type NodeBudget,
  parseJsonWithin,
  tooManyValuesError,
} from '../../common/files/node-budget.js';
import {
  MARKING_WEIGHT,
  type ParsedFile,
  type ParsedMarking,
  type ParseOptions,
  type Problem,
  type SourceText,
} from '../../common/markings/file-format.js';
import {
  checkMarking,
  declaredJson,
  documentEntries,
  type FileTree,
  isPlainMapping,
  looksLikeJson,
  plainTree,
  syntaxWords,
} from '../../common/markings/file-rules.js';
import { findJsonSyntaxError } from './json-syntax.js';
import { type MarkingPlace, markingPlaces, positionFinder } from './parse-json.js';
import type { SourcePosition } from '../../common/markings/desired.js';

/** Problems kept per file; the rest are counted. Far more than anyone reads (50 are shown). */
const PROBLEMS_KEPT = 1_000;

/** Where an entry is written. */
interface At {
  position: SourcePosition;
  offset: number;
}

/** A marking read and found valid (as the YAML is read, it stands in the list for its entry). */
class ReadMarking implements ParsedMarking {
  constructor(
    readonly marking: ParsedMarking['marking'],
    readonly nameOffset: number,
    readonly namePosition: SourcePosition,
  ) {}
}

/** An entry checked while the YAML was read and found wrong: its problems, to report in order. */
class WrongEntry {
  constructor(
    readonly position: SourcePosition,
    readonly offset: number,
    readonly problems: { path: string; reason: string }[],
  ) {}
}

/** `parsed`: the text as JSON.parse gave it, within the budget, when the caller has read it. */
export async function parsePlain(
  source: SourceText,
  options: ParseOptions,
  budget: NodeBudget,
  parsed?: { data: unknown },
): Promise<ParsedFile> {
  return new PlainReader(source, budget).read(options, parsed);
}

class PlainReader {
  private readonly problems: Problem[] = [];
  private unlisted = 0;
  /** Values looked at by the checks: aliases can make a list stand many times in a file. */
  private walked = 0;
  private readonly position: (offset: number) => SourcePosition;
  /** The document's top level, and the markings, whose lists and mappings count in the budget. */
  private readonly top = plainTree();
  private readonly tree: FileTree<unknown>;

  constructor(
    private readonly source: SourceText,
    private readonly budget: NodeBudget,
  ) {
    this.position = positionFinder(source);
    this.tree = plainTree((children) => this.walk(children));
  }

  async read(options: ParseOptions, parsed?: { data: unknown }): Promise<ParsedFile> {
    const markings =
      parsed === undefined ? await this.readFile(options) : this.readJson(parsed.data, options);
    return { markings, problems: this.problems, unlisted: this.unlisted, withoutPositions: true };
  }

  private report(position: SourcePosition, offset: number, reason: string): void {
    if (this.problems.length < PROBLEMS_KEPT) this.problems.push({ position, offset, reason });
    else this.unlisted += 1;
  }

  /** A problem of the whole file (its syntax, its top level): at `offset`, with no path. */
  private reportAt(offset: number, reason: string): void {
    this.report(this.position(offset), offset, reason);
  }

  private walk(count: number): void {
    this.walked += count;
    if (this.walked > this.budget.nodes) throw tooManyValuesError(this.source.label, this.budget);
  }

  private async readFile(options: ParseOptions): Promise<ParsedMarking[]> {
    const { label, text } = this.source;
    if (declaredJson(label) || looksLikeJson(text)) {
      let data: unknown;
      let parsed = true;
      try {
        data = parseJsonWithin(text, label, this.budget);
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        parsed = false;
      }
      if (parsed) return this.readJson(data, options);
      if (declaredJson(label)) {
        const syntax = findJsonSyntaxError(text);
        this.reportAt(syntax?.offset ?? 0, syntaxWords.json(syntax?.reason ?? 'not JSON'));
        return [];
      }
      // Text that starts like JSON and is not: YAML flow style, read as YAML below.
    }
    return this.readYaml(options);
  }

  private readJson(data: unknown, options: ParseOptions): ParsedMarking[] {
    const itself = options.single === true && isPlainMapping(data) && !('markings' in data);
    let places: MarkingPlace[] | undefined;
    // Where each entry is, when the entries are mappings (a list of anything else is not worth
    // a scan: its problems are named by path).
    const list = isPlainMapping(data) ? data.markings : undefined;
    if (itself || (Array.isArray(list) && list.every(isPlainMapping))) {
      places = markingPlaces(this.source.text, itself, (offset, key) =>
        this.reportAt(offset, syntaxWords.keyGivenTwice(key)),
      );
      if (places === undefined) return [];
    }
    return this.readDocument(data, options, (entry, index) => {
      const offset = places?.[index ?? 0]?.offset ?? 0;
      return this.entry(entry, index, () => ({ position: this.position(offset), offset }));
    });
  }

  private readYaml(options: ParseOptions): Promise<ParsedMarking[]> {
    return import('../../common/files/yaml-within.js').then(
      ({ loadYamlWithin, YamlSyntaxError }) => {
        const { label, text } = this.source;
        let data: unknown;
        try {
          data = loadYamlWithin(
            text,
            label,
            this.budget,
            options.single
              ? // One marking: nothing to check as it is read (level 0 is never reached).
                { depth: 0, replace: (value) => value, mappingDepths: [1, 3, 5] }
              : {
                  // Entries of the top-level `markings` list (the document is level 1): checked as
                  // each is read, so the file's values never stand in memory all at once.
                  depth: 3,
                  // The document, a marking, a value: mappings of a few keys each.
                  mappingDepths: [1, 3, 5],
                  replace: (value, place) => {
                    if (!isPlainMapping(value)) return value;
                    const position = { file: label, line: place.line, column: place.column };
                    const problems: { path: string; reason: string }[] = [];
                    const at = { position, offset: place.offset };
                    const checked = this.check(
                      value,
                      () => at,
                      (path, reason) => problems.push({ path, reason }),
                    );
                    return checked ?? new WrongEntry(position, place.offset, problems);
                  },
                },
          );
        } catch (error) {
          if (!(error instanceof YamlSyntaxError)) throw error;
          // Text that starts like JSON and is neither: JSON's reason, as for a small file.
          const json = looksLikeJson(text) ? findJsonSyntaxError(text) : undefined;
          if (json !== undefined) {
            this.reportAt(json.offset, syntaxWords.json(json.reason));
            return [];
          }
          const { line, column, offset } = error.place;
          const reason =
            error.reason === 'duplicated mapping key'
              ? syntaxWords.keyGivenTwice(keyAt(text, offset))
              : syntaxWords.yaml(error.reason);
          this.report({ file: label, line, column }, offset, reason);
          return [];
        }
        return this.readDocument(data, options, (entry, index) => {
          if (entry instanceof ReadMarking) return entry;
          if (!(entry instanceof WrongEntry)) return this.entry(entry, index, this.start);
          for (const { path, reason } of entry.problems) {
            this.report(entry.position, entry.offset, named(index, path, reason));
          }
          return undefined;
        });
      },
    );
  }

  /** The start of the file, where problems of entries with no place are put. */
  private readonly start = (): At => ({ position: this.position(0), offset: 0 });

  /**
   * The top level (a mapping with a `markings` list, or one marking itself), problems at the
   * file's start; then each entry, by `read` (its index undefined for a marking itself).
   */
  private readDocument(
    data: unknown,
    options: ParseOptions,
    read: (entry: unknown, index: number | undefined) => ParsedMarking | undefined,
  ): ParsedMarking[] {
    const document = documentEntries(this.top, data, options.single === true, (_, reason) =>
      this.reportAt(0, reason),
    );
    if (document === undefined) return [];
    const entries =
      'itself' in document ? [read(document.itself, undefined)] : document.entries.map(read);
    return entries.filter((entry): entry is ParsedMarking => entry !== undefined);
  }

  /** One marking entry of the file, not yet checked: checked, its problems reported at `at`. */
  private entry(value: unknown, index: number | undefined, where: () => At) {
    return this.check(value, where, (path, reason) => {
      if (this.problems.length >= PROBLEMS_KEPT) {
        this.unlisted += 1;
        return;
      }
      const { position, offset } = where();
      this.report(position, offset, named(index, path, reason));
    });
  }

  /** The rules on one entry; its problems by path inside it (`.values[2]`). */
  private check(
    value: unknown,
    where: () => At,
    problem: (path: string, reason: string) => void,
  ): ReadMarking | undefined {
    this.walk(1);
    if (isPlainMapping(value)) this.walk(MARKING_WEIGHT);
    const checked = checkMarking(
      this.tree,
      value,
      () => where().position,
      (place, reason) => problem(place.path, reason),
    );
    if (checked === undefined) return undefined;
    return new ReadMarking(checked.marking, where().offset, checked.marking.source);
  }
}

/** A problem of entry `index` named by its path: `markings[3].values[1]: reason`. */
function named(index: number | undefined, path: string, reason: string): string {
  const name = index === undefined ? path : `markings[${index}]${path}`;
  return name === '' ? reason : `${name}: ${reason}`;
}

/** The key js-yaml found given twice, read where it starts: quoted, or plain up to its colon. */
function keyAt(text: string, offset: number): string | undefined {
  const KEY = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|[^\s"'?#,[\]{}][^\n]*?(?=[ \t]*:(?:\s|$))/y;
  KEY.lastIndex = offset;
  const written = KEY.exec(text)?.[0];
  if (written === undefined) return undefined;
  if (written.startsWith("'")) return written.slice(1, -1).replaceAll("''", "'");
  if (!written.startsWith('"')) return written.trimEnd();
  try {
    return JSON.parse(written) as string;
  } catch {
    return undefined;
  }
}

/**
 * The path for markings files too large for positions (parse-yaml.ts takes a hundred times a
 * file's size): the file is read to plain values within the node budget (JSON by `JSON.parse`,
 * YAML by js-yaml), and each marking is checked as soon as it is read, keeping only what the
 * checks give, so memory stays that of the markings themselves. Problems are placed at their
 * marking's entry (line and column of the entry, or of the syntax error) and named by their path
 * in the file (`markings[1234].values[2]`), since no position is kept for what is inside it.
 */
import { descriptionProblem, nameProblem } from '../api/names.js';
import { VALUES_MAX_PER_MARKING } from '../markings/wire.js';
import { type NodeBudget, parseJsonWithin, tooManyValuesError } from '../files/node-budget.js';
import {
  FILE_KEYS,
  MARKING_WEIGHT,
  type ParsedFile,
  type ParsedMarking,
  type ParseOptions,
  type Problem,
  type SourceText,
} from './file-format.js';
import { findJsonSyntaxError } from './json-syntax.js';
import { type MarkingPlace, markingPlaces, positionFinder } from './parse-json.js';
import { closest, excerpt } from './problem-words.js';
import type { DesiredMarking, DesiredValue, SourcePosition } from './types.js';

/** Problems kept per file; the rest are counted. Far more than anyone reads (50 are shown). */
const PROBLEMS_KEPT = 1_000;

type Plain = Record<string, unknown>;
const isPlainObject = (value: unknown): value is Plain =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Where an entry is written. */
interface At {
  position: SourcePosition;
  offset: number;
}

/** A marking read and found valid (as the YAML is read, it stands in the list for its entry). */
class ReadMarking implements ParsedMarking {
  constructor(
    readonly marking: DesiredMarking,
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

  constructor(
    private readonly source: SourceText,
    private readonly budget: NodeBudget,
  ) {
    this.position = positionFinder(source);
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

  private walk(count: number): void {
    this.walked += count;
    if (this.walked > this.budget.nodes) throw tooManyValuesError(this.source.label, this.budget);
  }

  private async readFile(options: ParseOptions): Promise<ParsedMarking[]> {
    const { label, text } = this.source;
    const declaredJson = /\.json$/i.test(label);
    if (declaredJson || /^\s*[[{]/.test(text)) {
      let data: unknown;
      let parsed = true;
      try {
        data = parseJsonWithin(text, label, this.budget);
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        parsed = false;
      }
      if (parsed) return this.readJson(data, options);
      if (declaredJson) {
        const syntax = findJsonSyntaxError(text);
        const offset = syntax?.offset ?? 0;
        this.report(this.position(offset), offset, `invalid JSON: ${syntax?.reason ?? 'not JSON'}`);
        return [];
      }
      // Text that starts like JSON and is not: YAML flow style, read as YAML below.
    }
    return this.readYaml(options);
  }

  private readJson(data: unknown, options: ParseOptions): ParsedMarking[] {
    const itself = options.single === true && isPlainObject(data) && !('markings' in data);
    let places: MarkingPlace[] | undefined;
    // Where each entry is, when the entries are mappings (a list of anything else is not worth
    // a scan: its problems are named by path).
    const list = isPlainObject(data) ? data.markings : undefined;
    if (itself || (Array.isArray(list) && list.every(isPlainObject))) {
      places = markingPlaces(this.source.text, itself, (offset, key) =>
        this.report(
          this.position(offset),
          offset,
          `invalid JSON for a markings file: the key ${excerpt(key)} is given twice in one object`,
        ),
      );
      if (places === undefined) return [];
    }
    const at = (index: number) => (): At => {
      const offset = places?.[index]?.offset ?? 0;
      return { position: this.position(offset), offset };
    };
    if (itself) return this.keep([this.entry(data, '', at(0))]);
    return this.readDocument(data, (entries) =>
      entries.map((entry, index) => this.entry(entry, `markings[${index}]`, at(index))),
    );
  }

  private readYaml(options: ParseOptions): Promise<ParsedMarking[]> {
    return import('../files/yaml-within.js').then(({ loadYamlWithin, YamlSyntaxError }) => {
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
                  const position = { file: label, line: place.line, column: place.column };
                  if (!isPlainObject(value)) return value;
                  const problems: { path: string; reason: string }[] = [];
                  const where = () => ({ position, offset: place.offset });
                  const parsed = this.check(value, where, (path, reason) =>
                    problems.push({ path, reason }),
                  );
                  return parsed ?? new WrongEntry(position, place.offset, problems);
                },
              },
        );
      } catch (error) {
        if (!(error instanceof YamlSyntaxError)) throw error;
        // Text that starts like JSON and is neither: JSON's reason, as for a small file.
        const json = /^\s*[[{]/.test(text) ? findJsonSyntaxError(text) : undefined;
        if (json !== undefined) {
          this.report(this.position(json.offset), json.offset, `invalid JSON: ${json.reason}`);
          return [];
        }
        const { line, column, offset } = error.place;
        this.report({ file: label, line, column }, offset, `invalid YAML: ${error.reason}`);
        return [];
      }
      if (options.single && isPlainObject(data) && !('markings' in data)) {
        return this.keep([this.entry(data, '', this.start)]);
      }
      return this.readDocument(data, (entries) =>
        entries.map((entry, index) => {
          const name = `markings[${index}]`;
          if (entry instanceof ReadMarking) return entry;
          if (!(entry instanceof WrongEntry)) return this.entry(entry, name, this.start);
          for (const { path, reason } of entry.problems) {
            this.report(entry.position, entry.offset, `${name}${path}: ${reason}`);
          }
          return undefined;
        }),
      );
    });
  }

  /** The start of the file, where problems of entries with no place are put. */
  private readonly start = (): At => ({ position: this.position(0), offset: 0 });

  private keep(entries: (ParsedMarking | undefined)[]): ParsedMarking[] {
    return entries.filter((entry): entry is ParsedMarking => entry !== undefined);
  }

  /** The top level: a mapping with a `markings` list (and perhaps `$schema`). */
  private readDocument(
    data: unknown,
    entries: (list: unknown[]) => (ParsedMarking | undefined)[],
  ): ParsedMarking[] {
    const top = { position: this.position(0), offset: 0 };
    const fail = (reason: string) => {
      this.report(top.position, top.offset, reason);
      return [];
    };
    if (data === null || data === undefined) {
      return fail('the file is empty; expected a `markings` list');
    }
    if (!isPlainObject(data)) {
      return fail(`expected a mapping with a \`markings\` list, ${found(data)}`);
    }
    this.checkKeys(data, FILE_KEYS.document, 'the top level', (reason) => fail(reason));
    if (!('markings' in data)) return fail('missing the `markings` list');
    const list = data.markings;
    if (!Array.isArray(list)) return fail(`\`markings\` must be a list, ${found(list)}`);
    return this.keep(entries(list));
  }

  /** One marking entry of the file, not yet checked: checked, its problems reported at `at`. */
  private entry(value: unknown, name: string, where: () => At): ParsedMarking | undefined {
    return this.check(value, where, (path, reason) => {
      if (this.problems.length >= PROBLEMS_KEPT) {
        this.unlisted += 1;
        return;
      }
      const { position, offset } = where();
      this.report(position, offset, `${name}${path}: ${reason}`.replace(/^: /, ''));
    });
  }

  private checkKeys(
    map: Plain,
    allowed: readonly string[],
    where: string,
    problem: (reason: string) => void,
  ): void {
    const keys = Object.keys(map);
    this.walk(keys.length);
    for (const key of keys) {
      if (allowed.includes(key)) continue;
      const suggestion = closest(key, allowed);
      problem(
        `unknown key ${excerpt(key)} in ${where}` +
          (suggestion ? ` (did you mean "${suggestion}"?)` : ` (allowed: ${allowed.join(', ')})`),
      );
    }
  }

  /** The checks of parse-yaml.ts's readMarking, on plain values; problems by path in the entry. */
  private check(
    value: unknown,
    where: () => At,
    problem: (path: string, reason: string) => void,
  ): ParsedMarking | undefined {
    this.walk(1);
    if (!isPlainObject(value)) {
      problem('', `a marking must be a mapping with at least a name, ${found(value)}`);
      return undefined;
    }
    this.walk(MARKING_WEIGHT);
    const { position: source, offset } = where();
    let valid = true;
    const fail = (path: string, reason: string) => {
      valid = false;
      problem(path, reason);
    };
    const written = value.name;
    const label = excerpt(typeof written === 'string' ? written : '(unnamed)');
    if (!('name' in value)) fail('', 'a marking has no name');
    else this.name(written, 'marking name', (reason) => fail('.name', reason));
    this.checkKeys(value, FILE_KEYS.marking, `marking ${label}`, (reason) => fail('', reason));

    const marking: DesiredMarking = { name: typeof written === 'string' ? written : '', source };
    if ('description' in value) {
      marking.description = this.description(
        value.description,
        `description of marking ${label}`,
        (reason) => fail('.description', reason),
      );
    }
    for (const flag of ['public', 'adminOnly'] as const) {
      if (!(flag in value)) continue;
      const flagValue = value[flag];
      if (typeof flagValue === 'boolean') marking[flag] = flagValue;
      else fail(`.${flag}`, `${flag} must be true or false, ${found(flagValue)}`);
    }
    if ('values' in value) {
      marking.values = this.values(value.values, label, (path, reason) =>
        fail(`.values${path}`, reason),
      );
    }
    if ('defaultValue' in value) {
      const defaultValue = value.defaultValue;
      if (defaultValue === null) {
        marking.defaultValue = null;
      } else if (this.name(defaultValue, 'defaultValue', (r) => fail('.defaultValue', r))) {
        marking.defaultValue = defaultValue as string;
        if (marking.values !== undefined && !marking.values.some((v) => v.name === defaultValue)) {
          fail(
            '.defaultValue',
            `defaultValue "${defaultValue as string}" is not one of the values listed for ${label}`,
          );
        }
      }
    }
    if (!valid) return undefined;
    return new ReadMarking(marking, offset, source);
  }

  private name(value: unknown, what: string, problem: (reason: string) => void): boolean {
    if (typeof value !== 'string') {
      problem(`${what} must be text, ${found(value, true)}`);
      return false;
    }
    const reason = nameProblem(value);
    if (reason !== undefined) problem(`${what} ${excerpt(value)} ${reason}`);
    return reason === undefined;
  }

  private description(
    value: unknown,
    what: string,
    problem: (reason: string) => void,
  ): string | undefined {
    if (typeof value !== 'string') {
      problem(`${what} must be text, ${found(value, true)}`);
      return undefined;
    }
    const reason = descriptionProblem(value);
    if (reason !== undefined) problem(`${what} ${reason}`);
    return value;
  }

  private values(
    list: unknown,
    label: string,
    problem: (path: string, reason: string) => void,
  ): DesiredValue[] | undefined {
    if (!Array.isArray(list)) {
      problem('', `values of ${label} must be a list, ${found(list)}`);
      return undefined;
    }
    if (list.length > VALUES_MAX_PER_MARKING) {
      // Not read further: the values of a list this long are not worth a problem each.
      problem(
        '',
        `${label} lists ${list.length} values; at most ${VALUES_MAX_PER_MARKING} are allowed`,
      );
      return undefined;
    }
    this.walk(list.length);
    const values: DesiredValue[] = [];
    const seen = new Map<string, number>();
    let valid = true;
    for (const [index, item] of list.entries()) {
      const path = `[${index}]`;
      const fail = (reason: string) => {
        valid = false;
        problem(path, reason);
      };
      let value: DesiredValue;
      if (typeof item === 'string') {
        value = { name: item };
      } else if (isPlainObject(item)) {
        this.checkKeys(item, FILE_KEYS.value, `a value of ${label}`, fail);
        if (!('name' in item)) {
          fail(`a value of ${label} has no name`);
          continue;
        }
        if (typeof item.name !== 'string') {
          fail(`value name must be text, ${found(item.name, true)}`);
          continue;
        }
        value = { name: item.name };
        if ('description' in item) {
          const description = this.description(
            item.description,
            `values[${index}].description of marking ${label}`,
            fail,
          );
          if (description !== undefined) value.description = description;
        }
      } else {
        fail(`a value of ${label} must be a name or {name, description}, ${found(item, true)}`);
        continue;
      }
      const reason = nameProblem(value.name);
      if (reason !== undefined) {
        fail(`value name ${excerpt(value.name)} ${reason}`);
        continue;
      }
      const first = seen.get(value.name);
      if (first !== undefined) {
        fail(`value "${value.name}" is listed twice in ${label} (first as values[${first}])`);
        continue;
      }
      seen.set(value.name, index);
      values.push(value);
    }
    return valid ? values : undefined;
  }
}

/** "found ..." for a value of the wrong type, as parse-yaml.ts words it. */
function found(value: unknown, textExpected = false): string {
  if (Array.isArray(value)) return 'found a list';
  if (isPlainObject(value)) return 'found a mapping';
  if (value === null || value === undefined) return 'found nothing';
  if (typeof value === 'string') return `found the text ${excerpt(value)}`;
  const written = String(value);
  const hint = textExpected ? ` (quote it, "${written}", to use it as text)` : '';
  return `found ${typeof value === 'boolean' ? 'the boolean' : 'the number'} ${written}${hint}`;
}

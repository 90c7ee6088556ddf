/**
 * The sources of `markings apply|create|update -f`: files, directories and stdin read into texts,
 * within the input cap, then parsed and checked together, every problem of every file reported
 * at once with its position, before anything is sent.
 */
import { readdir, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { InputError, KsctlError, UsageError } from '../../common/errors.js';
import {
  formatBytes,
  inputLimit,
  INPUT_MAX_BYTES,
  type ReadLimit,
  readBoundedFile,
  tooLargeError,
} from '../../common/files/bounded-read.js';
import {
  type ParsedMarking,
  POSITIONS_MAX_CHARS,
  type Problem,
  type SourceText,
} from '../../common/markings/file-format.js';
import { type NodeBudget, nodeBudget } from '../../common/files/node-budget.js';
import { definedTwice } from '../../common/markings/file-rules.js';
import { parseMarkingsText } from './parse.js';
import {
  compareNames,
  type DesiredMarking,
  formatPosition,
} from '../../common/markings/desired.js';

export const STDIN_LABEL = '<stdin>';
const MARKINGS_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
const PROBLEMS_SHOWN = 50;

export interface ReadSourcesOptions {
  /** What stdin held, when `-` is one of the sources (the command reads it). */
  stdin?: string;
  /** Bytes one file, and all of them together, may hold (default 64 MiB). */
  limit?: ReadLimit;
}

const defaultLimit = (): ReadLimit => ({
  bytes: INPUT_MAX_BYTES,
  what: 'markings file',
  dash: true,
});

/** The cap of markings files and stdin: KSCTL_MAX_INPUT_MIB, else 64 MiB. */
export function markingsInputLimit(env: NodeJS.ProcessEnv): ReadLimit {
  return { ...inputLimit(env, 'markings file'), dash: true };
}

/**
 * Turns the command's sources into texts: a file is read as is; a directory contributes its
 * `*.yaml`, `*.yml` and `*.json` files in name order. Directories are not searched recursively,
 * as with `kubectl apply -f DIR`: sub-directories often hold other things (old versions, other
 * environments) that a user would not expect to be applied. Hidden files are skipped (editor
 * lock files such as `.#markings.yaml`). A path given twice is read once.
 */
export async function readSources(
  sources: readonly string[],
  options: ReadSourcesOptions = {},
): Promise<SourceText[]> {
  const texts: SourceText[] = [];
  const seen = new Set<string>();
  const limit = options.limit ?? defaultLimit();
  // The cap holds for each file and for all of them together: a directory of large files is
  // as bounded as one.
  let total = options.stdin?.length ?? 0;
  const add = async (path: string) => {
    const absolute = resolve(path);
    if (seen.has(absolute)) return;
    seen.add(absolute);
    const text = await readText(path, limit);
    total += text.length;
    if (total > limit.bytes) throw tooLargeError(`${path} and the files before it`, limit);
    texts.push({ label: path, text: withoutByteOrderMark(text) });
  };

  for (const source of sources) {
    if (source === '-') {
      if (options.stdin === undefined) throw new UsageError('`-` was given but stdin was not read');
      if (seen.has(STDIN_LABEL)) throw new UsageError('`-` (stdin) can be given only once');
      seen.add(STDIN_LABEL);
      texts.push({ label: STDIN_LABEL, text: withoutByteOrderMark(options.stdin) });
      continue;
    }
    if (!(await statOrThrow(source)).isDirectory()) {
      await add(source);
      continue;
    }
    const names = await markingsFilesIn(source);
    if (names.length === 0) {
      throw new InputError(`${source} holds no markings files (*.yaml, *.yml, *.json)`);
    }
    for (const name of names) await add(join(source, name));
  }
  return texts;
}

async function markingsFilesIn(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const names: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    if (!MARKINGS_EXTENSIONS.has(extname(entry.name).toLowerCase())) continue;
    // A symbolic link counts when it leads to a file.
    const isFile =
      entry.isFile() || (entry.isSymbolicLink() && (await isFilePath(join(directory, entry.name))));
    if (isFile) names.push(entry.name);
  }
  return names.sort(compareNames);
}

async function isFilePath(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function statOrThrow(path: string) {
  try {
    return await stat(path);
  } catch (error) {
    throw readFailure(path, error);
  }
}

async function readText(path: string, limit: ReadLimit): Promise<string> {
  try {
    return (await readBoundedFile(path, limit)).toString('utf8');
  } catch (error) {
    throw error instanceof KsctlError ? error : readFailure(path, error);
  }
}

function readFailure(path: string, error: unknown) {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') {
    return new UsageError(`${path}: no such file or directory`, {
      hint: 'give a markings file, a directory of them, or - for stdin',
    });
  }
  return new InputError(`${path}: cannot be read (${code ?? String(error)})`, { cause: error });
}

function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Parses and validates every source, and checks that no marking is defined twice across them.
 * All problems are collected and thrown as one InputError, `file:line:column: reason` per line,
 * so a user fixes every file in one round and nothing is sent while any problem remains.
 */
export async function parseMarkingSources(
  sources: readonly SourceText[],
  budget?: NodeBudget,
): Promise<DesiredMarking[]> {
  const problems: { fileIndex: number; problem: Problem }[] = [];
  const parsed: ParsedMarking[] = [];
  const unread: UnreadProblems = { unlisted: 0, withoutPositions: false };
  for (const [fileIndex, source] of sources.entries()) {
    const file = await parseMarkingsText(source, budget === undefined ? {} : { budget });
    for (const problem of file.problems) problems.push({ fileIndex, problem });
    for (const marking of file.markings) parsed.push(marking);
    unread.unlisted += file.unlisted ?? 0;
    if (file.withoutPositions === true && file.problems.length > 0) unread.withoutPositions = true;
  }

  const fileIndexOf = new Map(sources.map((source, index) => [source.label, index]));
  const firstByName = new Map<string, ParsedMarking>();
  for (const entry of parsed) {
    const first = firstByName.get(entry.marking.name);
    if (first === undefined) {
      firstByName.set(entry.marking.name, entry);
      continue;
    }
    problems.push({
      fileIndex: fileIndexOf.get(entry.namePosition.file) ?? 0,
      problem: {
        position: entry.namePosition,
        offset: entry.nameOffset,
        reason: definedTwice(entry.marking.name, first.namePosition),
      },
    });
  }

  if (problems.length > 0) {
    problems.sort((a, b) => a.fileIndex - b.fileIndex || a.problem.offset - b.problem.offset);
    throw problemsError(
      problems.map(({ problem }) => problem),
      unread,
    );
  }
  return parsed.map((entry) => entry.marking);
}

/**
 * One error for every problem: the message says how many, each problem is a detail
 * (`file:line:column: reason`, printed one per line). Enough to fix a file in one go without
 * burying the terminal: beyond PROBLEMS_SHOWN the last detail counts the rest.
 */
function problemsError(
  problems: Problem[],
  unread: UnreadProblems = { unlisted: 0, withoutPositions: false },
): InputError {
  const total = problems.length + unread.unlisted;
  const details = problems.slice(0, PROBLEMS_SHOWN).map((problem) => ({
    path: formatPosition(problem.position),
    message: problem.reason,
  }));
  if (total > PROBLEMS_SHOWN) {
    details.push({ path: '', message: `… and ${total - PROBLEMS_SHOWN} more problems` });
  }
  const count = total === 1 ? '1 problem' : `${total} problems`;
  const large = unread.withoutPositions
    ? `; files over ${formatBytes(POSITIONS_MAX_CHARS)} are read without positions inside a marking: a problem there is placed at its marking and named by its path`
    : '';
  return new InputError(`invalid markings files (${count}; nothing was sent)`, {
    hint: `fix the files and run the command again${large}`,
    details,
  });
}

/** What a large file's problems leave out: how many were not kept, and their positions. */
interface UnreadProblems {
  unlisted: number;
  withoutPositions: boolean;
}

/** Reads, parses and validates the sources of `markings apply`. */
export async function loadDesiredMarkings(
  sources: readonly string[],
  options: ReadSourcesOptions = {},
): Promise<DesiredMarking[]> {
  return parseMarkingSources(
    await readSources(sources, options),
    nodeBudget(options.limit ?? defaultLimit()),
  );
}

/**
 * Reads the marking document of `markings create|update -f`: one marking, either as the top level
 * (`{name, description, public, adminOnly, defaultValue, values}`, one entry of `markings:`) or as
 * a `markings` list of exactly one.
 */
export async function loadMarkingDocument(
  source: string,
  options: ReadSourcesOptions = {},
): Promise<DesiredMarking> {
  const texts = await readSources([source], options);
  const [text] = texts;
  if (text === undefined || texts.length > 1) {
    throw new UsageError(`${source}: give one file; a marking document holds one marking`, {
      hint: 'apply a directory of markings files with `ksctl markings apply -f DIR`',
    });
  }
  const file = await parseMarkingsText(text, {
    single: true,
    budget: nodeBudget(options.limit ?? defaultLimit()),
  });
  if (file.problems.length > 0) {
    throw problemsError(file.problems, {
      unlisted: file.unlisted ?? 0,
      withoutPositions: file.withoutPositions === true,
    });
  }
  const [first, ...more] = file.markings;
  if (first === undefined || more.length > 0) {
    throw new InputError(
      `${text.label} holds ${file.markings.length} markings; a marking document holds one`,
      { hint: 'create or update several markings with `ksctl markings apply -f FILE`' },
    );
  }
  return first.marking;
}

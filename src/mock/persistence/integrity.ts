/**
 * The state directory's files, format 2 (DESIGN.md 3.2): what they hold and how they are checked,
 * so that damage is never taken for an empty or a shorter state.
 *
 * Every line (headers included) carries a checksum as its last member: the first 16 hex digits of
 * the SHA-256 of the line's JSON without it (`{…,"c":"0123456789abcdef"}`). Records carry a
 * sequence number `s`: in a snapshot 1..N; in the journals one count across them all, going on
 * from the last record the snapshot covers. The snapshot's header names its generation, a random
 * id, the journal sequence number it covers and its record count; a journal's header names its
 * generation and the id of the snapshot of that generation (written after the journal is created,
 * so a journal may name a snapshot that a crash kept from being written). A clean stop appends a
 * `close` record; only a mock that died (its lock file left behind) may leave a torn last line.
 *
 * Format 1 (no checksums, no sequence numbers) is still read; the first start on it writes
 * format 2.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode, fileReason } from '../../files/fs-errors.js';
import { RECORD_KINDS, type StateRecord } from './records.js';

export const STATE_FILE_FORMAT = 'ksctl-mock-state';
/** Raise when a record changes meaning; an older ksctl then refuses the files instead of misreading them. */
export const STATE_FORMAT_VERSION = 2;
/** The record a clean stop appends: the journal ends here, nothing was cut off. */
export const CLOSE_KIND = 'close';

export const SNAPSHOT_FILE = 'snapshot.jsonl';
export const JOURNAL_FILE = /^journal-(\d+)\.jsonl$/;
export const journalName = (generation: number) => `journal-${generation}.jsonl`;

const CHECK_SUFFIX = /,"c":"([0-9a-f]{16})"\}$/;

function checksum(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);
}

/** The JSON of `members`, its checksum added as the last member, and a newline. */
function sealedLine(members: Record<string, unknown>): string {
  const body = JSON.stringify(members);
  return `${body.slice(0, -1)},"c":"${checksum(body)}"}\n`;
}

type Opened = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string };

/** A line's members once its checksum is verified, or what is wrong with it. */
function openLine(line: string): Opened {
  const match = CHECK_SUFFIX.exec(line);
  if (!match)
    return { ok: false, reason: 'the line has no checksum (damaged or not a state line)' };
  const body = `${line.slice(0, match.index)}}`;
  if (checksum(body) !== match[1]) {
    return { ok: false, reason: 'the checksum does not match: the line was changed or damaged' };
  }
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return { ok: true, value: value as Record<string, unknown> };
    }
  } catch {
    // falls through
  }
  return { ok: false, reason: 'not a state record' };
}

export interface SnapshotHeader {
  generation: number;
  id: string;
  /** The last journal sequence number the snapshot holds (0: none). */
  covers: number;
  records: number;
}

export interface JournalHeader {
  generation: number;
  /** The id of the snapshot of the same generation. */
  snapshot: string;
  /** Created by a first start, before its snapshot: may stand alone if that start died. */
  fresh?: boolean;
}

export const newSnapshotId = () => randomBytes(8).toString('hex');

export function snapshotHeaderLine(header: SnapshotHeader): string {
  return sealedLine({
    format: STATE_FILE_FORMAT,
    version: STATE_FORMAT_VERSION,
    file: 'snapshot',
    ...header,
  });
}

export function journalHeaderLine(header: JournalHeader): string {
  return sealedLine({
    format: STATE_FILE_FORMAT,
    version: STATE_FORMAT_VERSION,
    file: 'journal',
    ...header,
  });
}

export function recordLine(seq: number, kind: string, data: unknown): string {
  return sealedLine({ s: seq, k: kind, d: data });
}

/** Something wrong in a state directory: the file, the line (1-based) when it is one, what. */
export interface StateProblem {
  file: string;
  line?: number;
  reason: string;
}

export const problemText = (p: StateProblem) =>
  `${p.file}${p.line === undefined ? '' : `:${p.line}`}: ${p.reason}`;

export interface SeqRecord {
  seq: number;
  kind: string;
  data: unknown;
  /** Where it stands, for messages. */
  file: string;
  line: number;
}

/** One file as read: its header, the records that verify, and what did not. */
export interface ReadFile {
  name: string;
  version: number;
  header: Record<string, unknown>;
  records: SeqRecord[];
  problems: StateProblem[];
  /** Bytes up to the end of the last whole line. */
  goodBytes: number;
  /** An unterminated last line that holds no whole record: a write a crash cut short. */
  tornTail?: string;
}

/**
 * Reads one state file of either format. Every line is checked; what is wrong goes into
 * `problems` (the records that verify are kept, for `recover`).
 */
export function readStateText(text: string, name: string): ReadFile {
  const lines = text.split('\n');
  const tail = lines.pop()!;
  const file: ReadFile = {
    name,
    version: 0,
    header: {},
    records: [],
    problems: [],
    goodBytes: Buffer.byteLength(text) - Buffer.byteLength(tail),
  };
  const problem = (line: number | undefined, reason: string) =>
    file.problems.push({ file: name, ...(line === undefined ? {} : { line }), reason });
  if (text === '') {
    problem(undefined, 'the file is empty');
    return file;
  }
  if (tail !== '') {
    // A whole record whose newline is missing is damage, not a write cut short.
    if (openLine(tail).ok) {
      problem(
        lines.length + 1,
        'the last record is whole but its end of line is missing or damaged',
      );
    } else {
      file.tornTail = 'an incomplete last line';
    }
  }
  if (lines.length === 0) {
    problem(1, 'the header line is incomplete');
    return file;
  }
  // The version first: a newer format may check its lines another way.
  const version = headerVersion(lines[0]!);
  if (version === 1) return readVersion1(file, lines, problem);
  if (version !== undefined && version > STATE_FORMAT_VERSION) {
    file.version = version;
    problem(
      1,
      `written by a newer ksctl (state format ${version}; this ksctl reads formats 1 and ${STATE_FORMAT_VERSION})`,
    );
    return file;
  }
  const header = openLine(lines[0]!);
  if (!header.ok || header.value.format !== STATE_FILE_FORMAT) {
    problem(1, header.ok ? 'not a ksctl mock state file' : `header: ${header.reason}`);
    return file;
  }
  file.version = Number(header.value.version);
  file.header = header.value;
  for (let i = 1; i < lines.length; i++) {
    const opened = openLine(lines[i]!);
    if (!opened.ok) {
      problem(i + 1, opened.reason);
      continue;
    }
    const { s, k, d } = opened.value;
    if (typeof k !== 'string' || !(k === CLOSE_KIND || Object.hasOwn(RECORD_KINDS, k))) {
      problem(i + 1, `unknown state record ${JSON.stringify(k)}`);
      continue;
    }
    if (!Number.isSafeInteger(s)) {
      problem(i + 1, 'the record has no sequence number');
      continue;
    }
    file.records.push({ seq: s as number, kind: k, data: d, file: name, line: i + 1 });
  }
  return file;
}

function headerVersion(line: string): number | undefined {
  try {
    const value = JSON.parse(line) as { format?: unknown; version?: unknown };
    return value.format === STATE_FILE_FORMAT ? Number(value.version) : undefined;
  } catch {
    return undefined;
  }
}

/** Format 1: `{"k", "d"}` lines without checksums; a last line that does not parse was torn. */
function readVersion1(
  file: ReadFile,
  lines: string[],
  problem: (line: number | undefined, reason: string) => void,
): ReadFile {
  file.version = 1;
  file.header = JSON.parse(lines[0]!) as Record<string, unknown>;
  for (let i = 1; i < lines.length; i++) {
    let value: { k?: unknown; d?: unknown };
    try {
      value = JSON.parse(lines[i]!) as { k?: unknown; d?: unknown };
    } catch {
      if (i === lines.length - 1 && file.tornTail === undefined) {
        file.tornTail = 'a last line that does not parse';
        file.goodBytes -= Buffer.byteLength(lines[i]!) + 1;
      } else {
        problem(i + 1, 'not a state record');
      }
      continue;
    }
    if (typeof value?.k !== 'string' || !Object.hasOwn(RECORD_KINDS, value.k)) {
      problem(i + 1, `unknown state record ${JSON.stringify(value?.k)}`);
      continue;
    }
    file.records.push({ seq: i, kind: value.k, data: value.d, file: file.name, line: i + 1 });
  }
  return file;
}

/** What a state directory holds, checked as a whole. */
export interface Inspection {
  dir: string;
  /** Nothing to restore: a new directory (or a first start that died before its snapshot). */
  fresh: boolean;
  version: number;
  snapshot?: ReadFile & { header: SnapshotHeader & Record<string, unknown> };
  /** The journals the snapshot's generation and later, oldest first. */
  journals: ReadFile[];
  generation: number;
  /** The last journal sequence number read (format 2). */
  lastSeq: number;
  /** Every problem; the directory is usable only when there is none. */
  problems: StateProblem[];
  /** What was forgiven: a torn last line after a crash. */
  warnings: string[];
}

export interface InspectOptions {
  /** The last mock died without stopping (its lock file was left): a torn last line is forgiven. */
  crashed: boolean;
}

async function readOne(dir: string, name: string): Promise<ReadFile | StateProblem | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, name), 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    return { file: name, reason: `cannot be read: ${fileReason(error)}` };
  }
  return readStateText(text, name);
}

const isProblem = (value: ReadFile | StateProblem): value is StateProblem => 'reason' in value;

/**
 * Reads and checks the whole directory without changing anything: the snapshot, the journals of
 * its generation and later, their headers, checksums and sequence numbers. Journals older than
 * the snapshot (left by a crash before they were removed) are not read: the snapshot holds them.
 */
export async function inspectStateDir(dir: string, options: InspectOptions): Promise<Inspection> {
  const inspection: Inspection = {
    dir,
    fresh: false,
    version: STATE_FORMAT_VERSION,
    journals: [],
    generation: 1,
    lastSeq: 0,
    problems: [],
    warnings: [],
  };
  const problems = inspection.problems;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    problems.push({ file: dir, reason: `cannot be read: ${fileReason(error)}` });
    return inspection;
  }
  const generations = names
    .map((name) => Number(JOURNAL_FILE.exec(name)?.[1] ?? Number.NaN))
    .filter((g) => Number.isSafeInteger(g))
    .sort((a, b) => a - b);

  const snapshot = names.includes(SNAPSHOT_FILE) ? await readOne(dir, SNAPSHOT_FILE) : undefined;
  if (snapshot === undefined) {
    await inspectWithoutSnapshot(inspection, dir, generations, options);
    if (!inspection.fresh) await collectJournals(inspection, dir, generations);
    return inspection;
  }
  if (isProblem(snapshot)) {
    problems.push(snapshot);
    await collectJournals(inspection, dir, generations);
    return inspection;
  }
  problems.push(...snapshot.problems);
  if (snapshot.tornTail !== undefined) {
    problems.push({
      file: SNAPSHOT_FILE,
      reason: 'the snapshot is incomplete (it is written whole, then renamed into place)',
    });
  }
  if (problems.length > 0) {
    // Unusable, but what verifies in it and in the journals is there for `recover`.
    inspection.snapshot = snapshot as Inspection['snapshot'];
    const from = Number(snapshot.header.generation);
    await collectJournals(
      inspection,
      dir,
      generations.filter((g) => !(g < from)),
    );
    return inspection;
  }
  inspection.version = snapshot.version;
  const generation = Number(snapshot.header.generation);
  inspection.generation = generation;
  if (snapshot.version >= 2) {
    const header = snapshot.header as unknown as SnapshotHeader;
    if (snapshot.records.length !== header.records) {
      problems.push({
        file: SNAPSHOT_FILE,
        reason: `holds ${snapshot.records.length} records; its header says ${header.records}`,
      });
    }
    snapshot.records.forEach((record, i) => {
      if (record.seq !== i + 1) {
        problems.push({
          file: SNAPSHOT_FILE,
          line: record.line,
          reason: `record ${i + 1} is numbered ${record.seq}`,
        });
      }
    });
    inspection.lastSeq = header.covers;
  }
  inspection.snapshot = snapshot as Inspection['snapshot'];

  const later = generations.filter((g) => g >= generation);
  if (later[0] !== generation) {
    problems.push({
      file: journalName(generation),
      reason: `is missing: ${SNAPSHOT_FILE} (generation ${generation}) is followed by its journal, which holds every change since`,
    });
    return inspection;
  }
  for (const [i, g] of later.entries()) {
    if (g !== generation + i) {
      problems.push({
        file: journalName(generation + i),
        reason: `is missing between ${journalName(later[i - 1]!)} and ${journalName(g)}`,
      });
      return inspection;
    }
    const journal = await readOne(dir, journalName(g));
    if (journal === undefined) continue; // removed meanwhile: readdir raced a running mock
    if (isProblem(journal)) {
      problems.push(journal);
      continue;
    }
    inspection.journals.push(journal);
  }
  checkJournals(inspection, options);
  return inspection;
}

/**
 * The journals of a directory already refused, read for `recover`: their own problems are added,
 * the checks across files are not (they need a sound snapshot).
 */
async function collectJournals(
  inspection: Inspection,
  dir: string,
  generations: number[],
): Promise<void> {
  for (const g of generations) {
    const journal = await readOne(dir, journalName(g));
    if (journal === undefined) continue;
    if (isProblem(journal)) {
      inspection.problems.push(journal);
      continue;
    }
    inspection.problems.push(...journal.problems);
    inspection.journals.push(journal);
  }
}

/** No snapshot: a new directory, unless journals show that one was there. */
async function inspectWithoutSnapshot(
  inspection: Inspection,
  dir: string,
  generations: number[],
  options: InspectOptions,
): Promise<Inspection> {
  if (generations.length === 0) {
    inspection.fresh = true;
    return inspection;
  }
  // A first start writes journal-1 and then its snapshot; if it died in between, journal-1 holds
  // its header alone and the start never served anything.
  if (generations.length === 1 && generations[0] === 1 && options.crashed) {
    const journal = await readOne(dir, journalName(1));
    if (
      journal !== undefined &&
      !isProblem(journal) &&
      journal.problems.length === 0 &&
      journal.version >= 2 &&
      journal.header.fresh === true &&
      journal.records.length === 0
    ) {
      inspection.fresh = true;
      return inspection;
    }
  }
  inspection.problems.push({
    file: SNAPSHOT_FILE,
    reason: `is missing, but ${journalName(generations.at(-1)!)} is there: the journals hold changes on top of it, and without it the state cannot be rebuilt`,
  });
  return inspection;
}

/** Headers, checksums and one unbroken sequence across the journals; a torn tail only at the end. */
function checkJournals(inspection: Inspection, options: InspectOptions): void {
  const { problems, journals, snapshot } = inspection;
  // Moving format 1 to format 2 starts a format-2 journal, then writes the snapshot: one that
  // died in between left that journal with nothing in it, to be replaced.
  const upgrade = journals.at(-1);
  if (inspection.version < 2 && journals.length > 1 && upgrade?.version === 2) {
    if (upgrade.records.length === 0 && upgrade.problems.length === 0) journals.pop();
  }
  let expected = inspection.lastSeq + 1;
  for (const [i, journal] of journals.entries()) {
    const last = i === journals.length - 1;
    const generation = inspection.generation + i;
    problems.push(...journal.problems);
    if (journal.version !== inspection.version) {
      problems.push({
        file: journal.name,
        line: 1,
        reason: `state format ${journal.version}, but ${SNAPSHOT_FILE} is format ${inspection.version}`,
      });
      continue;
    }
    if (Number(journal.header.generation) !== generation) {
      problems.push({
        file: journal.name,
        line: 1,
        reason: `says it is generation ${String(journal.header.generation)}`,
      });
    }
    if (journal.tornTail !== undefined) {
      if (last && options.crashed) {
        inspection.warnings.push(
          `${journal.name}: ignored ${journal.tornTail} (a write cut short by a crash, never acknowledged)`,
        );
      } else {
        problems.push({
          file: journal.name,
          line: journal.goodBytes === 0 ? 1 : undefined,
          reason: last
            ? `ends in ${journal.tornTail}, but the last mock stopped cleanly: the file was cut or damaged`
            : `ends in ${journal.tornTail}, and a later journal follows it`,
        });
      }
    }
    if (inspection.version < 2) continue;
    if (i === 0 && journal.header.snapshot !== snapshot?.header.id) {
      problems.push({
        file: journal.name,
        line: 1,
        reason: `belongs to another snapshot (${String(journal.header.snapshot)}, not ${String(snapshot?.header.id)}): the files are not of one state`,
      });
    }
    for (const record of journal.records) {
      if (record.seq !== expected) {
        problems.push({
          file: journal.name,
          line: record.line,
          reason:
            record.seq > expected
              ? `sequence gap: record ${record.seq} follows ${expected - 1}; records ${expected}-${record.seq - 1} are missing`
              : `record ${record.seq} is out of order (${expected} was next)`,
        });
      }
      expected = record.seq + 1;
    }
    if (last && !options.crashed && journal.records.at(-1)?.kind !== CLOSE_KIND) {
      problems.push({
        file: journal.name,
        reason:
          'does not end with the record of a clean stop, though the last mock stopped cleanly: its end was cut off',
      });
    }
  }
  inspection.lastSeq = expected - 1;
  if (journals.length > 0) inspection.generation += journals.length - 1;
}

/** The records to replay, in order: the snapshot's, then the journals'. */
export function replayRecords(inspection: Inspection): StateRecord[] {
  const all: StateRecord[] = [];
  for (const file of [inspection.snapshot, ...inspection.journals]) {
    for (const r of file?.records ?? []) if (r.kind !== CLOSE_KIND) all.push([r.kind, r.data]);
  }
  return all;
}

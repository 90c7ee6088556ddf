/**
 * The state directory's files, format 2 (docs/design.md 3.2): what they hold and how they are checked,
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
 *
 * This file holds the lines and one file read alone; inspection.ts checks a directory as a whole.
 */
import { createHash, randomBytes } from 'node:crypto';
import { isRecordKind } from './records.js';

export const STATE_FILE_FORMAT = 'ksctl-mock-state';
/** Raise when a record changes meaning; an older ksctl then refuses the files instead of misreading them. */
export const STATE_FORMAT_VERSION = 2;
/** The record a clean stop appends: the journal ends here, nothing was cut off. */
export const CLOSE_KIND = 'close';

export const SNAPSHOT_FILE = 'snapshot.jsonl';
const JOURNAL_FILE = /^journal-(\d+)\.jsonl$/;
export const journalName = (generation: number) => `journal-${generation}.jsonl`;
/** The generation a journal's file name says, or NaN for any other name. */
export const journalGeneration = (name: string) => Number(JOURNAL_FILE.exec(name)?.[1]);

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

/** The directory itself first, then the snapshot, then the journals by generation. */
function fileRank(file: string): number {
  if (file === SNAPSHOT_FILE) return 0;
  const generation = journalGeneration(file);
  return Number.isSafeInteger(generation) ? generation : -1;
}

/**
 * Problems in the order of the files and their lines; what is wrong with a whole file (its end,
 * say) after its lines.
 */
export function inFileOrder(problems: StateProblem[]): StateProblem[] {
  return problems.toSorted(
    (a, b) => fileRank(a.file) - fileRank(b.file) || (a.line ?? Infinity) - (b.line ?? Infinity),
  );
}

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
    if (typeof k !== 'string' || !(k === CLOSE_KIND || isRecordKind(k))) {
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
    if (typeof value?.k !== 'string' || !isRecordKind(value.k)) {
      problem(i + 1, `unknown state record ${JSON.stringify(value?.k)}`);
      continue;
    }
    file.records.push({ seq: i, kind: value.k, data: value.d, file: file.name, line: i + 1 });
  }
  return file;
}

/**
 * The state directory's files, format 4 (docs/design.md 3.2): what they hold and how they are checked,
 * so that damage is never taken for an empty or a shorter state.
 *
 * Every line (headers included) carries a checksum as its last member: the first 16 hex digits of
 * the SHA-256 of the line's JSON without it (`{…,"c":"0123456789abcdef"}`). It is checked on the
 * bytes as they are on disk, the member found at its fixed place at the end of the line. Records
 * carry a sequence number `s`: in a snapshot 1..N; in the journals one count across them all,
 * going on from the last record the snapshot covers. The snapshot's header names its generation,
 * a random id, the journal sequence number it covers and its record count; a journal's header
 * names its generation and the id of the snapshot of that generation (written after the journal
 * is created, so a journal may name a snapshot that a crash kept from being written). A clean stop
 * appends a `close` record; only a mock that died (its lock file left behind) may leave a torn
 * last line.
 *
 * Format 3 is format 2 with one more record kind, a marking with its values packed in columns
 * (`marking.packed`, mock/markings/packed.ts), which snapshots hold. In format 4 a record may keep
 * one member apart from its data, unparsed: `{"s":S,"k":K,"vn":N,"d":D,"v":V,"c":…}`, V the N
 * bytes before the checksum member. Its line is checked whole like any other, but only up to V is
 * parsed; V is kept as the bytes read, for the model to parse when it needs them (a snapshot's
 * packed columns, read when their marking is first used). Formats 1 (no checksums, no sequence
 * numbers) to 3 are still read; the first start on any of them writes format 4.
 *
 * This file holds the lines and one file read alone; inspection.ts checks a directory as a whole.
 */
import { createHash, randomBytes } from 'node:crypto';
import { isRecordKind } from './records.js';

export const STATE_FILE_FORMAT = 'ksctl-mock-state';
/** Raise when a record changes meaning; an older ksctl then refuses the files instead of misreading them. */
export const STATE_FORMAT_VERSION = 4;
/** The record a clean stop appends: the journal ends here, nothing was cut off. */
export const CLOSE_KIND = 'close';

export const SNAPSHOT_FILE = 'snapshot.jsonl';
const JOURNAL_FILE = /^journal-(\d+)\.jsonl$/;
export const journalName = (generation: number) => `journal-${generation}.jsonl`;
/** The generation a journal's file name says, or NaN for any other name. */
export const journalGeneration = (name: string) => Number(JOURNAL_FILE.exec(name)?.[1]);

/** A line ends with its checksum member: `,"c":"` (6 bytes), 16 hex digits, `"}` (2 bytes). */
const CHECK_HEAD = Buffer.from(',"c":"');
const CHECK_BYTES = CHECK_HEAD.length + 16 + 2;
const CLOSE_BRACE = Buffer.from('}');
const QUOTE = 0x22;
const BRACE = 0x7d;

function checksum(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);
}

/** The JSON object `body`, its checksum added as the last member, and a newline. */
function sealed(body: string): string {
  return `${body.slice(0, -1)},"c":"${checksum(body)}"}\n`;
}

const sealedLine = (members: Record<string, unknown>) => sealed(JSON.stringify(members));

type Opened =
  { ok: true; value: Record<string, unknown>; kept?: Buffer } | { ok: false; reason: string };

/** The checksum of bytes[start, at) with the closing brace after them: the line without it. */
function bodyChecksum(bytes: Buffer, start: number, at: number): string {
  return createHash('sha256')
    .update(bytes.subarray(start, at))
    .update(CLOSE_BRACE)
    .digest('hex')
    .slice(0, 16);
}

const isLowerHex = (byte: number) =>
  (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66);

/**
 * Whether bytes[start, end) ends with a checksum member, checked at its fixed place: no copy of
 * the line is made to find it.
 */
function hasChecksum(bytes: Buffer, start: number, end: number): boolean {
  const at = end - CHECK_BYTES;
  if (at <= start) return false;
  if (bytes[end - 1] !== BRACE || bytes[end - 2] !== QUOTE) return false;
  // Byte by byte: Buffer#compare costs more than the six bytes it would compare.
  for (let i = 0; i < CHECK_HEAD.length; i++) if (bytes[at + i] !== CHECK_HEAD[i]) return false;
  for (let i = at + CHECK_HEAD.length; i < end - 2; i++) if (!isLowerHex(bytes[i]!)) return false;
  return true;
}

/**
 * The members of the line bytes[start, end) once its checksum is verified, or what is wrong with
 * it. The checksum is taken over the bytes as they are (the line's JSON up to its checksum
 * member, then the closing brace), never over a string made again from them.
 */
function openLine(bytes: Buffer, start: number, end: number): Opened {
  if (!hasChecksum(bytes, start, end)) {
    return { ok: false, reason: 'the line has no checksum (damaged or not a state line)' };
  }
  const at = end - CHECK_BYTES;
  if (
    bytes.toString('latin1', at + CHECK_HEAD.length, end - 2) !== bodyChecksum(bytes, start, at)
  ) {
    return { ok: false, reason: 'the checksum does not match: the line was changed or damaged' };
  }
  const keeps = keptLayout(bytes, start, at);
  if (keeps !== undefined) return openKept(bytes, keeps, at);
  try {
    // The whole line: its checksum member is one more string member, dropped by the callers.
    const value: unknown = JSON.parse(bytes.toString('utf8', start, end));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return { ok: true, value: value as Record<string, unknown> };
    }
  } catch {
    // falls through
  }
  return { ok: false, reason: 'not a state record' };
}

const SEQ_HEAD = Buffer.from('{"s":');
const KIND_HEAD = Buffer.from(',"k":"');
const KEPT_COUNT = Buffer.from('","vn":');
const DATA_HEAD = Buffer.from(',"d":');
const KEPT_HEAD = Buffer.from(',"v":');

function startsWith(bytes: Buffer, at: number, head: Buffer): boolean {
  for (let i = 0; i < head.length; i++) if (bytes[at + i] !== head[i]) return false;
  return true;
}

/** Where the digits from `at` end (at itself: none). */
function digitsEnd(bytes: Buffer, at: number, end: number): number {
  let i = at;
  while (i < end && bytes[i]! >= 0x30 && bytes[i]! <= 0x39) i++;
  return i;
}

interface KeptLayout {
  seq: number;
  kind: string;
  dataStart: number;
  keptStart: number;
}

/**
 * The members of a line that keeps one apart (`{"s":S,"k":K,"vn":N,"d":D,"v":V`, V the N bytes
 * before the checksum member at `at`), read from its bytes; undefined for any other line.
 */
function keptLayout(bytes: Buffer, start: number, at: number): KeptLayout | undefined {
  if (!startsWith(bytes, start, SEQ_HEAD)) return undefined;
  const seqStart = start + SEQ_HEAD.length;
  const seqEnd = digitsEnd(bytes, seqStart, at);
  if (seqEnd === seqStart || !startsWith(bytes, seqEnd, KIND_HEAD)) return undefined;
  const kindStart = seqEnd + KIND_HEAD.length;
  const kindEnd = bytes.indexOf(QUOTE, kindStart);
  if (kindEnd === -1 || kindEnd >= at || !startsWith(bytes, kindEnd, KEPT_COUNT)) return undefined;
  const countStart = kindEnd + KEPT_COUNT.length;
  const countEnd = digitsEnd(bytes, countStart, at);
  if (countEnd === countStart || !startsWith(bytes, countEnd, DATA_HEAD)) return undefined;
  return {
    seq: Number(bytes.toString('latin1', seqStart, seqEnd)),
    kind: bytes.toString('latin1', kindStart, kindEnd),
    dataStart: countEnd + DATA_HEAD.length,
    keptStart: at - Number(bytes.toString('latin1', countStart, countEnd)),
  };
}

/** A line that keeps a member apart: its data parsed, the member kept as the bytes read. */
function openKept(bytes: Buffer, layout: KeptLayout, at: number): Opened {
  const { seq, kind, dataStart, keptStart } = layout;
  const dataEnd = keptStart - KEPT_HEAD.length;
  if (dataEnd <= dataStart || !startsWith(bytes, dataEnd, KEPT_HEAD)) {
    return { ok: false, reason: 'not a state record (its kept member is not where it says)' };
  }
  try {
    const data: unknown = JSON.parse(bytes.toString('utf8', dataStart, dataEnd));
    return { ok: true, value: { s: seq, k: kind, d: data }, kept: bytes.subarray(keptStart, at) };
  } catch {
    return { ok: false, reason: 'not a state record' };
  }
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

/**
 * A record's line; `kept`, when given, is kept apart from its data (read back unparsed): bytes of
 * JSON are written as they are, anything else as its JSON.
 */
export function recordLine(seq: number, kind: string, data: unknown, kept?: unknown): string {
  if (kept === undefined) return sealedLine({ s: seq, k: kind, d: data });
  const text = Buffer.isBuffer(kept) ? kept.toString('utf8') : JSON.stringify(kept);
  const head = `{"s":${seq},"k":${JSON.stringify(kind)},"vn":${Buffer.byteLength(text)}`;
  return sealed(`${head},"d":${JSON.stringify(data)},"v":${text}}`);
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
  /** What the record keeps apart from its data: the bytes read, unparsed. */
  kept?: Buffer;
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
 * Reads one state file of any format, as the bytes on disk. Every line is checked; what is wrong
 * goes into `problems` (the records that verify are kept, for `recover`).
 */
export function readStateFile(bytes: Buffer, name: string): ReadFile {
  const lastNewline = bytes.lastIndexOf(0x0a);
  const file: ReadFile = {
    name,
    version: 0,
    header: {},
    records: [],
    problems: [],
    goodBytes: lastNewline + 1,
  };
  const problem = (line: number | undefined, reason: string) =>
    file.problems.push({ file: name, ...(line === undefined ? {} : { line }), reason });
  if (bytes.length === 0) {
    problem(undefined, 'the file is empty');
    return file;
  }
  const wholeLines = countNewlines(bytes);
  if (lastNewline + 1 < bytes.length) {
    // A whole record whose newline is missing is damage, not a write cut short.
    if (openLine(bytes, lastNewline + 1, bytes.length).ok) {
      problem(wholeLines + 1, 'the last record is whole but its end of line is missing or damaged');
    } else {
      file.tornTail = 'an incomplete last line';
    }
  }
  if (wholeLines === 0) {
    problem(1, 'the header line is incomplete');
    return file;
  }
  const headerEnd = bytes.indexOf(0x0a);
  // The version first: a newer format may check its lines another way.
  const version = headerVersion(bytes.toString('utf8', 0, headerEnd));
  if (version === 1) {
    const text = bytes.toString('utf8', 0, lastNewline + 1);
    return readVersion1(file, text.split('\n').slice(0, -1), problem);
  }
  if (version !== undefined && version > STATE_FORMAT_VERSION) {
    file.version = version;
    problem(
      1,
      `written by a newer ksctl (state format ${version}; this ksctl reads formats 1 to ${STATE_FORMAT_VERSION})`,
    );
    return file;
  }
  const header = openLine(bytes, 0, headerEnd);
  if (!header.ok || header.value.format !== STATE_FILE_FORMAT) {
    problem(1, header.ok ? 'not a ksctl mock state file' : `header: ${header.reason}`);
    return file;
  }
  const { c: _checksum, ...headerMembers } = header.value;
  file.version = Number(header.value.version);
  file.header = headerMembers;
  let line = 1;
  for (let start = headerEnd + 1; start <= lastNewline;) {
    const end = bytes.indexOf(0x0a, start);
    line++;
    const opened = openLine(bytes, start, end);
    start = end + 1;
    if (!opened.ok) {
      problem(line, opened.reason);
      continue;
    }
    const { s, k, d } = opened.value;
    if (typeof k !== 'string' || !(k === CLOSE_KIND || isRecordKind(k))) {
      problem(line, `unknown state record ${JSON.stringify(k)}`);
      continue;
    }
    if (!Number.isSafeInteger(s)) {
      problem(line, 'the record has no sequence number');
      continue;
    }
    const record: SeqRecord = { seq: s as number, kind: k, data: d, file: name, line };
    if (opened.kept !== undefined) record.kept = opened.kept;
    file.records.push(record);
  }
  return file;
}

function countNewlines(bytes: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) count++;
  return count;
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

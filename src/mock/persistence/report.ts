/**
 * What `ksctl mock state check` and `recover` tell (docs/design.md 3.2), in one set of units so the
 * two agree: a *record* is a line after a file's header that verifies and holds a change (a clean
 * stop's mark is counted apart); a *problem* is one thing wrong, naming its file and line. Every
 * state file in the directory is listed, read or not.
 */
import {
  CLOSE_KIND,
  inFileOrder,
  journalGeneration,
  type ReadFile,
  SNAPSHOT_FILE,
  type StateProblem,
} from './integrity.js';
import type { Inspection } from './inspection.js';

/** One state file as the check saw it. */
export interface StateFileSummary {
  file: string;
  role: 'snapshot' | 'journal';
  /** Read and checked line by line; false: only named (see `note`). */
  read: boolean;
  format?: number;
  generation?: number;
  /** Records that verify (clean stops not counted). */
  records: number;
  /** The marks a clean stop leaves in a journal. */
  cleanStops: number;
  /** Lines after the header that do not verify (each is a problem). */
  damagedLines: number;
  /** The sequence numbers of what verifies, first and last (formats 2 and 3). */
  sequence?: { first: number; last: number };
  /** A snapshot: the last journal record it holds (formats 2 and 3). */
  covers?: number;
  /** A journal: its last line is a clean stop. */
  endsWithCleanStop?: boolean;
  /** Why a file was not read. */
  note?: string;
}

export interface StateLockReport {
  /** The pid the lock file names, when it names one. */
  pid: number | null;
  /** A mock runs on the directory now; false: the last one died (its lock file is left). */
  running: boolean;
}

export interface StateReport {
  dir: string;
  /** whole: a mock starts from it as it is; new: nothing stored yet; damaged: a mock refuses it. */
  verdict: 'whole' | 'new' | 'damaged';
  lock: StateLockReport | null;
  files: StateFileSummary[];
  problems: StateProblem[];
  /** What was forgiven (a write a crash cut short). */
  warnings: string[];
  counts: { files: number; records: number; problems: number };
}

function summaryOf(file: ReadFile): StateFileSummary {
  const role = file.name === SNAPSHOT_FILE ? 'snapshot' : 'journal';
  const changes = file.records.filter((r) => r.kind !== CLOSE_KIND);
  const summary: StateFileSummary = {
    file: file.name,
    role,
    read: true,
    format: file.version,
    records: changes.length,
    cleanStops: file.records.length - changes.length,
    damagedLines: file.problems.filter((p) => p.line !== undefined).length,
  };
  const generation = Number(file.header.generation);
  if (Number.isSafeInteger(generation)) summary.generation = generation;
  if (file.version >= 2 && file.records.length > 0) {
    summary.sequence = { first: file.records[0]!.seq, last: file.records.at(-1)!.seq };
  }
  if (role === 'snapshot' && file.version >= 2 && Number.isSafeInteger(file.header.covers)) {
    summary.covers = file.header.covers as number;
  }
  if (role === 'journal') summary.endsWithCleanStop = file.records.at(-1)?.kind === CLOSE_KIND;
  return summary;
}

/** Why a file present in the directory was not read. */
function noteFor(name: string, inspection: Inspection): string {
  const own = inspection.problems.find((p) => p.file === name && p.line === undefined);
  if (own !== undefined) return own.reason;
  const generation = journalGeneration(name);
  const snapshotGeneration = Number(inspection.snapshot?.header.generation);
  if (generation < snapshotGeneration) {
    return 'older than the snapshot, which holds its records (a crash kept it from being removed)';
  }
  return 'not read';
}

/** The report of a checked directory; `lock` is who holds its lock file, if anyone. */
export function stateReport(
  inspection: Inspection,
  lock: { pid: number | undefined; live: boolean } | undefined,
): StateReport {
  const read = new Map<string, ReadFile>();
  for (const file of [inspection.snapshot, ...inspection.journals]) {
    if (file !== undefined) read.set(file.name, file);
  }
  const files = inspection.present.map((name): StateFileSummary => {
    const file = read.get(name);
    if (file !== undefined) return summaryOf(file);
    return {
      file: name,
      role: name === SNAPSHOT_FILE ? 'snapshot' : 'journal',
      read: false,
      records: 0,
      cleanStops: 0,
      damagedLines: 0,
      note: noteFor(name, inspection),
    };
  });
  const damaged = inspection.problems.length > 0;
  return {
    dir: inspection.dir,
    verdict: damaged ? 'damaged' : inspection.fresh ? 'new' : 'whole',
    lock: lock === undefined ? null : { pid: lock.pid ?? null, running: lock.live },
    files,
    problems: inFileOrder(inspection.problems),
    warnings: inspection.warnings,
    counts: {
      files: files.length,
      records: files.reduce((sum, f) => sum + f.records, 0),
      problems: inspection.problems.length,
    },
  };
}

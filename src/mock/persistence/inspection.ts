/**
 * A state directory checked as a whole (docs/design.md 3.2), without changing anything: the
 * snapshot, the journals of its generation and later, their headers, checksums and one unbroken
 * sequence of records; then the records to replay. The line format is integrity.ts.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode, fileReason } from '../../common/files/fs-errors.js';
import {
  CLOSE_KIND,
  journalGeneration,
  journalName,
  type ReadFile,
  readStateFile,
  type SeqRecord,
  SNAPSHOT_FILE,
  type SnapshotHeader,
  STATE_FORMAT_VERSION,
  type StateProblem,
} from './integrity.js';

/** What a state directory holds, checked as a whole. */
export interface Inspection {
  dir: string;
  /** The state files found in the directory (snapshot first, then journals by generation). */
  present: string[];
  /** Nothing to restore: a new directory (or a first start that died before its snapshot). */
  fresh: boolean;
  version: number;
  snapshot?: ReadFile & { header: SnapshotHeader & Record<string, unknown> };
  /** The journals the snapshot's generation and later, oldest first. */
  journals: ReadFile[];
  generation: number;
  /** The last journal sequence number read (formats 2 and 3). */
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
  let bytes: Buffer;
  try {
    bytes = await readFile(join(dir, name));
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    return { file: name, reason: `cannot be read: ${fileReason(error)}` };
  }
  return readStateFile(bytes, name);
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
    present: [],
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
    .map(journalGeneration)
    .filter((g) => Number.isSafeInteger(g))
    .sort((a, b) => a - b);
  inspection.present = [
    ...(names.includes(SNAPSHOT_FILE) ? [SNAPSHOT_FILE] : []),
    ...generations.map(journalName),
  ];

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
    // What verifies in the later journals is there for `recover`.
    await collectJournals(inspection, dir, later);
    return inspection;
  }
  for (const [i, g] of later.entries()) {
    if (g !== generation + i) {
      problems.push({
        file: journalName(generation + i),
        reason: `is missing between ${journalName(later[i - 1]!)} and ${journalName(g)}`,
      });
      // Refused: each file's own problems are told, and what verifies is there for `recover`.
      for (const journal of inspection.journals) problems.push(...journal.problems);
      await collectJournals(inspection, dir, later.slice(i));
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
  // its header alone (or nothing, killed before it wrote even that) and the start never served
  // anything.
  if (generations.length === 1 && generations[0] === 1 && options.crashed) {
    const size = await stat(join(dir, journalName(1))).then(
      (info) => info.size,
      () => undefined,
    );
    if (size === 0) {
      inspection.fresh = true;
      return inspection;
    }
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
  // Moving an older format to a later one starts a journal of the later format, then writes the
  // snapshot: one that died in between (this ksctl, or an older one moving format 1 to 2) left
  // that journal with nothing in it, to be replaced.
  const upgrade = journals.at(-1);
  if (journals.length > 1 && upgrade !== undefined && upgrade.version > inspection.version) {
    if (upgrade.records.length === 0 && upgrade.problems.length === 0) journals.pop();
  }
  let expected = inspection.lastSeq + 1;
  // Lines since the last record that did not verify: the records they held are missing from the
  // sequence, but each is told already as the damaged line it is, not again as a gap.
  let damagedSince = 0;
  for (const [i, journal] of journals.entries()) {
    const last = i === journals.length - 1;
    const generation = inspection.generation + i;
    problems.push(...journal.problems);
    // No header that reads (an empty file, say): its own problem says so, nothing more to check.
    if (journal.version === 0) continue;
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
    const damagedLines = journal.problems.flatMap((p) => (p.line === undefined ? [] : [p.line]));
    const damagedBetween = (after: number, before: number) =>
      damagedLines.filter((line) => line > after && line < before).length;
    let previousLine = 1;
    for (const record of journal.records) {
      damagedSince += damagedBetween(previousLine, record.line);
      previousLine = record.line;
      if (record.seq > expected + damagedSince) {
        const first = expected + damagedSince;
        const missing =
          record.seq - 1 === first
            ? `record ${first} is`
            : `records ${first}-${record.seq - 1} are`;
        problems.push({
          file: journal.name,
          line: record.line,
          reason: `sequence gap: ${missing} missing before record ${record.seq}`,
        });
      } else if (record.seq < expected) {
        problems.push({
          file: journal.name,
          line: record.line,
          reason: `record ${record.seq} is out of order (${expected} was next)`,
        });
      }
      expected = record.seq + 1;
      damagedSince = 0;
    }
    damagedSince += damagedBetween(previousLine, Number.POSITIVE_INFINITY);
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

/** The records that hold a change, in order: the snapshot's, then the journals'. */
export function* changeRecords(inspection: Inspection): Generator<SeqRecord> {
  for (const file of [inspection.snapshot, ...inspection.journals]) {
    for (const record of file?.records ?? []) if (record.kind !== CLOSE_KIND) yield record;
  }
}

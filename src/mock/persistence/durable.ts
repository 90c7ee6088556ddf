/**
 * `ksctl mock serve --state DIR` (docs/design.md 3.2): the state survives a restart, and kill -9.
 *
 * DIR holds `lock` (the live mock's pid), `snapshot.jsonl` (the whole state at some point, with a
 * generation number G) and `journal-G.jsonl` (every change since, appended as it happens; see
 * journal.ts, and integrity.ts for what the lines hold and how they are checked). Start-up checks
 * the whole directory first and refuses it, changing nothing, when anything is missing, damaged
 * or out of sequence; then it replays the snapshot and the journals of generation G and later.
 * Once the journal has grown past a bound it is compacted: a new journal is started and, in the
 * same synchronous step, the state is copied; the copy is written as the next snapshot (temp
 * file, fsync, rename) in the background, and only then are the older journals removed.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InputError } from '../../common/errors.js';
import { ensureDirectory } from '../../common/files/directories.js';
import { errnoCode, fileReason } from '../../common/files/fs-errors.js';
import {
  CLOSE_KIND,
  inFileOrder,
  journalGeneration,
  journalHeaderLine,
  journalName,
  newSnapshotId,
  problemText,
  recordLine,
  type SeqRecord,
  SNAPSHOT_FILE,
  STATE_FORMAT_VERSION,
  type StateProblem,
} from './integrity.js';
import { type Inspection, inspectStateDir } from './inspection.js';
import { JournalFile } from './journal.js';
import { lockStateDirectory, type StateLock } from './state-lock.js';
import type { DurableModel } from './records.js';
import { writeSnapshot } from './snapshot.js';

/**
 * A journal is compacted once it is larger than the snapshot (so a restart reads at most about
 * twice the state, whatever its history) and larger than this.
 */
export const COMPACT_AFTER_BYTES = 16 * 1024 * 1024;

const RECOVER_HINT =
  '`ksctl mock state recover DIR --to NEW` copies every record that verifies into a new directory';
const REPAIR_HINT = `nothing was changed; \`ksctl mock state check DIR\` lists every problem, and ${RECOVER_HINT}`;

export interface DurableOptions {
  dir: string;
  /** Journal bytes below which it is never compacted (COMPACT_AFTER_BYTES). */
  compactAfterBytes?: number;
  /** Told about what start-up forgave (a torn last line after a crash). */
  warn?: (message: string) => void;
}

/**
 * The refusal of a damaged directory: the first problem in the message, all of them as details.
 * `checked`: said by `mock state check`, which has just listed the problems, so the hint names
 * only the way out.
 */
export function damagedStateError(dir: string, found: StateProblem[], checked = false): InputError {
  const problems = inFileOrder(found);
  const [first] = problems;
  return new InputError(`the state in ${dir} cannot be used: ${problemText(first!)}`, {
    hint: checked ? RECOVER_HINT : REPAIR_HINT,
    // One problem is the message; more are each a detail line.
    details:
      problems.length === 1
        ? []
        : problems.map((p) => ({
            path: `${p.file}${p.line === undefined ? '' : `:${p.line}`}`,
            message: p.reason,
          })),
  });
}

/**
 * The state directory of one running mock: the lock, the journal every change is appended to, and
 * the snapshots. It knows the model only as records (DurableModel); mock/durable-state.ts wires
 * the mock's state to it.
 */
export class StateDirectory {
  private model: DurableModel | undefined;
  private journal: JournalFile | undefined;
  /** The journal being closed by a compaction; requests may still wait for it. */
  private retiring: JournalFile | undefined;
  private compacting: Promise<void> | undefined;
  private compactAt: number;
  private generation: number;
  /** The sequence number of the last record journaled. */
  private seq: number;

  /** Nothing was on disk: the caller loads defaults and seed before attach(). */
  readonly fresh: boolean;
  /** What was read from the directory, until attach() applies it: every record, let go then. */
  private inspection: Inspection | undefined;

  private constructor(
    readonly dir: string,
    private readonly lock: StateLock,
    inspection: Inspection,
    private readonly options: DurableOptions,
  ) {
    this.inspection = inspection;
    this.fresh = inspection.fresh;
    this.generation = inspection.generation;
    this.seq = inspection.lastSeq;
    this.compactAt = this.compactionBound(inspection.snapshot?.goodBytes ?? 0);
  }

  /**
   * Takes the directory (creating it) and checks what is in it; nothing is applied yet. A
   * damaged directory is refused (exit 3) with every file left as it was.
   */
  static async open(options: DurableOptions): Promise<StateDirectory> {
    const dir = resolve(options.dir);
    const existing = await stat(dir).catch(() => undefined);
    if (existing !== undefined && !existing.isDirectory()) {
      throw new InputError(`the state directory ${dir} is a file, not a directory`, {
        hint: 'name a directory (it is created when missing)',
      });
    }
    // Not Node's recursive mkdir: it spins forever on some paths (/proc/newdir).
    await ensureDirectory(dir, 0o700);
    const lock = await lockStateDirectory(dir);
    if (lock.staleHolder !== undefined) {
      const { pid, reason } = lock.staleHolder;
      options.warn?.(
        `took over the lock of ${dir} from a mock that is not running${pid === undefined ? '' : ` (pid ${pid}: ${reason})`}`,
      );
    }
    try {
      const inspection = await inspectStateDir(dir, { crashed: lock.tookOver });
      if (inspection.problems.length > 0) throw damagedStateError(dir, inspection.problems);
      return new StateDirectory(dir, lock, inspection, options);
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /**
   * A fresh directory gets the model as it is as its first snapshot; otherwise the model is
   * rebuilt from the files. From then on every change is journaled.
   */
  async attach(model: DurableModel): Promise<void> {
    this.model = model;
    const inspection = this.inspection;
    if (inspection === undefined) throw new Error('the state is attached already');
    this.inspection = undefined;
    if (inspection.fresh) {
      // Its journal first: a snapshot is never on disk without the journal that follows it. A
      // journal-1 left by a first start that died before its snapshot holds nothing: replaced.
      try {
        await this.startGeneration(1, { fresh: true });
      } catch (error) {
        // The journal this start made holds nothing: gone again, the directory stays new.
        await this.journal?.close().catch(() => undefined);
        this.journal = undefined;
        await rm(join(this.dir, journalName(1)), { force: true }).catch(() => undefined);
        throw error;
      }
      this.listen(model);
      await removeUnfinishedSnapshots(this.dir);
      return;
    }
    for (const file of [inspection.snapshot!, ...inspection.journals]) {
      for (const warning of inspection.warnings) {
        if (warning.startsWith(`${file.name}:`)) this.options.warn?.(warning);
      }
      const path = join(this.dir, file.name);
      for (const record of file.records) this.replay(model, record, path);
    }
    if (inspection.version < STATE_FORMAT_VERSION) {
      // Files of an older format are read, never appended to: the state starts over in this one.
      await this.startGeneration(inspection.generation + 1, { replace: true });
      this.listen(model);
    } else {
      const last = inspection.journals.at(-1)!;
      this.journal = await JournalFile.open(join(this.dir, last.name), {
        goodBytes: last.goodBytes,
      });
      this.listen(model);
      // Older journals are in the snapshot (a crash came before they were removed).
      await removeJournals(this.dir, inspection.snapshot!.header.generation);
    }
    await removeUnfinishedSnapshots(this.dir);
  }

  /** Resolves once every change made so far is on disk; rejects when it could not be written. */
  async sync(): Promise<void> {
    await Promise.all([this.retiring?.sync(), this.journal?.sync()]);
  }

  /** Writes the state as a new snapshot and drops the journal before it. */
  compact(): Promise<void> {
    this.compacting ??= this.runCompaction().finally(() => (this.compacting = undefined));
    return this.compacting;
  }

  /**
   * Flushes, marks the journal as stopped cleanly and gives the directory up. When the mark
   * cannot be written the lock file stays, so the next start knows this one did not end cleanly.
   */
  async close(): Promise<void> {
    this.model?.listen(undefined);
    let stoppedCleanly = false;
    try {
      await this.compacting?.catch(() => undefined);
      if (this.journal) {
        this.journal.append(recordLine(++this.seq, CLOSE_KIND, null));
        await this.journal.close();
        stoppedCleanly = true;
      }
    } finally {
      if (stoppedCleanly || !this.journal) await this.lock.release();
    }
  }

  /** Applies one record; `path`: its file's. */
  private replay(model: DurableModel, record: SeqRecord, path: string): void {
    const { kind, data, kept, line } = record;
    if (kind === CLOSE_KIND) return;
    try {
      model.apply(kind, data, kept && { bytes: kept, file: path, line });
    } catch (error) {
      throw new InputError(
        `${path}:${line}: the record (${kind}) cannot be applied: ${(error as Error).message}`,
        { hint: REPAIR_HINT },
      );
    }
  }

  private listen(model: DurableModel): void {
    model.listen((kind, data) => {
      this.journal!.append(recordLine(++this.seq, kind, data));
      if (this.journal!.size >= this.compactAt && !this.compacting) {
        this.compact().catch((error: unknown) => {
          this.compactAt = this.journal!.size + this.compactionBound(0);
          this.options.warn?.(`compacting the state failed: ${fileReason(error)}`);
        });
      }
    });
  }

  /**
   * A new generation for the whole state as it is now: its journal (naming the snapshot to
   * come), then, with the state copied in the same synchronous step, the snapshot. Only once the
   * snapshot is durable are the journals before it removed.
   */
  private async startGeneration(
    generation: number,
    options: { fresh?: boolean; replace?: boolean },
  ): Promise<void> {
    const id = newSnapshotId();
    const next = await JournalFile.open(join(this.dir, journalName(generation)), {
      header: journalHeaderLine({
        generation,
        snapshot: id,
        ...(options.fresh ? { fresh: true } : {}),
      }),
      // Only over a journal that holds nothing (integrity.ts says when one may be there).
      replace: options.fresh === true || options.replace === true,
    });
    // One synchronous step: the copy holds exactly the records numbered up to `covers`.
    const records = [...this.model!.records()];
    const covers = this.seq;
    const old = this.journal;
    this.journal = next;
    this.generation = generation;
    if (old) {
      this.retiring = old;
      const closing = old.close();
      next.after(closing);
      try {
        await closing;
      } catch {
        // Its waiters have been told; the snapshot below holds what it could not write.
      } finally {
        this.retiring = undefined;
      }
    }
    const bytes = await writeSnapshot(
      join(this.dir, SNAPSHOT_FILE),
      { generation, id, covers },
      records,
    );
    this.compactAt = this.compactionBound(bytes);
    await removeJournals(this.dir, generation);
  }

  private runCompaction(): Promise<void> {
    return this.startGeneration(this.generation + 1, {});
  }

  private compactionBound(snapshotBytes: number): number {
    return Math.max(snapshotBytes, this.options.compactAfterBytes ?? COMPACT_AFTER_BYTES);
  }
}

/** A snapshot being written when the mock died is left as a temporary file: never read, removed. */
async function removeUnfinishedSnapshots(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (name.startsWith(`.${SNAPSHOT_FILE}.`) && name.endsWith('.tmp')) {
      await rm(join(dir, name), { force: true });
    }
  }
}

/** Removes the journals older than `before` (a durable snapshot holds what they held). */
async function removeJournals(dir: string, before: number): Promise<void> {
  for (const name of await readdir(dir)) {
    const generation = journalGeneration(name);
    if (generation < before) {
      await rm(join(dir, name), { force: true }).catch((error: unknown) => {
        if (errnoCode(error) !== 'ENOENT') throw error;
      });
    }
  }
}

/**
 * `ksctl mock serve --state DIR` (docs/design.md 3.2): the state survives a restart, and kill -9.
 *
 * DIR holds `lock` (the live mock's pid), `snapshot.jsonl` (the whole state at some point, with a
 * generation number G) and `journal-G.jsonl` (every change since, appended as it happens; see
 * journal.ts and records.ts). Start-up replays the snapshot, then the journals of generation G
 * and later. Once the journal has grown past a bound it is compacted: a new journal is started and,
 * in the same synchronous step, the state is copied; the copy is written as the next snapshot
 * (temp file, fsync, rename) in the background, and the older journals are removed.
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InputError } from '../../errors.js';
import { ensureDirectory } from '../../files/directories.js';
import { errnoCode, fileError } from '../../files/fs-errors.js';
import { JournalFile, parseStateFile, recordLine, type StateFile } from './journal.js';
import { lockStateDirectory, type StateLock } from './state-lock.js';
import { RECORD_KINDS, stateRecords } from './records.js';
import { readSnapshot, writeSnapshot } from './snapshot.js';
import type { MockState } from '../state.js';
import { fileReason } from '../../files/fs-errors.js';

/**
 * A journal is compacted once it is larger than the snapshot (so a restart reads at most about
 * twice the state, whatever its history) and larger than this.
 */
export const COMPACT_AFTER_BYTES = 16 * 1024 * 1024;

const SNAPSHOT_FILE = 'snapshot.jsonl';
const JOURNAL_FILE = /^journal-(\d+)\.jsonl$/;
const journalName = (generation: number) => `journal-${generation}.jsonl`;

export interface DurableOptions {
  dir: string;
  /** Journal bytes below which it is never compacted (COMPACT_AFTER_BYTES). */
  compactAfterBytes?: number;
  /** Told about what start-up forgave (a torn last line). */
  warn?: (message: string) => void;
}

interface JournalOnDisk {
  generation: number;
  path: string;
  file: StateFile;
}

export class DurableState {
  private state: MockState | undefined;
  private journal: JournalFile | undefined;
  /** The journal being closed by a compaction; requests may still wait for it. */
  private retiring: JournalFile | undefined;
  private compacting: Promise<void> | undefined;
  private compactAt: number;
  private keyServerPem: string | undefined;
  private generation: number;

  private constructor(
    readonly dir: string,
    private readonly lock: StateLock,
    private readonly snapshot: StateFile | undefined,
    private readonly journals: JournalOnDisk[],
    private readonly options: DurableOptions,
  ) {
    this.generation = snapshot?.generation ?? 1;
    this.compactAt = this.compactionBound(snapshot?.goodBytes ?? 0);
  }

  /** Takes the directory (creating it) and reads what is in it; nothing is applied yet. */
  static async open(options: DurableOptions): Promise<DurableState> {
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
    try {
      await removeUnfinishedSnapshots(dir);
      const snapshot = await readSnapshot(join(dir, SNAPSHOT_FILE));
      const journals = snapshot ? await readJournals(dir, snapshot.generation) : [];
      return new DurableState(dir, lock, snapshot, journals, options);
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** Nothing was on disk: the caller loads defaults and seed before attach(). */
  get fresh(): boolean {
    return this.snapshot === undefined;
  }

  /**
   * A fresh directory gets the state as it is as its first snapshot; otherwise the state is
   * rebuilt from the files. From then on every change is journaled.
   */
  async attach(state: MockState): Promise<void> {
    this.state = state;
    if (!this.snapshot) {
      // Journals without a snapshot are left from a first start that died before serving.
      await removeJournals(this.dir, Number.POSITIVE_INFINITY);
      this.journal = await JournalFile.open(join(this.dir, journalName(1)), 1);
      const records = [...stateRecords(state, undefined)];
      this.listen(state);
      this.compactAt = this.compactionBound(
        await writeSnapshot(join(this.dir, SNAPSHOT_FILE), 1, records),
      );
      return;
    }
    this.replay(state, SNAPSHOT_FILE, this.snapshot);
    for (const j of this.journals) {
      if (j.file.tornTail !== undefined) {
        this.options.warn?.(
          `${journalName(j.generation)}: ignored ${j.file.tornTail} (a write cut short by a crash, never acknowledged)`,
        );
      }
      this.replay(state, journalName(j.generation), j.file);
    }
    if (this.keyServerPem !== undefined) await state.enrollment.keyServer();
    const last = this.journals.at(-1);
    this.generation = last?.generation ?? this.generation;
    this.journal = await JournalFile.open(
      join(this.dir, journalName(this.generation)),
      this.generation,
      last?.file.goodBytes,
    );
    this.listen(state);
    await removeJournals(this.dir, this.snapshot.generation);
    // This run's ids must differ from every earlier run's.
    state.changes.record('idPart', state.ids.processPart);
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

  /** Flushes, stops journaling and gives the directory up. */
  async close(): Promise<void> {
    this.state?.changes.listen(undefined);
    try {
      await this.compacting?.catch(() => undefined);
      await this.journal?.close();
    } finally {
      await this.lock.release();
    }
  }

  private replay(state: MockState, name: string, file: StateFile): void {
    file.records.forEach(([kind, data], i) => {
      if (kind === 'keyServerKey') this.keyServerPem = data as string;
      try {
        RECORD_KINDS[kind]!(state, data as never);
      } catch (error) {
        throw new InputError(
          `${name}: record ${i + 1} (${kind}) cannot be applied: ${(error as Error).message}`,
          { hint: 'start with another --state directory, or restore this one from a backup' },
        );
      }
    });
  }

  private listen(state: MockState): void {
    state.changes.listen((kind, data) => {
      if (kind === 'keyServerKey') this.keyServerPem = data as string;
      this.journal!.append(recordLine(kind, data));
      if (this.journal!.size >= this.compactAt && !this.compacting) {
        this.compact().catch((error: unknown) => {
          this.compactAt = this.journal!.size + this.compactionBound(0);
          this.options.warn?.(`compacting the state failed: ${fileReason(error)}`);
        });
      }
    });
  }

  private async runCompaction(): Promise<void> {
    const state = this.state!;
    const generation = this.generation + 1;
    const next = await JournalFile.open(join(this.dir, journalName(generation)), generation);
    // One synchronous step: the copy holds exactly what the journals before `next` hold.
    const records = [...stateRecords(state, this.keyServerPem)];
    const old = this.journal!;
    this.journal = next;
    this.generation = generation;
    this.retiring = old;
    try {
      await old.close();
    } catch {
      // Its waiters have been told; the snapshot below holds what it could not write.
    } finally {
      this.retiring = undefined;
    }
    const bytes = await writeSnapshot(join(this.dir, SNAPSHOT_FILE), generation, records);
    this.compactAt = this.compactionBound(bytes);
    await removeJournals(this.dir, generation);
  }

  private compactionBound(snapshotBytes: number): number {
    return Math.max(snapshotBytes, this.options.compactAfterBytes ?? COMPACT_AFTER_BYTES);
  }
}

/** The journals of generation `from` and later, oldest first. */
async function readJournals(dir: string, from: number): Promise<JournalOnDisk[]> {
  const journals: JournalOnDisk[] = [];
  for (const name of await readdir(dir)) {
    const generation = Number(JOURNAL_FILE.exec(name)?.[1] ?? Number.NaN);
    if (!(generation >= from)) continue;
    const path = join(dir, name);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw fileError('read', path, error);
    }
    journals.push({ generation, path, file: parseStateFile(text, path, generation) });
  }
  return journals.sort((a, b) => a.generation - b.generation);
}

/** A snapshot being written when the mock died is left as a temporary file: never read, removed. */
async function removeUnfinishedSnapshots(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (name.startsWith(`.${SNAPSHOT_FILE}.`) && name.endsWith('.tmp')) {
      await rm(join(dir, name), { force: true });
    }
  }
}

/** Removes the journals older than `before` (a snapshot holds what they held). */
async function removeJournals(dir: string, before: number): Promise<void> {
  for (const name of await readdir(dir)) {
    const generation = Number(JOURNAL_FILE.exec(name)?.[1] ?? Number.NaN);
    if (generation < before) {
      await rm(join(dir, name), { force: true }).catch((error: unknown) => {
        if (errnoCode(error) !== 'ENOENT') throw error;
      });
    }
  }
}

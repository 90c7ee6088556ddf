/**
 * One live mock per state directory: a lock file holding the holder's pid, made and taken over
 * with the one lock mechanism (files/file-lock.ts): never half-written, only one of two mocks
 * starting at once creates it, and a lock whose process is gone (a mock killed with kill -9) is
 * taken over by only one of two mocks taking it over.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { createLockFile, processIsAlive, takeOverLockFile } from '../../files/file-lock.js';
import { errnoCode, fileError } from '../../files/fs-errors.js';

export const LOCK_FILE = 'lock';

/** Lock files this process holds: a pid equal to ours is only live when it is in here. */
const held = new Set<string>();

/** The pid a lock file's text holds, or undefined. */
function pidIn(text: string): number | undefined {
  const pid = Number.parseInt(text, 10);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** The pid in a lock file; undefined when the file is gone or holds no pid. */
async function holder(path: string): Promise<number | undefined> {
  try {
    return pidIn(await readFile(path, 'utf8'));
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw fileError('read', path, error);
  }
}

function live(path: string, pid: number | undefined): boolean {
  if (pid === undefined) return false;
  return pid === process.pid ? held.has(path) : processIsAlive(pid);
}

function inUse(dir: string, pid: number): UsageError {
  return new UsageError(`the state directory ${dir} is in use by another mock (pid ${pid})`, {
    hint: {
      cli: 'stop that mock first, or give this one another --state directory',
      code: 'stop that mock first, or give this one another state directory',
    },
  });
}

/**
 * Who holds a directory's lock, without taking it: nobody (undefined), a running mock, or a mock
 * that died holding it (`live` false; its pid when the file holds one).
 */
export async function lockHolder(
  dir: string,
): Promise<{ pid: number | undefined; live: boolean } | undefined> {
  const path = join(dir, LOCK_FILE);
  // A lock file that cannot be read is told as none: this only reports.
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const pid = pidIn(text);
  return { pid, live: live(path, pid) };
}

export interface StateLock {
  /** The lock was taken over from a mock that died holding it (it did not stop cleanly). */
  readonly tookOver: boolean;
  release(): Promise<void>;
}

/** Takes the directory's lock, or throws a UsageError naming the live mock that holds it. */
export async function lockStateDirectory(dir: string): Promise<StateLock> {
  const path = join(dir, LOCK_FILE);
  let tookOver = false;
  // Three rounds at most: each one after moving a dead holder's lock aside.
  for (let round = 0; round < 3; round++) {
    if (await createLockFile(path, `${process.pid}\n`)) {
      held.add(path);
      return {
        tookOver,
        release: async () => {
          held.delete(path);
          await rm(path, { force: true });
        },
      };
    }
    const pid = await holder(path);
    if (live(path, pid)) throw inUse(dir, pid!);
    let moved: number | undefined;
    const outcome = await takeOverLockFile(path, async (aside) => {
      moved = await holder(aside);
      return !live(path, moved);
    });
    if (outcome === 'live') throw inUse(dir, moved!);
    if (outcome === 'taken') tookOver = true;
  }
  throw new UsageError(`the state directory ${dir} is being taken by another mock right now`, {
    hint: {
      cli: 'try again in a moment, or give this one another --state directory',
      code: 'try again in a moment, or give this one another state directory',
    },
  });
}

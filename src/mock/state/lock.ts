/**
 * One live mock per state directory: a lock file holding the holder's pid. It is written whole
 * under a temporary name and linked into place, so it never exists half-written and only one of
 * two mocks starting at once can create it. A lock whose process is gone (a mock killed with
 * kill -9) is taken over: moved aside first, so of two mocks taking it over only one succeeds.
 */
import { randomBytes } from 'node:crypto';
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { errnoCode, fileError } from '../../files/fs-errors.js';

export const LOCK_FILE = 'lock';

/** Lock files this process holds: a pid equal to ours is only live when it is in here. */
const held = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return errnoCode(error) === 'EPERM';
  }
}

/** The pid in a lock file; undefined when the file is gone or holds no pid. */
async function holder(path: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(path, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw fileError('read', path, error);
  }
}

function live(path: string, pid: number | undefined): boolean {
  if (pid === undefined) return false;
  return pid === process.pid ? held.has(path) : isAlive(pid);
}

function inUse(dir: string, pid: number): UsageError {
  return new UsageError(`the state directory ${dir} is in use by another mock (pid ${pid})`, {
    hint: 'stop that mock first, or give this one another --state directory',
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
  const pid = await holder(path).catch(() => undefined);
  const exists =
    pid !== undefined ||
    (await readFile(path).then(
      () => true,
      () => false,
    ));
  return exists ? { pid, live: live(path, pid) } : undefined;
}

export interface StateLock {
  /** The lock was taken over from a mock that died holding it (it did not stop cleanly). */
  readonly tookOver: boolean;
  release(): Promise<void>;
}

/** Takes the directory's lock, or throws a UsageError naming the live mock that holds it. */
export async function lockStateDirectory(dir: string): Promise<StateLock> {
  const path = join(dir, LOCK_FILE);
  const unique = () => `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const temp = `${unique()}.tmp`;
  try {
    await writeFile(temp, `${process.pid}\n`, { mode: 0o600, flush: true });
  } catch (error) {
    throw fileError('create the lock file', path, error);
  }
  let tookOver = false;
  try {
    // Three rounds at most: each one after moving a dead holder's lock aside.
    for (let round = 0; round < 3; round++) {
      try {
        await link(temp, path);
        held.add(path);
        return {
          tookOver,
          release: async () => {
            held.delete(path);
            await rm(path, { force: true });
          },
        };
      } catch (error) {
        if (errnoCode(error) !== 'EEXIST') throw fileError('create the lock file', path, error);
      }
      const pid = await holder(path);
      if (live(path, pid)) throw inUse(dir, pid!);
      const aside = `${unique()}.dead`;
      try {
        await rename(path, aside);
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') continue; // another mock moved it first
        throw fileError('take over the lock file', path, error);
      }
      // What was moved may be a lock created meanwhile by a live mock: then it goes back.
      const moved = await holder(aside);
      if (live(path, moved)) {
        await link(aside, path).catch(() => undefined);
        await rm(aside, { force: true });
        throw inUse(dir, moved!);
      }
      await rm(aside, { force: true });
      tookOver = true;
    }
    throw new UsageError(`the state directory ${dir} is being taken by another mock right now`, {
      hint: 'try again in a moment, or give this one another --state directory',
    });
  } finally {
    await rm(temp, { force: true });
  }
}

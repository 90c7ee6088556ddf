/**
 * Lock files, the one mechanism: a lock file is written whole under a temporary name and linked
 * into place, so it never exists half-written and of two processes creating it at once only one
 * succeeds; a dead holder's lock is moved aside before it is removed, so of two processes taking
 * it over only one succeeds, and what turns out to be a live lock goes back.
 *
 * Two policies use it: withFileLock here (a lock beside a file, `<target>.lock`, that ksctl
 * processes running at the same time wait their turn at, for read-modify-write of the profile
 * file), and the mock's state directory lock (mock/persistence/state-lock.ts), held while a mock runs.
 */
import { link, readFile, rename, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError } from '../errors.js';
import { errnoCode, fileError } from './fs-errors.js';
import { randomUuid } from '../encoding/random-pool.js';

export interface FileLockOptions {
  /** Give up after this long (default 20 s). */
  timeoutMs?: number;
  /** A lock file not touched for this long belongs to a crashed process (default 30 s). */
  staleMs?: number;
  /** Called once when the lock is held by another live process and this one starts waiting. */
  onWait?: (holder: string) => void;
}

const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_STALE_MS = 30_000;
const FIRST_DELAY_MS = 5;
const MAX_DELAY_MS = 250;

export function lockPathFor(targetPath: string): string {
  return `${targetPath}.lock`;
}

export async function withFileLock<T>(
  targetPath: string,
  task: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const lockPath = lockPathFor(targetPath);
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  // The pid lets the next process see at once that a holder was killed; the host name keeps a
  // lock on a shared file system from being judged by another machine's process table.
  const token = `${process.pid} ${randomUuid()} ${hostname()}\n`;
  await acquire(lockPath, token, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, staleMs, options.onWait);
  // Keep the lock fresh while a slow task runs, so nobody takes it over as stale.
  const heartbeat = setInterval(() => {
    const now = new Date();
    utimes(lockPath, now, now).catch(() => undefined);
  }, staleMs / 3);
  heartbeat.unref();
  try {
    return await task();
  } finally {
    clearInterval(heartbeat);
    await release(lockPath, token);
  }
}

async function acquire(
  lockPath: string,
  token: string,
  timeoutMs: number,
  staleMs: number,
  onWait: ((holder: string) => void) | undefined,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = FIRST_DELAY_MS;
  let waiting = false;
  for (;;) {
    if (await createLockFile(lockPath, token)) {
      return;
    }
    if (await takeOverIfStale(lockPath, staleMs)) {
      continue;
    }
    if (!waiting) {
      waiting = true;
      onWait?.(await holderOf(lockPath));
    }
    if (Date.now() >= deadline) {
      throw new ConflictError(
        `the profile file is locked by ${await holderOf(lockPath)} (${lockPath})`,
        {
          hint: `Retry when the other ksctl has finished. If none is running, delete ${lockPath}.`,
        },
      );
    }
    // Jitter keeps processes that collided from retrying in lock step.
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  }
}

/**
 * Creates the lock file `path` holding `content`, whole: false when it exists already. The file
 * is written under a temporary name and linked into place, so nobody ever reads it half-written.
 */
export async function createLockFile(path: string, content: string): Promise<boolean> {
  const temp = `${path}.${process.pid}.${randomUuid()}.tmp`;
  try {
    await writeFile(temp, content, { mode: 0o600, flush: true });
  } catch (error) {
    throw fileError('create the lock file', path, error);
  }
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    throw fileError('create the lock file', path, error);
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * Takes over a lock file judged dead: moves it aside (atomic: of several processes taking over,
 * one moves it), asks `isDead` again about what was moved (another process may have taken over
 * and locked again in between), and removes it, or links it back when it is live after all (link
 * never replaces a newer lock). `gone`: there was no lock to move.
 */
export async function takeOverLockFile(
  path: string,
  isDead: (movedPath: string) => Promise<boolean>,
): Promise<'taken' | 'live' | 'gone'> {
  const aside = `${path}.stale-${randomUuid()}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return 'gone';
    throw fileError('take over the stale lock file', path, error);
  }
  if (!(await isDead(aside))) {
    await link(aside, path).catch(() => undefined);
    await unlink(aside).catch(() => undefined);
    return 'live';
  }
  await unlink(aside).catch(() => undefined);
  return 'taken';
}

/** Whether a process is running: EPERM means it is, as another user's. */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) !== 'ESRCH';
  }
}

/** True when the lock is gone (taken over or released meanwhile), so trying again makes sense. */
async function takeOverIfStale(lockPath: string, staleMs: number): Promise<boolean> {
  if (!(await isStale(lockPath, staleMs))) {
    return false;
  }
  return (await takeOverLockFile(lockPath, (moved) => isStale(moved, staleMs))) !== 'live';
}

/** Stale: its holder's process is gone, or (holder unknown) it was not touched for `staleMs`. */
async function isStale(path: string, staleMs: number): Promise<boolean> {
  try {
    const stats = await stat(path);
    if (Date.now() - stats.mtimeMs >= staleMs) return true;
    const holder = parseHolder(await readFile(path, 'utf8'));
    return holder !== undefined && holder.pid !== process.pid && !processIsAlive(holder.pid);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') {
      return true;
    }
    throw fileError('check the lock file', path, error);
  }
}

/**
 * The process a lock file names, when it names one on this machine. A lock being created is
 * empty for a moment, and one from another host cannot be checked: both are judged by age alone.
 */
function parseHolder(text: string): { pid: number } | undefined {
  const [pidText, , host] = text.trim().split(' ');
  const pid = Number(pidText);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (host !== undefined && host !== hostname()) return undefined;
  return { pid };
}

/** "process 1234", for messages about who holds the lock. */
async function holderOf(lockPath: string): Promise<string> {
  const text = await readFile(lockPath, 'utf8').catch(() => '');
  const pid = Number(text.trim().split(' ')[0]);
  return Number.isSafeInteger(pid) && pid > 0 ? `process ${pid}` : 'another process';
}

/**
 * Removes the lock only if it is still ours (it may have been taken over after a long stall).
 * Best effort: a failure here must not hide the task's own result or error, and a lock left
 * behind is taken over once stale.
 */
async function release(lockPath: string, token: string): Promise<void> {
  try {
    if ((await readFile(lockPath, 'utf8')) === token) {
      await unlink(lockPath);
    }
  } catch {
    // Already gone, or not removable: see above.
  }
}

/**
 * A lock file beside the target (`<target>.lock`, created with O_EXCL), so that ksctl processes
 * running at the same time (bulk enrollment) take turns at read-modify-write.
 */
import { randomUUID } from 'node:crypto';
import { link, open, readFile, rename, stat, unlink, utimes } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError } from '../errors.js';
import { errnoCode, fileError } from '../files/fs-errors.js';

export interface FileLockOptions {
  /** Give up after this long (default 20 s). */
  timeoutMs?: number;
  /** A lock file not touched for this long belongs to a crashed process (default 30 s). */
  staleMs?: number;
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
  const token = `${process.pid} ${randomUUID()}\n`;
  await acquire(lockPath, token, options.timeoutMs ?? DEFAULT_TIMEOUT_MS, staleMs);
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
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = FIRST_DELAY_MS;
  for (;;) {
    if (await tryCreate(lockPath, token)) {
      return;
    }
    if (await takeOverIfStale(lockPath, staleMs)) {
      continue;
    }
    if (Date.now() >= deadline) {
      throw new ConflictError(`The profile file is locked by another process (${lockPath})`, {
        hint: `Retry when the other ksctl has finished. If none is running, delete ${lockPath}.`,
      });
    }
    // Jitter keeps processes that collided from retrying in lock step.
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  }
}

async function tryCreate(lockPath: string, token: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(lockPath, 'wx', 0o600);
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') {
      return false;
    }
    throw fileError('create the lock file', lockPath, error);
  }
  try {
    await handle.writeFile(token);
  } finally {
    await handle.close();
  }
  return true;
}

/** True when the lock is gone (taken over or released meanwhile), so trying again makes sense. */
async function takeOverIfStale(lockPath: string, staleMs: number): Promise<boolean> {
  if (!(await isStale(lockPath, staleMs))) {
    return false;
  }
  // Moving the lock aside is atomic: of several processes taking over, one moves it.
  const aside = `${lockPath}.stale-${randomUUID()}`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') {
      return true;
    }
    throw fileError('take over the stale lock file', lockPath, error);
  }
  // Another process may have taken over and locked again between our check and the rename:
  // then what we moved is a live lock, and it goes back (link never replaces a newer lock).
  if (!(await isStale(aside, staleMs))) {
    await link(aside, lockPath).catch(() => undefined);
    await unlink(aside).catch(() => undefined);
    return false;
  }
  await unlink(aside).catch(() => undefined);
  return true;
}

async function isStale(path: string, staleMs: number): Promise<boolean> {
  try {
    const stats = await stat(path);
    return Date.now() - stats.mtimeMs >= staleMs;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') {
      return true;
    }
    throw fileError('check the lock file', path, error);
  }
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

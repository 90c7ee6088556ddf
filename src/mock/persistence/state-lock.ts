/**
 * One live mock per state directory: a lock file holding the holder's pid, made and taken over
 * with the one lock mechanism (files/file-lock.ts): never half-written, only one of two mocks
 * starting at once creates it, and a lock whose process is gone (a mock killed with kill -9) is
 * taken over by only one of two mocks taking it over.
 */
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../../common/errors.js';
import { createLockFile, takeOverLockFile } from '../../common/files/file-lock.js';
import { errnoCode, fileError } from '../../common/files/fs-errors.js';
import {
  goneReason,
  identityText,
  ownIdentity,
  parseIdentity,
  type ProcessIdentity,
} from '../../common/files/process-identity.js';

export const LOCK_FILE = 'lock';

/** Lock files this process holds: a pid equal to ours is only live when it is in here. */
const held = new Set<string>();

/** What a lock file says of its holder, and when it was written; undefined when it is gone. */
interface Holder {
  identity: ProcessIdentity | undefined;
  writtenAtMs: number;
}

async function holder(path: string): Promise<Holder | undefined> {
  try {
    const [text, stats] = await Promise.all([readFile(path, 'utf8'), stat(path)]);
    return { identity: parseIdentity(text), writtenAtMs: stats.mtimeMs };
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw fileError('read', path, error);
  }
}

/**
 * Why the lock's holder is not a running mock, or undefined when it is. A lock naming no pid (a
 * file written by hand, or emptied) has no holder that could be running.
 */
function staleReason(path: string, found: Holder | undefined): string | undefined {
  if (found === undefined) return 'it is gone';
  const { identity, writtenAtMs } = found;
  if (identity === undefined) return 'the lock file names no process';
  if (identity.pid === process.pid) return held.has(path) ? undefined : 'it is gone';
  return goneReason(identity, writtenAtMs);
}

function inUse(dir: string, pid: number | undefined): UsageError {
  return new UsageError(
    `the state directory ${dir} is in use by another mock${pid === undefined ? '' : ` (pid ${pid})`}`,
    {
      hint: {
        cli: 'stop that mock first, or give this one another --state directory',
        code: 'stop that mock first, or give this one another state directory',
      },
    },
  );
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
  const found = await holder(path).catch(() => undefined);
  if (found === undefined) return undefined;
  return { pid: found.identity?.pid, live: staleReason(path, found) === undefined };
}

export interface StateLock {
  /** The lock was taken over from a mock that died holding it (it did not stop cleanly). */
  readonly tookOver: boolean;
  /** Then: whose it was, and why it was judged stale ("it was killed (a zombie now)"). */
  readonly staleHolder?: { pid: number | undefined; reason: string };
  release(): Promise<void>;
}

/**
 * Takes the directory's lock, or throws a UsageError naming the live mock that holds it. The lock
 * names this process (pid, start time, boot), so that a holder killed with kill -9 (a zombie
 * until reaped, or its pid reused by another process since) is told from a running mock.
 */
export async function lockStateDirectory(dir: string): Promise<StateLock> {
  const path = join(dir, LOCK_FILE);
  let staleHolder: StateLock['staleHolder'];
  // Three rounds at most: each one after moving a dead holder's lock aside.
  for (let round = 0; round < 3; round++) {
    if (await createLockFile(path, `${identityText(ownIdentity())}\n`)) {
      held.add(path);
      return {
        tookOver: staleHolder !== undefined,
        ...(staleHolder === undefined ? {} : { staleHolder }),
        release: async () => {
          held.delete(path);
          await rm(path, { force: true });
        },
      };
    }
    const found = await holder(path);
    if (found !== undefined && staleReason(path, found) === undefined) {
      throw inUse(dir, found.identity?.pid);
    }
    let moved: Holder | undefined;
    let reason: string | undefined;
    const outcome = await takeOverLockFile(path, async (aside) => {
      moved = await holder(aside);
      reason = staleReason(path, moved);
      return reason !== undefined;
    });
    if (outcome === 'live') throw inUse(dir, moved?.identity?.pid);
    if (outcome === 'taken') staleHolder = { pid: moved?.identity?.pid, reason: reason! };
  }
  throw new UsageError(`the state directory ${dir} is being taken by another mock right now`, {
    hint: {
      cli: 'try again in a moment, or give this one another --state directory',
      code: 'try again in a moment, or give this one another state directory',
    },
  });
}

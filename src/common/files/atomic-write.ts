/**
 * Crash-safe file replacement: readers see the old file or the new one, never a mix, and a
 * crash never leaves a half-written file behind (profiles, exports, the mock's ready file).
 * A symbolic link is written through: the file it points to is replaced and the link kept.
 */
import { open, readdir, readlink, realpath, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { ensureDirectory } from './directories.js';
import { isKsctlError } from '../errors.js';
import { errnoCode, fileError } from './fs-errors.js';
import { publicRandomBytes } from '../encoding/random-pool.js';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** Creates the directory (and missing parents) as 0700; existing directories keep their mode. */
export async function ensurePrivateDirectory(dir: string): Promise<void> {
  await ensureDirectory(dir, PRIVATE_DIR_MODE);
}

/**
 * The absolute path of the file a write to `filePath` must replace: symbolic links followed to
 * the end of their chain (also when the last one points to a file not created yet), so that
 * applications reading the link's target see what was written.
 */
export async function resolveWriteTarget(filePath: string): Promise<string> {
  try {
    return await realpath(filePath);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw fileError('write', filePath, error);
  }
  // Missing: no file yet, or a link whose chain ends at a file not created yet. The chain is
  // finite (a loop fails above with ELOOP), so following it one link at a time ends.
  let next: string;
  try {
    const link = await readlink(filePath);
    // Relative to the directory the link is in, as the kernel resolves it.
    next = path.resolve(await realpath(path.dirname(filePath)), link);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'EINVAL') {
      return path.resolve(filePath);
    }
    throw fileError('write', filePath, error);
  }
  return resolveWriteTarget(next);
}

/**
 * Temp file beside the real target (rename is only atomic within one file system). `data` may
 * come in chunks as it is made (an export); an error of its making is rethrown as it is, after
 * the temp file is removed and the target left untouched.
 */
export async function writeFileAtomic(
  filePath: string,
  data: Buffer | string | AsyncIterable<string>,
  mode = PRIVATE_FILE_MODE,
): Promise<void> {
  const target = await resolveWriteTarget(filePath);
  const dir = path.dirname(target);
  const temp = path.join(
    dir,
    `.${path.basename(target)}.${process.pid}.${publicRandomBytes(6).toString('hex')}.tmp`,
  );
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      // writeFile on an open handle writes on from where the previous one ended.
      if (typeof data === 'string' || Buffer.isBuffer(data)) await handle.writeFile(data);
      else for await (const chunk of data) await handle.writeFile(chunk);
      await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
    await removeStaleTemps(dir, path.basename(target));
  } catch (error) {
    await rm(temp, { force: true });
    if (isKsctlError(error)) throw error;
    const named = target === path.resolve(filePath) ? filePath : `${filePath} (${target})`;
    throw fileError('write', named, error);
  }
  await syncDirectory(dir);
}

/**
 * Temp files of this target that a writer killed before its rename left (`kill -9` during an
 * `enroll --count`): removed by the next write that succeeds. A temp file names its writer's
 * process; one of a process still running is its own and is left alone.
 */
async function removeStaleTemps(dir: string, base: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  const prefix = `.${base}.`;
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pid = /^(\d{1,10})\.[0-9a-f]{12}\.tmp$/.exec(name.slice(prefix.length))?.[1];
    if (pid === undefined || isRunning(Number(pid))) continue;
    await rm(path.join(dir, name), { force: true }).catch(() => undefined);
  }
}

function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: running, as another user.
    return errnoCode(error) !== 'ESRCH';
  }
}

/** Makes the rename itself durable. Some platforms cannot open a directory; they skip this. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    const unsupported = ['EISDIR', 'EPERM', 'EINVAL', 'EBADF', 'EACCES'];
    if (!unsupported.includes(errnoCode(error) ?? '')) {
      throw fileError('flush the directory', dir, error);
    }
  } finally {
    await handle?.close();
  }
}

/**
 * Crash-safe file replacement: readers see the old file or the new one, never a mix, and a
 * crash never leaves a half-written file behind (profiles, exports, the mock's ready file).
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode, fileError } from './fs-errors.js';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** Creates the directory (and missing parents) as 0700; existing directories keep their mode. */
export async function ensurePrivateDirectory(dir: string): Promise<void> {
  let firstCreated: string | undefined;
  try {
    firstCreated = await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (error) {
    throw fileError('create the directory', dir, error);
  }
  if (firstCreated !== undefined) {
    // mkdir's mode is filtered by the umask; the profile directory must be exactly 0700.
    await chmod(dir, PRIVATE_DIR_MODE);
  }
}

/** Temp file in the same directory (rename is only atomic within one file system). */
export async function writeFileAtomic(
  target: string,
  data: Buffer | string,
  mode = PRIVATE_FILE_MODE,
): Promise<void> {
  const dir = path.dirname(target);
  const temp = path.join(
    dir,
    `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(data);
      await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw fileError('write', target, error);
  }
  await syncDirectory(dir);
}

/** Makes the rename itself durable. Some platforms cannot open a directory; they skip this. */
async function syncDirectory(dir: string): Promise<void> {
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

/**
 * Creating a file's missing parent directories with checks of our own. Node's recursive mkdir
 * loops forever on some paths (`/proc/newdir/x`: the parent exists, yet mkdir answers ENOENT),
 * so the walk here is bounded by the path's depth and every refusal is a clear error.
 */
import { constants } from 'node:fs';
import { access, chmod, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../errors.js';
import { errnoCode, fileError } from './fs-errors.js';

/**
 * Makes `dir` exist as a directory: walks up to the first existing ancestor, refuses if that is
 * not a writable directory, then creates each missing level with `mode` (exactly, whatever the
 * umask). Existing directories keep their mode.
 */
export async function ensureDirectory(dir: string, mode: number): Promise<void> {
  const target = path.resolve(dir);
  const missing: string[] = [];
  let existing = target;
  // Each step goes one level up; the root always exists, so this ends.
  for (;;) {
    const kind = await kindOf(existing);
    if (kind === 'directory') break;
    if (kind === 'other') {
      throw new InputError(`cannot create the directory ${target}: ${existing} is not a directory`);
    }
    const parent = path.dirname(existing);
    if (parent === existing) {
      throw new InputError(`cannot create the directory ${target}: ${existing} does not exist`);
    }
    missing.unshift(existing);
    existing = parent;
  }
  if (missing.length === 0) return;
  try {
    await access(existing, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw fileError(`create the directory ${target}: cannot write in`, existing, error);
  }
  for (const level of missing) {
    try {
      await mkdir(level, { mode });
    } catch (error) {
      const code = errnoCode(error);
      // Someone else created it meanwhile: fine if it is a directory.
      if (code === 'EEXIST' && (await kindOf(level)) === 'directory') continue;
      if (code === 'ENOENT') {
        // The parent is there, yet the file system will not create anything in it (/proc, /sys).
        throw new InputError(
          `cannot create the directory ${level}: the file system of ${path.dirname(level)} does not allow new directories`,
          { hint: 'choose a path on an ordinary file system', cause: error },
        );
      }
      throw fileError('create the directory', level, error);
    }
    // mkdir's mode is filtered by the umask; the caller asked for exactly this one.
    await chmod(level, mode);
  }
}

/**
 * Refuses a file whose folder is missing or not a folder, before anything is read or written for
 * it: a mistyped `--file` path would otherwise leave new folders behind, silently.
 */
export async function requireParentDirectory(filePath: string): Promise<void> {
  const dir = path.dirname(path.resolve(filePath));
  const kind = await kindOf(dir);
  if (kind === 'directory') return;
  throw new InputError(
    kind === 'missing'
      ? `cannot write ${filePath}: the folder ${dir} does not exist`
      : `cannot write ${filePath}: ${dir} is not a folder`,
    {
      hint:
        kind === 'missing'
          ? `create it first (mkdir -p ${dir}), or choose another path`
          : 'choose another path',
    },
  );
}

async function kindOf(p: string): Promise<'directory' | 'other' | 'missing'> {
  try {
    return (await stat(p)).isDirectory() ? 'directory' : 'other';
  } catch (error) {
    const code = errnoCode(error);
    // ENOTDIR: an ancestor is not a directory; the walk up finds and names it.
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    throw fileError('check', p, error);
  }
}

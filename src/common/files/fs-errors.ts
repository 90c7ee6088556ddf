/** Turns Node file-system errors into typed errors that name the file and say what went wrong. */
import { InputError, isKsctlError } from '../errors.js';

export function errnoCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ENOENT: 'no such file or directory',
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
  EEXIST: 'it exists already',
  ENOTEMPTY: 'the directory is not empty',
  EBUSY: 'it is busy',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  EXDEV: 'it is on another file system',
  EDQUOT: 'the disk quota is used up',
  EIO: 'an input/output error',
};

/** Why a file operation failed, in plain words: never the errno or the runtime's own text. */
export function fileReason(error: unknown): string {
  // Already in words (a typed error from a lower layer, which names its file).
  if (isKsctlError(error)) return error.message;
  const code = errnoCode(error);
  return (code && REASONS[code]) ?? 'an unexpected file-system error';
}

export function fileError(action: string, path: string, error: unknown): InputError {
  return new InputError(`cannot ${action} ${path}: ${fileReason(error)}`, { cause: error });
}

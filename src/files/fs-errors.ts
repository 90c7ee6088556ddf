/** Turns Node file-system errors into typed errors that name the file and say what went wrong. */
import { InputError } from '../errors.js';

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
};

export function fileError(action: string, path: string, error: unknown): InputError {
  const code = errnoCode(error);
  const reason = (code && REASONS[code]) ?? `${code ?? 'unknown error'}`;
  return new InputError(`Cannot ${action} ${path}: ${reason}`, { cause: error });
}

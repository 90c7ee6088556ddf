/**
 * Reading what a user hands ksctl (profile files, markings files, `--input` bodies, token and
 * password files): regular files, or standard input, up to a size cap. `/dev/zero`, a FIFO or a
 * 20 GB file is then a clear error naming the file and the cap (exit 3), never a process that
 * fills memory, and the file is only opened for reading.
 */
import { close, constants, fstat, open, read, type Stats } from 'node:fs';
import type { Readable } from 'node:stream';
import { InputError, UsageError } from '../errors.js';

const MIB = 1024 * 1024;
/** Profile files, markings files, `--input` bodies: far above 100,000 profiles or markings. */
export const INPUT_MAX_MIB = 64;
/** INPUT_MAX_MIB in bytes: the cap where a command sets none. */
export const INPUT_MAX_BYTES = INPUT_MAX_MIB * MIB;
/** Raises INPUT_MAX_MIB, in MiB. */
export const INPUT_LIMIT_ENV = 'KSCTL_MAX_INPUT_MIB';
/** Tokens, passwords and keys are one line; a file of them is never large. */
export const SECRET_MAX_BYTES = 64 * 1024;

export interface ReadLimit {
  bytes: number;
  /** What the input is, for the message: "profile file". */
  what: string;
  /** How to raise the cap, when it can be raised. */
  raise?: string;
  /** `-` reads standard input instead (said in the hint when the path is not a file). */
  dash?: boolean;
}

/** The cap of profile files, markings files and `--input`: KSCTL_MAX_INPUT_MIB, else 64 MiB. */
export function inputLimit(env: NodeJS.ProcessEnv, what: string): ReadLimit {
  const text = env[INPUT_LIMIT_ENV]?.trim();
  let mib = INPUT_MAX_MIB;
  if (text !== undefined && text !== '') {
    mib = Number(text);
    if (!/^\d+$/.test(text) || mib < 1 || mib > 1024 * 1024) {
      throw new UsageError(
        `${INPUT_LIMIT_ENV} must be a whole number of MiB from 1 to 1048576, not "${text}"`,
      );
    }
  }
  return { bytes: mib * MIB, what, raise: `set ${INPUT_LIMIT_ENV} to a larger number of MiB` };
}

/** "64 MiB", "64 KiB", "100 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes >= MIB && bytes % MIB === 0) return `${bytes / MIB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

export function tooLargeError(name: string, limit: ReadLimit, size?: number): InputError {
  const how = size === undefined ? 'more than' : `${size} bytes, more than`;
  return new InputError(
    `${name}: ${how} the ${formatBytes(limit.bytes)} a ${limit.what} may be`,
    limit.raise === undefined ? {} : { hint: limit.raise },
  );
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isFIFO()) return 'a pipe';
  if (info.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The bytes of a regular file, at most `limit.bytes`. Opening errors (ENOENT, EACCES) are thrown
 * as Node's, for the caller to word; anything but a regular file, or a larger one, is an
 * InputError. Opened non-blocking, so a FIFO is refused instead of waited on.
 */
export async function readBoundedFile(path: string, limit: ReadLimit): Promise<Buffer> {
  const fd = await settled<number>((done) =>
    open(path, constants.O_RDONLY | constants.O_NONBLOCK, done),
  );
  try {
    const info = await settled<Stats>((done) => fstat(fd, done));
    if (!info.isFile()) {
      throw new InputError(`${path} is ${kindOf(info)}; a ${limit.what} must be a regular file`, {
        hint: limit.dash ? 'give a file, or - to read standard input' : 'give a regular file',
      });
    }
    if (info.size > limit.bytes) throw tooLargeError(path, limit, info.size);
    // One buffer of the size the file has, grown only if the file grows while it is read.
    let buffer = Buffer.allocUnsafe(Math.max(info.size + 1, 4096));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, limit.bytes + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const into = buffer;
      const bytesRead = await settled<number>((done) =>
        read(fd, into, length, into.length - length, null, done),
      );
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > limit.bytes) throw tooLargeError(path, limit);
    }
    return buffer.subarray(0, length);
  } finally {
    await settled<void>((done) => close(fd, done));
  }
}

/**
 * A callback of node:fs as a promise. The callback API, not node:fs/promises: a command that reads
 * its configuration file would load that module (and readline and file watchers with it), some
 * milliseconds of every short command.
 */
function settled<T>(
  call: (done: (error: NodeJS.ErrnoException | null, value: T) => void) => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    call((error, value) => (error ? reject(error) : resolve(value)));
  });
}

/** A stream (standard input) read whole, at most `limit.bytes`; `name` names it in errors. */
export async function readBoundedStream(
  stream: Readable,
  name: string,
  limit: ReadLimit,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    length += bytes.length;
    if (length > limit.bytes) {
      stream.destroy();
      throw tooLargeError(name, limit);
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, length);
}

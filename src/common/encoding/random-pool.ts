/**
 * Random bytes for public values: IVs and nonces of device requests, conversation ids, temporary
 * and lock file names. Never for keys or salts (those are drawn from node:crypto where they are
 * made).
 *
 * A draw of a few bytes costs about as much as sealing a short text, and a device request makes
 * several; so values are cut from a block drawn at once. Each block is new and never written
 * again, so every value is a distinct slice of the system's random bytes, as with a draw of its
 * own. The blocks come from the kernel's random device (the same bytes node:crypto would give)
 * and from node:crypto only where there is none (Windows) or it cannot be read: loading
 * node:crypto costs a short command several milliseconds of its start-up, more than the whole
 * request of `ksctl markings get` against a local service (issue 26).
 */
import { closeSync, openSync, readSync } from 'node:fs';

const BLOCK_BYTES = 4096;
/** Larger values are drawn on their own. */
const MAX_POOLED_BYTES = 64;

let block: Buffer = Buffer.alloc(0);
let at = 0;

function fromCrypto(length: number): Buffer {
  return process.getBuiltinModule('node:crypto').randomBytes(length);
}

/** `length` bytes from the kernel's random device, or undefined where it cannot be read whole. */
function fromDevice(length: number): Buffer | undefined {
  if (process.platform === 'win32') return undefined;
  let fd: number | undefined;
  try {
    fd = openSync('/dev/urandom', 'r');
    const bytes = Buffer.allocUnsafe(length);
    // Bounded: a device that gives nothing twice in a row is not used.
    for (let filled = 0, empty = 0; filled < length;) {
      const read = readSync(fd, bytes, filled, length - filled, null);
      if (read === 0 && ++empty > 1) return undefined;
      filled += read;
    }
    return bytes;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `count` fresh random bytes, not to be written to (they share their block). */
export function publicRandomBytes(count: number): Buffer {
  if (count > MAX_POOLED_BYTES) return fromDevice(count) ?? fromCrypto(count);
  if (at + count > block.length) {
    block = fromDevice(BLOCK_BYTES) ?? fromCrypto(BLOCK_BYTES);
    at = 0;
  }
  at += count;
  return block.subarray(at - count, at);
}

/** A random (version 4) UUID, as `crypto.randomUUID` writes it. */
export function randomUuid(): string {
  const bytes = Buffer.from(publicRandomBytes(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

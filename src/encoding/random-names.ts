/**
 * Random bytes for names and ids that must not collide: conversation ids, temporary and lock
 * file names. Not for keys, IVs or salts (those use node:crypto where they are made).
 *
 * Why not node:crypto here: loading it costs a short command several milliseconds of its
 * start-up, more than the whole request of `ksctl markings get` against a local service
 * (issue 26), and the network path needs randomness only for these names. The kernel's random
 * device gives the same bytes node:crypto would; a pool read in one go serves the names of a
 * whole command. Where there is no such device (Windows) or it cannot be read, node:crypto.
 */
import { closeSync, openSync, readSync } from 'node:fs';

const POOL_BYTES = 256;
let pool: Buffer = Buffer.alloc(0);
let used = 0;

function fromCrypto(length: number): Buffer {
  return process.getBuiltinModule('node:crypto').randomBytes(length);
}

/** A fresh pool from the kernel's random device, or undefined where it cannot be read whole. */
function fromDevice(): Buffer | undefined {
  if (process.platform === 'win32') return undefined;
  let fd: number | undefined;
  try {
    fd = openSync('/dev/urandom', 'r');
    const bytes = Buffer.allocUnsafe(POOL_BYTES);
    // Bounded: a device that gives nothing twice in a row is not used.
    for (let filled = 0, empty = 0; filled < POOL_BYTES;) {
      const read = readSync(fd, bytes, filled, POOL_BYTES - filled, null);
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

/** `length` random bytes (each handed out once). */
export function randomNameBytes(length: number): Buffer {
  if (length > POOL_BYTES) return fromCrypto(length);
  if (used + length > pool.length) {
    pool = fromDevice() ?? fromCrypto(POOL_BYTES);
    used = 0;
  }
  const bytes = Buffer.from(pool.subarray(used, used + length));
  pool.fill(0, used, used + length);
  used += length;
  return bytes;
}

/** A random (version 4) UUID, as `crypto.randomUUID` writes it. */
export function randomNameUuid(): string {
  const bytes = randomNameBytes(16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

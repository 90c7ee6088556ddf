/**
 * Random bytes for public values (IVs, nonces), never for keys: a draw of a few bytes costs about
 * as much as sealing a short text, and a device request makes several. They are cut from a block
 * drawn at once; each block is new and never written again, so every value is a distinct slice of
 * the system's random bytes, as with a draw of its own.
 */
import { randomBytes } from 'node:crypto';

const BLOCK_BYTES = 4096;
/** Larger values are drawn on their own. */
const MAX_POOLED_BYTES = 64;

let block = Buffer.alloc(0);
let at = 0;

/** `count` fresh random bytes, not to be written to (they share their block). */
export function publicRandomBytes(count: number): Buffer {
  if (count > MAX_POOLED_BYTES) return randomBytes(count);
  if (at + count > block.length) {
    block = randomBytes(BLOCK_BYTES);
    at = 0;
  }
  at += count;
  return block.subarray(at - count, at);
}

/**
 * JSON text made in pieces (docs/design.md 3.2.1): an answer of tens of megabytes (a listing of
 * 1,000 markings with their values, a marking of 100,000 values) took one JSON.stringify and one
 * encoding of a few hundred milliseconds, during which the mock answered nobody. Made piece by
 * piece, with pauses between slices (pacing.ts), it never holds the mock for more than a slice.
 */
import type { Pacer } from './pacing.js';

/** Values of at most this many members in all (a marking value, a key) are written whole. */
const WHOLE_UP_TO = 64;

/**
 * The JSON text of `value`, in pieces that join to exactly what JSON.stringify writes for the
 * plain data of an answer (objects, arrays, strings, numbers, booleans, null; members that are
 * undefined left out as JSON.stringify leaves them out). A small object or array (a marking
 * value, a key) is one piece; anything larger is written member by member.
 */
export function* jsonPieces(value: unknown): Generator<string> {
  if (Array.isArray(value) && !isSmall(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ',';
      const item: unknown = value[i];
      if (item === undefined || typeof item === 'function') yield 'null';
      else yield* jsonPieces(item);
    }
    yield ']';
  } else if (isPlainObject(value) && !isSmall(value)) {
    yield '{';
    let first = true;
    for (const [name, member] of Object.entries(value)) {
      if (member === undefined || typeof member === 'function') continue;
      yield `${first ? '' : ','}${JSON.stringify(name)}:`;
      first = false;
      yield* jsonPieces(member);
    }
    yield '}';
  } else {
    yield JSON.stringify(value) ?? 'null';
  }
}

/** Whether `value` holds at most WHOLE_UP_TO members, all levels together (counted, not walked). */
function isSmall(value: object): boolean {
  const pending: object[] = [value];
  let members = 0;
  while (pending.length > 0) {
    const next = pending.pop()!;
    for (const member of Array.isArray(next) ? next : Object.values(next)) {
      if (++members > WHOLE_UP_TO) return false;
      if (typeof member === 'object' && member !== null) pending.push(member as object);
    }
  }
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Text gathered into one chunk of bytes. */
const CHUNK_CHARS = 64 * 1024;

/** The JSON text of `value` as UTF-8 chunks of about 64 KiB, made in slices. */
export async function jsonChunks(value: unknown, pacer: Pacer): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  let text = '';
  for (const piece of jsonPieces(value)) {
    text += piece;
    if (text.length >= CHUNK_CHARS) {
      chunks.push(Buffer.from(text, 'utf8'));
      text = '';
    }
    if (pacer.due()) await pacer.pause();
  }
  chunks.push(Buffer.from(text, 'utf8'));
  return chunks;
}

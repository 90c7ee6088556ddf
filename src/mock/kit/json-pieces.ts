/**
 * JSON text made in pieces (docs/design.md 3.2.1): an answer of tens of megabytes (a listing of
 * 1,000 markings with their values, a marking of 100,000 values) took one JSON.stringify and one
 * encoding of a few hundred milliseconds, during which the mock answered nobody. Made piece by
 * piece, with pauses between slices (pacing.ts), it never holds the mock for more than a slice.
 */
import type { Pacer } from './pacing.js';

/**
 * Members, all levels together, that one piece holds at most: JSON.stringify writes that many in
 * well under a millisecond, and one call for many small members is much faster than one each.
 */
const PIECE_MEMBERS = 4096;

/**
 * The JSON text of `value`, in pieces that join to exactly what JSON.stringify writes for the
 * plain data of an answer (objects, arrays, strings, numbers, booleans, null; members that are
 * undefined left out as JSON.stringify leaves them out). A value of at most PIECE_MEMBERS
 * members is one piece, and so is a run of small items of a large list; anything larger is
 * written member by member.
 */
export function* jsonPieces(value: unknown): Generator<string> {
  if (Array.isArray(value) && membersUpTo(value, PIECE_MEMBERS) > PIECE_MEMBERS) {
    yield '[';
    let run: unknown[] = [];
    let runMembers = 0;
    let written = 0;
    const flush = function* (): Generator<string> {
      if (run.length === 0) return;
      // A run of items as JSON.stringify writes a list of them, without the brackets.
      yield `${written > 0 ? ',' : ''}${JSON.stringify(run).slice(1, -1)}`;
      written += run.length;
      run = [];
      runMembers = 0;
    };
    for (const item of value) {
      const members = membersUpTo(item, PIECE_MEMBERS);
      if (members > PIECE_MEMBERS) {
        yield* flush();
        if (written++ > 0) yield ',';
        yield* jsonPieces(item);
        continue;
      }
      if (runMembers + members + 1 > PIECE_MEMBERS) yield* flush();
      run.push(item);
      runMembers += members + 1;
    }
    yield* flush();
    yield ']';
  } else if (isPlainObject(value) && membersUpTo(value, PIECE_MEMBERS) > PIECE_MEMBERS) {
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

/** The members of `value`, all levels together, counted up to `most + 1` (0 for a plain value). */
function membersUpTo(value: unknown, most: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  const pending: object[] = [value];
  let members = 0;
  const count = (member: unknown): boolean => {
    if (typeof member === 'object' && member !== null) pending.push(member);
    return ++members > most;
  };
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (Array.isArray(next)) {
      for (const member of next as unknown[]) if (count(member)) return members;
    } else {
      // By name, without a list of the members made for each object.
      for (const name in next) {
        if (count((next as Record<string, unknown>)[name])) return members;
      }
    }
  }
  return members;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Text gathered into one chunk of bytes. */
const CHUNK_CHARS = 64 * 1024;

/** The JSON text of `value` when it is one piece (most answers), made at once; else undefined. */
export function jsonTextAtOnce(value: unknown): string | undefined {
  return membersUpTo(value, PIECE_MEMBERS) <= PIECE_MEMBERS
    ? (JSON.stringify(value) ?? 'null')
    : undefined;
}

/** The JSON text of `value` as UTF-8 chunks of about 64 KiB, made in slices. */
export async function jsonChunks(value: unknown, pacer: Pacer): Promise<Buffer[]> {
  const atOnce = jsonTextAtOnce(value);
  return atOnce === undefined ? jsonSlices(value, pacer) : [Buffer.from(atOnce, 'utf8')];
}

/**
 * jsonChunks() of a value known to be more than one piece (jsonTextAtOnce gave nothing), without
 * counting its members again.
 */
export async function jsonSlices(value: unknown, pacer: Pacer): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  let text = '';
  for (const piece of jsonPieces(value)) {
    text += piece;
    if (text.length >= CHUNK_CHARS) {
      chunks.push(Buffer.from(text, 'utf8'));
      text = '';
    }
    if (pacer.used()) await pacer.pause();
  }
  chunks.push(Buffer.from(text, 'utf8'));
  return chunks;
}

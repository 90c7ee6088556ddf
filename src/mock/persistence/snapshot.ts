/**
 * A snapshot: the whole state as records (persistence/records.ts) in one file, written to a temporary
 * file, flushed and renamed over the old one, so a crash leaves the old snapshot or the new one.
 */
import { readFile } from 'node:fs/promises';
import { InputError } from '../../errors.js';
import { writeFileAtomic } from '../../files/atomic-write.js';
import { errnoCode, fileError } from '../../files/fs-errors.js';
import { headerLine, parseStateFile, recordLine, type StateFile } from './journal.js';
import type { StateRecord } from './records.js';

/** Records serialised between two turns of the event loop, so requests keep being answered. */
const RECORDS_PER_TURN = 5_000;

export async function writeSnapshot(
  path: string,
  generation: number,
  records: Iterable<StateRecord>,
): Promise<number> {
  const chunks = [headerLine(generation)];
  let lines: string[] = [];
  for (const [kind, data] of records) {
    lines.push(recordLine(kind, data));
    if (lines.length >= RECORDS_PER_TURN) {
      chunks.push(lines.join(''));
      lines = [];
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  chunks.push(lines.join(''));
  const data = Buffer.from(chunks.join(''), 'utf8');
  await writeFileAtomic(path, data);
  return data.length;
}

/** The snapshot, or undefined when there is none yet. */
export async function readSnapshot(path: string): Promise<StateFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw fileError('read', path, error);
  }
  const snapshot = parseStateFile(text, path, 0);
  // Written whole and renamed into place: a torn snapshot is damage, not an interrupted write.
  if (snapshot.tornTail !== undefined || snapshot.goodBytes === 0) {
    throw new InputError(
      `${path} is incomplete (${snapshot.tornTail ?? 'empty'}); the state is damaged`,
      {
        hint: 'start with another --state directory, or restore this one from a backup',
      },
    );
  }
  return snapshot;
}

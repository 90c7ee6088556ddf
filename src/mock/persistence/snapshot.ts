/**
 * A snapshot: the whole state as records (persistence/records.ts) in one file, written to a temporary
 * file, flushed and renamed over the old one, so a crash leaves the old snapshot or the new one.
 * Its header names its generation, id, the journal sequence number it covers and its record
 * count (integrity.ts).
 */
import { writeFileAtomic } from '../../common/files/atomic-write.js';
import { recordLine, type SnapshotHeader, snapshotHeaderLine } from './integrity.js';
import type { StateRecord } from './records.js';

/** Records serialised between two turns of the event loop, so requests keep being answered. */
const RECORDS_PER_TURN = 5_000;

export async function writeSnapshot(
  path: string,
  header: Omit<SnapshotHeader, 'records'>,
  records: readonly StateRecord[],
): Promise<number> {
  let bytes = 0;
  const counted = (text: string) => {
    bytes += Buffer.byteLength(text, 'utf8');
    return text;
  };
  // Written as it is made: a snapshot of hundreds of megabytes is never joined into one string
  // (joining and encoding it held the mock for as long as writing it).
  async function* text(): AsyncGenerator<string> {
    yield counted(snapshotHeaderLine({ ...header, records: records.length }));
    let lines: string[] = [];
    for (const [i, [kind, data, kept]] of records.entries()) {
      lines.push(recordLine(i + 1, kind, data, kept));
      if (lines.length >= RECORDS_PER_TURN) {
        yield counted(lines.join(''));
        lines = [];
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    yield counted(lines.join(''));
  }
  // Its errors name the file already.
  await writeFileAtomic(path, text());
  return bytes;
}

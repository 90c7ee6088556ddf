/**
 * Output written as it arrives: a listing's JSON, YAML or tab-separated rows, and any text made in
 * chunks, go out a chunk at a time and wait for a slow reader, so memory stays that of a page
 * however long the listing.
 */
import type { Writable } from 'node:stream';
import type { IOStreams } from './io.js';
import { type Column, tsvLine } from './render.js';

/** Text handed to the stream at once: big enough for few writes, small enough to stay flat. */
const WRITE_CHUNK = 1 << 16;

/**
 * The texts of items (`text` gives each one's), gathered as the items arrive into chunks of about
 * WRITE_CHUNK: a listing of any length never has to fit in one string. `empty` is the text when
 * there are no items, `end` comes after the last.
 */
export async function* chunked<T>(
  items: AsyncIterable<T>,
  text: (item: T, index: number) => string,
  { empty, end }: { empty: string; end: string },
): AsyncIterable<string> {
  let count = 0;
  let pending = '';
  for await (const item of items) {
    pending += text(item, count);
    count++;
    if (pending.length > WRITE_CHUNK) {
      yield pending;
      pending = '';
    }
  }
  const last = count === 0 ? empty : `${pending}${end}`;
  if (last.length > 0) yield last;
}

/**
 * Writes each chunk when the stream has taken the one before, so a slow reader holds the source
 * back instead of the output piling up in memory.
 */
export async function writeChunks(stream: Writable, chunks: AsyncIterable<string>): Promise<void> {
  for await (const chunk of chunks) await write(stream, chunk);
}

/** Items written one by one as they arrive (see `chunked`); returns how many. */
async function writeItems<T>(
  stream: Writable,
  items: AsyncIterable<T>,
  text: (item: T, index: number) => string,
  ends: { empty: string; end: string },
): Promise<number> {
  let count = 0;
  const counted = (item: T, index: number) => {
    count++;
    return text(item, index);
  };
  await writeChunks(stream, chunked(items, counted, ends));
  return count;
}

/**
 * A JSON array written item by item as the items arrive, formatted as JSON.stringify(items, null,
 * 2) would be, so a listing of millions of values never has to fit in one string.
 */
export function writeJsonArray(io: IOStreams, items: AsyncIterable<unknown>): Promise<number> {
  return writeItems(
    io.stdout,
    items,
    // Stringifying a one-item array indents the item one level, as it sits inside the list.
    (item, index) =>
      `${index === 0 ? '[\n' : ',\n'}${JSON.stringify([item], null, 2).slice(2, -2)}`,
    { empty: '[]\n', end: '\n]\n' },
  );
}

/**
 * A YAML sequence written item by item, as `renderView` would write the whole list: each item is
 * the one-item sequence of itself, and those sequences, one after the other, are the list.
 */
export async function writeYamlSequence(
  io: IOStreams,
  items: AsyncIterable<unknown>,
): Promise<number> {
  const { stringify } = await import('yaml');
  return writeItems(io.stdout, items, (item) => stringify([item], { lineWidth: 0 }), {
    empty: '[]\n',
    end: '',
  });
}

/** A piped table written row by row as the rows arrive: tab-separated lines, every column. */
export function writeTsvRows<T>(
  io: IOStreams,
  rows: AsyncIterable<T>,
  columns: Column<T>[],
): Promise<number> {
  return writeItems(io.stdout, rows, (row) => `${tsvLine(row, columns)}\n`, {
    empty: '',
    end: '',
  });
}

/** Writes and, when the stream's buffer is full, waits for it to drain (a slow reader on a pipe). */
function write(stream: Writable, text: string): Promise<void> {
  if (stream.write(text)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done).off('close', done).off('error', done);
      resolve();
    };
    stream.once('drain', done).once('close', done).once('error', done);
  });
}

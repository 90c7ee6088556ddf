import type { Writable } from 'node:stream';
import type { IOStreams } from './io.js';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

type Cell = string | number | boolean | null | undefined;

export interface Column<T> {
  header: string;
  value: (row: T) => Cell;
}

/** What a command hands to the renderer: the data for json/yaml and how to show it as a table. */
export type View<T = unknown> =
  | { kind: 'table'; data: unknown; rows: T[]; columns: Column<T>[] }
  | {
      kind: 'record';
      data: unknown;
      fields: [label: string, value: Cell][];
      /** A list that belongs to the record (a marking's values), shown after its fields. */
      list?: { title: string; columns: string[]; rows: Cell[][] };
    }
  | { kind: 'text'; data: unknown; text: string };

function cellText(value: Cell): string {
  if (value === null || value === undefined) return '';
  return String(value);
}

/** Tabs and newlines inside a cell would break tab-separated output and table columns. */
function flatCell(value: Cell): string {
  return cellText(value).replace(/[\t\r\n]+/g, ' ');
}

export async function renderView<T>(
  io: IOStreams,
  format: OutputFormat,
  view: View<T>,
): Promise<void> {
  if (format === 'json') {
    writeOut(io.stdout, `${JSON.stringify(view.data, null, 2)}\n`);
    return;
  }
  if (format === 'yaml') {
    const { stringify } = await import('yaml');
    writeOut(io.stdout, stringify(view.data, { lineWidth: 0 }));
    return;
  }
  switch (view.kind) {
    case 'text':
      writeOut(io.stdout, view.text.endsWith('\n') ? view.text : `${view.text}\n`);
      return;
    case 'record': {
      const { list } = view;
      if (!io.stdoutIsTTY) {
        // Piped: one `label<TAB>value` line per field, then one `title<TAB>cells…` line per item.
        const lines = view.fields.map(([k, v]) => `${k}\t${flatCell(v)}\n`);
        for (const row of list?.rows ?? [])
          lines.push(`${list!.title}\t${row.map(flatCell).join('\t')}\n`);
        writeOut(io.stdout, lines.join(''));
        return;
      }
      const width = Math.max(...view.fields.map(([k]) => k.length)) + 1;
      const lines = view.fields.map(([k, v]) => `${`${k}:`.padEnd(width)} ${cellText(v)}\n`);
      writeOut(io.stdout, lines.join(''));
      if (list && list.rows.length > 0) {
        writeOut(io.stdout, `\n${list.title}s:\n`);
        await renderTable(
          io,
          list.rows,
          list.columns.map((header, i) => ({ header, value: (row: Cell[]) => row[i] })),
        );
      }
      return;
    }
    case 'table':
      await renderTable(io, view.rows, view.columns);
      return;
  }
}

async function renderTable<T>(io: IOStreams, rows: T[], columns: Column<T>[]): Promise<void> {
  // Piped: tab-separated, no header, so `cut` and `awk` work (as gh does).
  if (!io.stdoutIsTTY) {
    const out = rows.map((row) => columns.map((c) => flatCell(c.value(row))).join('\t'));
    writeOut(io.stdout, out.length > 0 ? `${out.join('\n')}\n` : '');
    return;
  }
  const { default: Table } = await import('cli-table3');
  const chalk = io.color ? (await import('chalk')).default : undefined;
  const table = new Table({
    head: columns.map((c) => (chalk ? chalk.bold(c.header) : c.header)),
    style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': 2 },
    chars: {
      top: '',
      'top-mid': '',
      'top-left': '',
      'top-right': '',
      bottom: '',
      'bottom-mid': '',
      'bottom-left': '',
      'bottom-right': '',
      left: '',
      'left-mid': '',
      mid: '',
      'mid-mid': '',
      right: '',
      'right-mid': '',
      middle: '',
    },
  });
  for (const row of rows) table.push(columns.map((c) => flatCell(c.value(row))));
  writeOut(io.stdout, `${table.toString()}\n`);
}

export function writeOut(stream: Writable, text: string): void {
  if (text.length > 0) stream.write(text);
}

/** A message for people on stderr (never data). Suppressed by --quiet. */
export function say(io: IOStreams, quiet: boolean, text: string): void {
  if (!quiet) io.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * A JSON array written item by item as the items arrive, formatted as JSON.stringify(items, null,
 * 2) would be, so a listing of millions of values never has to fit in one string.
 */
export async function writeJsonArray(
  io: IOStreams,
  items: AsyncIterable<unknown>,
): Promise<number> {
  let count = 0;
  let pending = '';
  for await (const item of items) {
    // Stringifying a one-item array indents the item one level, as it sits inside the list.
    pending += `${count === 0 ? '[\n' : ',\n'}${JSON.stringify([item], null, 2).slice(2, -2)}`;
    count++;
    if (pending.length > 1 << 16) {
      await write(io.stdout, pending);
      pending = '';
    }
  }
  await write(io.stdout, count === 0 ? '[]\n' : `${pending}\n]\n`);
  return count;
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

/** "1 value", "3 values". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Names for a message, quoted: the first `limit`, then "… and N more" (never "and 1 more"). */
export function quotedNames(names: readonly string[], limit = 10): string {
  const shown = names.length <= limit + 1 ? names : names.slice(0, limit);
  const text = shown.map((name) => JSON.stringify(name)).join(', ');
  return shown.length < names.length ? `${text} … and ${names.length - shown.length} more` : text;
}

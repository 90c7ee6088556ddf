/**
 * The one place output is shaped: a command hands a view (a table, a record, text) and the
 * renderer writes a table, tab-separated rows, JSON or YAML, with terminal-aware times and widths.
 * A listing too long to hold is written as it arrives by src/client/output/streaming.ts.
 */
import type { Writable } from 'node:stream';
import type { IOStreams } from './io.js';
import { fill, messageWidth, proseWidth, wrapLines } from '../../common/text/wrap.js';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** A moment: relative on a terminal ("3 minutes ago"), ISO 8601 when piped. */
export interface Timestamp {
  /** Milliseconds since the epoch. */
  time: number;
  /** Who, shown after it ("by alice"). */
  by?: string;
}

export type Cell = string | number | boolean | null | undefined | Timestamp;

/** A time sent as ISO 8601, as a cell: relative on a terminal; text that is no time, as it is. */
export function isoCell(iso: string): Timestamp | string {
  const time = Date.parse(iso);
  return Number.isNaN(time) ? iso : { time };
}

export interface Column<T> {
  header: string;
  value: (row: T) => Cell;
  /** On a terminal, shown only with --wide (piped output always has every column). */
  wide?: boolean;
  /** Cut first when the table is too wide for the terminal (free text: descriptions). */
  flexible?: boolean;
  /**
   * Too wide for the terminal, the text goes on over lines inside its cell, never cut or left out
   * (a key's attributes: the very thing a command changed).
   */
  wrap?: boolean;
  /**
   * What a user types back (a name, an id): never cut; the other columns are cut, then left out,
   * to make room. Without any, a table's first column that is not free text is its identifier.
   */
  id?: boolean;
}

/** What a command hands to the renderer: the data for json/yaml and how to show it as a table. */
export type View<T = unknown> =
  | {
      kind: 'table';
      data: unknown;
      rows: T[];
      columns: Column<T>[];
      /** Said on stderr when a terminal would otherwise show an empty table ("no markings"). */
      empty?: string;
    }
  | {
      kind: 'record';
      data: unknown;
      fields: [label: string, value: Cell][];
      /** A list that belongs to the record (a marking's values), shown after its fields. */
      list?: { title: string; columns: string[]; rows: Cell[][] };
    }
  | { kind: 'text'; data: unknown; text: string };

/** A view of rows (a listing). */
export type TableView<T> = Extract<View<T>, { kind: 'table' }>;

export interface RenderOptions {
  /** Tables show every cell in full, however wide the terminal. */
  wide?: boolean;
  /** Now, for relative times (tests fix it). */
  now?: number;
  /** --quiet: no note that a table was cut to fit. */
  quiet?: boolean;
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const UNITS: [limitSeconds: number, seconds: number, unit: string][] = [
  [3600, 60, 'minute'],
  [86_400, 3600, 'hour'],
  [30 * 86_400, 86_400, 'day'],
  [365 * 86_400, 30 * 86_400, 'month'],
  [Infinity, 365 * 86_400, 'year'],
];

/** "just now", "3 minutes ago", "2 days ago"; a time ahead (a clock off) is shown as it is. */
export function relativeTime(ms: number, now: number): string {
  const seconds = Math.round((now - ms) / 1000);
  if (seconds < -60) return isoTime(ms);
  if (seconds < 60) return 'just now';
  for (const [limit, size, unit] of UNITS) {
    if (seconds < limit) {
      const count = Math.max(1, Math.floor(seconds / size));
      return `${count} ${unit}${count === 1 ? '' : 's'} ago`;
    }
  }
  return isoTime(ms);
}

function isTimestamp(value: Cell): value is Timestamp {
  return typeof value === 'object' && value !== null;
}

function cellText(value: Cell, relativeTo?: number): string {
  if (value === null || value === undefined) return '';
  if (isTimestamp(value)) {
    const when =
      relativeTo === undefined ? isoTime(value.time) : relativeTime(value.time, relativeTo);
    return value.by === undefined ? when : `${when} by ${value.by}`;
  }
  return String(value);
}

/** Tabs and newlines inside a cell would break tab-separated output and table columns. */
function flatCell(value: Cell, relativeTo?: number): string {
  return cellText(value, relativeTo).replace(/[\t\r\n]+/g, ' ');
}

export async function renderView<T>(
  io: IOStreams,
  format: OutputFormat,
  view: View<T>,
  options: RenderOptions = {},
): Promise<void> {
  const now = io.stdoutIsTTY ? (options.now ?? Date.now()) : undefined;
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
      const lines = view.fields.map(
        ([k, v]) => `${fieldLines(`${`${k}:`.padEnd(width)} `, cellText(v, now), io.columns)}\n`,
      );
      writeOut(io.stdout, lines.join(''));
      if (list && list.rows.length > 0) {
        writeOut(io.stdout, `\n${list.title}s:\n`);
        await renderTable(
          io,
          list.rows,
          list.columns.map((header, i) => ({
            header,
            value: (row: Cell[]) => row[i],
            // The last column of a record's list is its free text (descriptions).
            flexible: i === list.columns.length - 1,
          })),
          options,
        );
      }
      return;
    }
    case 'table':
      await renderTable(io, view.rows, view.columns, options);
      return;
  }
}

/**
 * A record's field on a terminal: its value after `label`, broken between words to the terminal's
 * width with each further line under the value (`status`'s profile line names a long path).
 */
function fieldLines(label: string, value: string, columns: number): string {
  const width = proseWidth(columns);
  // A word too long for the value's column (a path) hangs less deep.
  const longest = Math.max(...value.split(/\s+/).map((word) => word.length));
  const hang = label.length + longest <= width ? ' '.repeat(label.length) : '  ';
  return value
    .split('\n')
    .map((line, i) => {
      const first = i === 0 ? label : hang;
      // A line that fits keeps its spacing.
      if (first.length + line.length <= width) return first + line;
      return fill(line, width, { first, rest: hang }).join('\n');
    })
    .join('\n');
}

const GAP = 2;
const ELLIPSIS = '…';
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** How many terminal columns a text takes (a CJK character two, a combining accent none). */
type WidthOf = (text: string) => number;

/** A cell cut to `width` columns, whole characters only, its end replaced by an ellipsis. */
function cut(text: string, width: number, widthOf: WidthOf): string {
  if (widthOf(text) <= width) return text;
  if (PRINTABLE_ASCII.test(text)) return `${text.slice(0, Math.max(0, width - 1))}${ELLIPSIS}`;
  let kept = '';
  let used = 0;
  for (const { segment } of new Intl.Segmenter().segment(text)) {
    const segmentWidth = widthOf(segment);
    if (used + segmentWidth > width - 1) break;
    kept += segment;
    used += segmentWidth;
  }
  return `${kept}${ELLIPSIS}`;
}

/** A wrapping column is not narrowed below this (or its header). */
const WRAP_MIN_WIDTH = 12;

/**
 * A cell's text on lines of at most `width` columns, broken after spaces; a word longer than the
 * width is broken where it reaches it.
 */
function wrapCell(text: string, width: number, widthOf: WidthOf): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/(?<= )/)) {
    if (line !== '' && widthOf(`${line}${word}`.trimEnd()) > width) {
      lines.push(line.trimEnd());
      line = '';
    }
    line += word;
    while (widthOf(line.trimEnd()) > width) {
      let head = '';
      for (const { segment } of new Intl.Segmenter().segment(line)) {
        if (head !== '' && widthOf(head + segment) > width) break;
        head += segment;
      }
      lines.push(head);
      line = line.slice(head.length);
    }
  }
  if (line.trimEnd() !== '' || lines.length === 0) lines.push(line.trimEnd());
  return lines;
}

/** A cell padded with spaces to `width` columns. */
function pad(text: string, width: number, widthOf: WidthOf): string {
  return text + ' '.repeat(Math.max(0, width - widthOf(text)));
}

/**
 * Column widths that fit `available` characters: the widest flexible column gives up a character
 * at a time, then the widest of any, none below its minimum.
 */
export function fitWidths(
  natural: number[],
  minimum: number[],
  available: number,
  flexible: boolean[] = [],
): number[] {
  const widths = [...natural];
  let total = widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1);
  for (const onlyFlexible of [true, false]) {
    while (total > available) {
      let widest = -1;
      for (let i = 0; i < widths.length; i++) {
        if (onlyFlexible && flexible[i] !== true) continue;
        if (widths[i]! > minimum[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
      }
      if (widest < 0) break;
      widths[widest]! -= 1;
      total -= 1;
    }
  }
  return widths;
}

/** One row of a piped table: every column, tab-separated. */
export function tsvLine<T>(row: T, columns: Column<T>[]): string {
  return columns.map((c) => flatCell(c.value(row))).join('\t');
}

async function renderTable<T>(
  io: IOStreams,
  rows: T[],
  allColumns: Column<T>[],
  options: RenderOptions,
): Promise<void> {
  // Piped: tab-separated, no header, so `cut` and `awk` work (as gh does), every column.
  if (!io.stdoutIsTTY) {
    const out = rows.map((row) => tsvLine(row, allColumns));
    writeOut(io.stdout, out.length > 0 ? `${out.join('\n')}\n` : '');
    return;
  }
  let columns = options.wide ? allColumns : allColumns.filter((c) => c.wide !== true);
  const now = options.now ?? Date.now();
  const identifies = (c: Column<T>) =>
    columns.some((other) => other.id === true)
      ? c.id === true
      : c === columns.find((other) => other.flexible !== true);
  const ids = new Set(columns.filter(identifies));
  // Widths in terminal columns, by grapheme cluster: CJK and emoji take two, accents none. Text
  // of printable ASCII only is as wide as it is long, and spares loading the measure.
  const measured = columns;
  const allCells = rows.map((row) => measured.map((c) => flatCell(c.value(row), now)));
  const ascii = allCells.every((row) => row.every((cell) => PRINTABLE_ASCII.test(cell)));
  const [widthOf, chalk] = await Promise.all([
    ascii ? (text: string) => text.length : import('string-width').then((m) => m.default),
    io.color ? import('chalk').then((m) => m.default) : undefined,
  ]);
  let widths: number[] = [];
  let cells: string[][] = [];
  let headers: string[] = [];
  let dropped = false;
  for (;;) {
    // The cells of the columns still shown, as made once above.
    const kept = columns.map((c) => measured.indexOf(c));
    cells = allCells.map((row) => kept.map((i) => row[i]!));
    headers = columns.map((c) => c.header);
    const natural = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => widthOf(r[i]!))));
    if (options.wide) {
      widths = natural;
      break;
    }
    // One column short of the width: a line that fills the terminal exactly wraps on some.
    const available = io.columns - 1;
    const flexible = columns.map((c) => c.flexible === true || c.wrap === true);
    // Free text is cut first; a short column cut ("just n…") says nothing, so one is left out
    // (free text first, then from the right) before any other is cut; identifiers never are,
    // and a column that wraps is only narrowed, to no less than a short word.
    const spare = [...columns]
      .reverse()
      .sort((a, b) => Number(b.flexible === true) - Number(a.flexible === true));
    const drop = spare.find((c) => !ids.has(c) && c.wrap !== true);
    const least = columns.map((c, i) =>
      c.wrap === true
        ? Math.min(natural[i]!, Math.max(headers[i]!.length, WRAP_MIN_WIDTH))
        : ids.has(c) || (drop !== undefined && !flexible[i])
          ? natural[i]!
          : Math.max(headers[i]!.length, 3),
    );
    widths = fitWidths(natural, least, available, flexible);
    const total = widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1);
    if (total <= available || drop === undefined) {
      if (widths.some((w, i) => w < natural[i]! && columns[i]!.wrap !== true)) dropped = true;
      break;
    }
    columns = columns.filter((c) => c !== drop);
    dropped = true;
  }
  const line = (texts: string[], style?: (t: string) => string) =>
    texts
      .map((t, i) => {
        const text = cut(t, widths[i]!, widthOf);
        const padded = i === texts.length - 1 ? text : pad(text, widths[i]! + GAP, widthOf);
        return style ? style(padded) : padded;
      })
      .join('')
      .trimEnd();
  // A row whose wrapping cells take several lines: the other cells on its first line only.
  const rowLines = (row: string[]): string[] => {
    const parts = row.map((t, i) =>
      columns[i]!.wrap === true ? wrapCell(t, widths[i]!, widthOf) : [t],
    );
    const height = Math.max(...parts.map((p) => p.length));
    return Array.from({ length: height }, (_, k) => line(parts.map((p) => p[k] ?? '')));
  };
  const out = [line(headers, chalk?.bold), ...cells.flatMap(rowLines)];
  writeOut(io.stdout, `${out.join('\n')}\n`);
  if (dropped && io.stderrIsTTY && options.quiet !== true) {
    io.stderr.write('(cut to fit the terminal: --wide shows every column in full)\n');
  }
}

export function writeOut(stream: Writable, text: string): void {
  if (text.length > 0) stream.write(text);
}

/**
 * A report for people on stdout (what `mock state check` found), between words: to the
 * terminal's width, or in a pipe or a log to 80 columns (or COLUMNS).
 */
export function writeReport(io: IOStreams, lines: string[]): void {
  const width = io.stdoutIsTTY ? proseWidth(io.columns) : Math.max(20, io.columns);
  writeOut(io.stdout, `${wrapLines(lines.join('\n'), width)}\n`);
}

/** A message for people on stderr (never data). Suppressed by --quiet. */
export function say(io: IOStreams, quiet: boolean, text: string): void {
  if (quiet) return;
  // Between words, to the terminal's width, or in a pipe or a log to 80 columns (or COLUMNS).
  const shown = wrapLines(text.replace(/\n$/, ''), messageWidth(io));
  io.stderr.write(shown.endsWith('\n') ? shown : `${shown}\n`);
}

/** Sorts rows by name, by code point (as the service orders names). */
export function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Prose to the width of the terminal: help pages, the mock's banner, the demo, hints. One helper,
 * so every text breaks the same way: between words only, to `min(columns, 100)` (longer lines are
 * hard to read even where they fit), with a hanging indent for items and a ` \` where a command
 * line breaks, so it still runs when copied. A word longer than the width stays whole, on a line
 * of its own.
 */

/** Lines of prose never run longer than this, however wide the terminal. */
export const PROSE_MAX_WIDTH = 100;

/** A description column narrower than this reads badly: the item goes under its term instead. */
const MIN_DESCRIPTION_WIDTH = 24;

export function proseWidth(columns: number): number {
  return Math.max(20, Math.min(columns, PROSE_MAX_WIDTH));
}

/**
 * The width of messages on stderr: the terminal's, at most 100 columns (longer lines read badly);
 * in a pipe or a log, what COLUMNS says, else 80 (`columns` holds it: see terminalColumns).
 */
export function messageWidth(io: { stderrIsTTY: boolean; columns: number }): number {
  return io.stderrIsTTY ? proseWidth(io.columns) : Math.max(20, io.columns);
}

export interface FillOptions {
  /** Before the first line. */
  first?: string;
  /** Before every other line. */
  rest?: string;
  /** At the end of every line but the last (` \` for a shell command). */
  carry?: string;
}

/** The words of `text` on lines of at most `width` characters, broken between words only. */
export function fill(text: string, width: number, options: FillOptions = {}): string[] {
  return fillWords(
    text.split(/\s+/).filter((w) => w !== ''),
    width,
    options,
  );
}

/** Words (a shell command's: quoted strings whole) on lines of at most `width` characters. */
function fillWords(words: string[], width: number, options: FillOptions): string[] {
  const { first = '', rest = first, carry = '' } = options;
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of words) {
    if (!empty && line.length + 1 + word.length + carry.length > width) {
      lines.push(line + carry);
      line = rest + word;
    } else {
      line += empty ? word : ` ${word}`;
    }
    empty = false;
  }
  lines.push(line);
  return lines;
}

/** Paragraphs (separated by blank lines) filled to `width`; each keeps its own indentation. */
export function wrapProse(text: string, width: number): string {
  return text
    .split(/\n[ \t]*\n/)
    .map((paragraph) => {
      const indent = /^[ \t]*/.exec(paragraph)![0];
      return fill(paragraph, width, { first: indent }).join('\n');
    })
    .join('\n\n');
}

/**
 * Lines of a message for people, each filled to `width` with its continuation under its text (a
 * `hint: ` or `error: ` label keeps its text in one column).
 */
export function wrapLines(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => {
      // A line that fits keeps its spacing (aligned columns).
      if (line.length <= width) return line;
      // A label ("hint: ", "  Dev token:       ") keeps its text in one column.
      const lead = /^( *)(?:[A-Za-z][A-Za-z ]{0,20}: +)?/.exec(line)!;
      const labelled = lead[0].length > lead[1]!.length;
      // A word too long for the label's column (a device's conversation id) hangs less deep.
      const longest = Math.max(
        ...line
          .slice(lead[0].length)
          .split(/\s+/)
          .map((w) => w.length),
      );
      const underLabel =
        labelled && lead[0].length <= width / 2 && lead[0].length + longest <= width;
      const hang = underLabel ? lead[0].length : lead[1]!.length + 2;
      return fill(line, width, { first: lead[1], rest: ' '.repeat(hang) }).join('\n');
    })
    .join('\n');
}

/** How a word breaks across lines: what ends the line, what begins the next. */
const BREAKS = {
  single: { close: "'\\", open: "'" },
  double: { close: '"\\', open: '"' },
  plain: { close: '\\', open: '' },
} as const;
type BreakKind = keyof typeof BREAKS;

/**
 * Where a shell word may be broken across lines and stay the same word: inside single quotes, as
 * `'…'\` then `'…` (the quotes closed, the newline escaped, the quotes opened again); inside
 * double quotes before a space, the same way (never inside a `$NAME`); or between plain
 * characters, as `…\` then `…`. Every continuation starts in the first column: spaces there would
 * end the word. `kinds[i]` says how the word may break before its character i.
 */
function wordBreaks(word: string): (BreakKind | undefined)[] {
  const PLAIN = /[\w/:.,=%+@-]/;
  const kinds: (BreakKind | undefined)[] = [];
  let single = false;
  let double = false;
  let escaped = false;
  for (let i = 0; i <= word.length; i++) {
    const c = word[i];
    const before = word[i - 1];
    if (i > 0 && i < word.length) {
      if (single) kinds[i] = 'single';
      else if (double && !escaped && c === ' ') kinds[i] = 'double';
      else if (!double && !escaped && PLAIN.test(before!) && PLAIN.test(c!)) kinds[i] = 'plain';
    }
    if (c === undefined) break;
    if (single) single = c !== "'";
    else if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (double) double = c !== '"';
    else if (c === "'") single = true;
    else if (c === '"') double = true;
  }
  return kinds;
}

/**
 * A word too long for any line, in pieces: the first within `first` columns, the others within
 * `room` (each but the last ends with its continuation); the last leaves room for a ` \`.
 * Undefined when not even the first piece fits in `first`.
 */
function splitWord(
  word: string,
  first: number,
  room: number,
  measure?: Measure,
): string[] | undefined {
  const kinds = wordBreaks(word);
  // By grapheme, each as wide as it shows, where the word is not printable ASCII.
  const plain = measure === undefined || PRINTABLE_ASCII.test(word);
  const units = plain
    ? word.split('')
    : Array.from(new Intl.Segmenter().segment(word), (part) => part.segment);
  const sizes = plain ? units.map(() => 1) : units.map(measure);
  // Where each unit starts in the word, and the columns before it.
  const offsets: number[] = [];
  const before: number[] = [0];
  for (let u = 0, at = 0; u < units.length; u++) {
    offsets.push(at);
    at += units[u]!.length;
    before.push(before[u]! + sizes[u]!);
  }
  const pieces: string[] = [];
  let start = 0;
  let open = '';
  let available = first;
  for (;;) {
    if (open.length + before[units.length]! - before[start]! + 2 <= available) {
      pieces.push(open + units.slice(start).join(''));
      return pieces;
    }
    let best: number | undefined;
    for (let b = start + 1; b < units.length; b++) {
      const used = open.length + before[b]! - before[start]!;
      if (used + 1 > available) break;
      const kind = kinds[offsets[b]!];
      if (kind !== undefined && used + BREAKS[kind].close.length <= available) best = b;
    }
    if (best === undefined) {
      if (pieces.length === 0) return undefined;
      pieces.push(open + units.slice(start).join(''));
      return pieces;
    }
    const kind = BREAKS[kinds[offsets[best]!]!];
    pieces.push(open + units.slice(start, best).join('') + kind.close);
    open = kind.open;
    start = best;
    available = room;
  }
}

/**
 * A command line someone may copy: broken with ` \` between words and indented under itself.
 * With `split`, a word longer than a line (a request's body) is broken inside too, its
 * continuations in the first column, so the shell still reads the same word.
 */
export function wrapCommand(
  line: string,
  width: number,
  options: {
    /** An option and its argument (`-H 'accept: …'`) stay on one line. */
    pairs?: boolean;
    /** A word longer than a line is broken inside (else it runs past the width, whole). */
    split?: boolean;
    /** Columns of text that is not ASCII (a body in Japanese takes two a character). */
    measure?: Measure;
  } = {},
): string[] {
  const cols = (text: string) => columnsOf(text, options.measure);
  if (cols(line) <= width) return [line];
  const indent = /^ */.exec(line)![0];
  const rest = `${indent}    `;
  // A word: plain characters, escaped ones (`\'`), quoted strings.
  const words = line.match(/(?:\\[^]|[^\s'"\\]+|'[^']*'|"(?:[^"\\]|\\.)*")+/g) ?? [];
  // (unless the two are too long for a line together: then each is a word as any other).
  if (options.pairs) {
    for (let i = 0; i < words.length - 1; i++) {
      const pair = `${words[i]!} ${words[i + 1]!}`;
      if (
        /^--?[A-Za-z]/.test(words[i]!) &&
        !/^(-|\|)/.test(words[i + 1]!) &&
        rest.length + cols(pair) + 2 <= width
      ) {
        words.splice(i, 2, pair);
      }
    }
  }
  const lines: string[] = [];
  let current = indent;
  let empty = true;
  for (const word of words) {
    const gap = empty ? '' : ' ';
    if (cols(current) + gap.length + cols(word) + 2 <= width) {
      current += gap + word;
    } else if (!empty && rest.length + cols(word) + 2 <= width) {
      lines.push(`${current} \\`);
      current = rest + word;
    } else {
      // Too long for a line of its own: begun where it is when a fair part fits there.
      const split = (room: number) =>
        options.split ? splitWord(word, room, width, options.measure) : undefined;
      let pieces = split(width - cols(current) - gap.length);
      if (!empty && (pieces === undefined || pieces[0]!.length < 16)) {
        lines.push(`${current} \\`);
        current = rest;
        pieces = split(width - rest.length);
      } else {
        current += gap;
      }
      if (pieces === undefined || pieces.length === 1) {
        current += word;
      } else {
        lines.push(current + pieces[0]!, ...pieces.slice(1, -1));
        current = pieces.at(-1)!;
      }
    }
    empty = false;
  }
  lines.push(current);
  return lines;
}

/** How many terminal columns a text takes (string-width: CJK two, accents none). */
export type Measure = (text: string) => number;

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** The columns a line takes: its length when printable ASCII, else as `measure` says. */
export function columnsOf(line: string, measure?: Measure): number {
  return measure === undefined || PRINTABLE_ASCII.test(line) ? line.length : measure(line);
}

/**
 * A line of data for reading (a header, a line of pretty JSON) within `width`: broken at its last
 * space that fits, else after a separator, else inside a word; each continuation starts at column
 * `hang`, under the value it continues. With a `measure`, widths are terminal columns, by
 * grapheme cluster (for text that is not all ASCII). The characters are all there, in order, but
 * for the spaces the lines break at.
 */
export function foldLine(line: string, width: number, hang: number, measure?: Measure): string[] {
  // Printable ASCII is as wide as it is long: measured by grapheme only where it is not.
  const plain = measure === undefined || PRINTABLE_ASCII.test(line);
  if ((plain ? line.length : measure(line)) <= width) return [line];
  // At least 20 columns for each continuation, however deep the value starts.
  const pad = ' '.repeat(Math.max(0, Math.min(hang, width - 20)));
  const units = plain
    ? line.split('')
    : Array.from(new Intl.Segmenter().segment(line), (part) => part.segment);
  const sizes = plain ? units.map(() => 1) : units.map(measure);
  // Spaces before the hang (between a key and its value) or in the indentation are no place to
  // break the first line at.
  const firstText = Math.max(/^ */.exec(line)![0].length + 1, pad.length);
  const lines: string[] = [];
  let start = 0;
  let lead = '';
  for (;;) {
    const room = width - lead.length;
    let end = start;
    for (let used = 0; end < units.length && used + sizes[end]! <= room; end++) used += sizes[end]!;
    if (end === units.length) break;
    const from = start + (lead === '' ? firstText : 1);
    let space = end;
    while (space >= from && units[space] !== ' ') space--;
    if (space >= from) {
      lines.push(lead + units.slice(start, space).join(''));
      start = space + 1;
    } else {
      // Else after a separator in the second half of the line (a cid's `|`, a path's `/`), else
      // wherever the line is full.
      let after = end;
      while (after > start && !'|/,&;'.includes(units[after - 1]!)) after--;
      const cut = after > start + Math.max(from - start, (end - start) / 2) ? after : end;
      // A character wider than the room still goes somewhere.
      const next = Math.max(cut, start + 1);
      lines.push(lead + units.slice(start, next).join(''));
      start = next;
    }
    lead = pad;
  }
  lines.push(lead + units.slice(start).join(''));
  return lines;
}

const isCommand = (text: string) => /^(\$ )?ksctl\b|^(eval|source|export) /.test(text);

/** Two columns: a term, at least two spaces, a description starting at `column`. */
const ITEM = /^( +)(\S(?:\S| (?! ))*) {2,}(\S.*)$/;

interface Item {
  indent: string;
  term: string;
  column: number;
  description: string;
}

/**
 * A text laid out for one width (commander's help, hand-written notes under it) laid out again for
 * another: lines of prose that run on are joined and filled; items of two columns keep their
 * columns while the description has room (else it goes under the term), their continuation lines
 * joined with them; indented command lines break with ` \`. A line ending with `:` is a heading.
 */
export function reflow(text: string, width: number): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let prose: string[] = [];
  let items: Item[] = [];
  const flushProse = () => {
    if (prose.length > 0) out.push(...fill(prose.join(' '), width));
    prose = [];
  };
  const flushItems = () => {
    if (items.length === 0) return;
    const stacked = items.some((item) => width - item.column < MIN_DESCRIPTION_WIDTH);
    for (const item of items) {
      const term = `${item.indent}${item.term}`;
      if (stacked || term.length + 2 > item.column) {
        out.push(
          ...(isCommand(item.term)
            ? wrapCommand(term, width)
            : fill(item.term, width, { first: item.indent, rest: `${item.indent}  ` })),
        );
        const under = `${item.indent}    `;
        out.push(...fill(item.description, width, { first: under }));
      } else {
        const pad = ' '.repeat(item.column);
        const filled = fill(item.description, width, { first: pad });
        filled[0] = term.padEnd(item.column) + filled[0]!.slice(item.column);
        out.push(...filled);
      }
    }
    items = [];
  };
  for (const line of lines) {
    const indent = /^ */.exec(line)![0].length;
    const last = items.at(-1);
    if (line.trim() === '') {
      flushProse();
      flushItems();
      out.push('');
    } else if (last !== undefined && indent === last.column) {
      last.description += ` ${line.trim()}`;
    } else if (indent === 0) {
      flushItems();
      prose.push(line);
      if (line.endsWith(':')) flushProse();
    } else {
      flushProse();
      const item = ITEM.exec(line);
      if (item) {
        items.push({
          indent: item[1]!,
          term: item[2]!,
          column: line.length - item[3]!.length,
          description: item[3]!,
        });
      } else {
        flushItems();
        const text = line.trimStart();
        out.push(
          ...(isCommand(text)
            ? wrapCommand(line, width)
            : fill(text, width, { first: ' '.repeat(indent), rest: ' '.repeat(indent + 2) })),
        );
      }
    }
  }
  flushProse();
  flushItems();
  return out.join('\n');
}

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

/** A command line someone may copy: broken with ` \` and indented under itself. */
export function wrapCommand(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const indent = /^ */.exec(line)![0];
  // A break inside quotes would put the backslash and newline into the argument.
  const words = line.match(/(?:[^\s'"]+|'[^']*'|"(?:[^"\\]|\\.)*")+/g) ?? [];
  return fillWords(words, width, { first: indent, rest: `${indent}    `, carry: ' \\' });
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

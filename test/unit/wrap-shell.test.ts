/**
 * A command line broken to a width is the same command: a shell given the broken lines runs the
 * same program with the same arguments, byte for byte, for generated commands with quoted bodies
 * longer than any line; and a line of data folded to a width keeps every character in order.
 */
import { execFileSync } from 'node:child_process';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { foldLine, wrapCommand } from '../../src/common/text/wrap.js';

/** A small seeded generator, so a failure names a case that comes back. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function generated(next: () => number): string {
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)]!;
  const text = (length: number) =>
    Array.from({ length }, () =>
      pick([
        ...'abcdefghijklmnopqrstuvwxyzABCDEF0123456789+/=|:.-_ ',
        "'",
        '"',
        '\\',
        '$',
        '{',
        '}',
        '機',
        'é',
      ]),
    ).join('');
  const words = [
    'curl',
    '-X',
    'POST',
    `http://127.0.0.1:${1024 + Math.floor(next() * 60000)}/v2.4/keys/create`,
  ];
  const count = 1 + Math.floor(next() * 6);
  for (let i = 0; i < count; i++) {
    words.push(pick(['-H', '--data-binary', '--cacert']));
    words.push(quote(text(Math.floor(next() * (next() < 0.3 ? 900 : 60)))));
  }
  if (next() < 0.5) words.push('-H', '"Authorization: Bearer $KSCTL_TOKEN"');
  if (next() < 0.5) words.push('|', 'ksctl', 'api', 'POST', '/markings', '--input', '-');
  return words.join(' ');
}

/** What the shell makes of a command: each argument of each program, NUL-terminated. */
function argv(command: string): string {
  const script = `args() { printf '<%s>\\n' "$0"; for a in "$@"; do printf '%s\\0' "$a"; done; }
curl() { printf 'curl'; args "$@"; }
ksctl() { printf 'ksctl'; cat; args "$@"; }
${command}`;
  return execFileSync('sh', ['-c', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, KSCTL_TOKEN: 'the-token' },
  });
}

describe('a command broken to the width', () => {
  it('runs as the same command, every line within the width', { timeout: 60_000 }, () => {
    const next = random(33);
    for (let i = 0; i < 60; i++) {
      const line = `  ${generated(next)}`;
      for (const width of [80, 40]) {
        const lines = wrapCommand(line, width, {
          pairs: i % 2 === 0,
          split: true,
          measure: stringWidth,
        });
        const label = `case ${i} at ${width}:\n${lines.join('\n')}`;
        expect(
          lines.filter((l) => stringWidth(l) > width),
          label,
        ).toEqual([]);
        expect(argv(lines.join('\n')), label).toBe(argv(line));
      }
    }
  });

  it('keeps an option with its argument and breaks a long body inside its quotes', () => {
    const body = JSON.stringify({ envelope: 'E5GgbJU27QTQTUmtdA/kBgRL+fPqKDTf'.repeat(8) });
    const line = `curl -X POST http://127.0.0.1:8080/v2.4/keys/create -H 'accept: application/json' --data-binary ${quote(body)}`;
    const lines = wrapCommand(line, 80, { pairs: true, split: true });
    expect(lines[0]).toBe('curl -X POST http://127.0.0.1:8080/v2.4/keys/create \\');
    expect(lines[1]).toMatch(/^ {4}-H 'accept: application\/json' --data-binary '\{"envelope/);
    // The body's continuations start in the first column: spaces there would end the word.
    expect(lines.slice(2).every((l) => l.startsWith("'"))).toBe(true);
    expect(argv(lines.join('\n'))).toBe(argv(line));
  });
});

describe('a line of data folded to the width', () => {
  it('counts the columns a character takes where a measure is given', () => {
    const line = `      "description": "${'機密区分は、すべての文書に適用されます。'.repeat(6)} and some ASCII",`;
    for (const width of [80, 41, 20]) {
      const lines = foldLine(line, width, 22, stringWidth);
      expect(
        lines.filter((l) => stringWidth(l) > width),
        `at ${width}`,
      ).toEqual([]);
      expect(
        lines
          .map((l, n) => (n === 0 ? l : l.trimStart()))
          .join('')
          .replace(/ /g, ''),
      ).toBe(line.replace(/ /g, ''));
    }
    // Without one, a character is one column: the lines are far too wide.
    expect(Math.max(...foldLine(line, 80, 22).map((l) => stringWidth(l)))).toBeGreaterThan(80);
  });

  it('goes on under its value, every character kept but the spaces it breaks at', () => {
    const next = random(7);
    for (let i = 0; i < 200; i++) {
      const key = 'k'.repeat(Math.floor(next() * 30));
      const value = Array.from({ length: Math.floor(next() * 600) }, () =>
        next() < 0.15 ? ' ' : String.fromCharCode(97 + Math.floor(next() * 26)),
      ).join('');
      const line = `${' '.repeat(Math.floor(next() * 12))}"${key}": "${value}",`;
      const hang = line.indexOf('": "') + 4;
      for (const width of [80, 40, 20]) {
        const lines = foldLine(line, width, hang);
        expect(
          lines.filter((l) => l.length > width),
          `case ${i}`,
        ).toEqual([]);
        const rejoined = lines.map((l, n) => (n === 0 ? l : l.trimStart())).join('');
        expect(rejoined.replace(/ /g, ''), `case ${i}`).toBe(line.replace(/ /g, ''));
      }
    }
    expect(
      foldLine(
        '      "description": "Data classification level for every document we keep",',
        40,
        22,
      ),
    ).toEqual([
      '      "description": "Data',
      // A hang of 22 would leave 18 columns: it keeps 20.
      '                    classification level',
      '                    for every document',
      '                    we keep",',
    ]);
  });
});

/**
 * The code stays in pieces a reader can hold: no file in src/ or console/ over 500 lines, and no
 * function in console/assets/ (declaration, expression, arrow or method) over 80 lines, measured
 * on the syntax tree from its first line to its last.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';

const CONSOLE = join(ROOT, 'console');
const SRC = join(ROOT, 'src');
const MAX_FILE_LINES = 500;
const MAX_FUNCTION_LINES = 80;

/** Every file under a folder, its path relative to the package. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(join(dir, entry.name))
      : [relative(ROOT, join(dir, entry.name)).split('\\').join('/')],
  );
}

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** "file:line name (n lines)" for each function of a script longer than `max` lines. */
function longFunctions(file: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const long: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      const name = node.name && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)';
      if (lines > max) long.push(`${file}:${first + 1} ${name} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return long;
}

const files = filesUnder(CONSOLE);
const sources = filesUnder(SRC).filter((f) => f.endsWith('.ts'));
const scripts = files.filter((f) => /^console\/assets\/.*\.js$/.test(f));

describe('the size of files and functions', () => {
  it('has its scripts where this test looks', () => {
    expect(scripts).toContain('console/assets/app.js');
  });

  it(`has no file in console/ over ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .filter((f) => /\.(js|css|html)$/.test(f))
      .map((f) => ({ f, lines: lineCount(readFileSync(join(ROOT, f), 'utf8')) }))
      .filter(({ lines }) => lines > MAX_FILE_LINES)
      .map(({ f, lines }) => `${f} (${lines} lines)`);
    expect(long).toEqual([]);
  });

  it(`has no file in src/ over ${MAX_FILE_LINES} lines`, () => {
    expect(sources).toContain('src/client/cli/main.ts');
    const long = sources
      .map((f) => ({ f, lines: lineCount(readFileSync(join(ROOT, f), 'utf8')) }))
      .filter(({ lines }) => lines > MAX_FILE_LINES)
      .map(({ f, lines }) => `${f} (${lines} lines)`);
    expect(long).toEqual([]);
  });

  it(`has no function in console/ over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = scripts.flatMap((f) =>
      longFunctions(f, readFileSync(join(ROOT, f), 'utf8'), MAX_FUNCTION_LINES),
    );
    expect(long).toEqual([]);
  });

  it('measures a function from its first line to its last', () => {
    const body = Array.from({ length: 79 }, (_, i) => `  const a${i} = ${i};`).join('\n');
    expect(longFunctions('a.js', `function f() {\n${body}\n}\n`, 80)).toEqual([
      'a.js:1 f (81 lines)',
    ]);
    expect(longFunctions('a.js', `const g = () => {\n${body}\n};\n`, 81)).toEqual([]);
  });
});

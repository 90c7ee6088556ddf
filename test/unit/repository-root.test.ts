/**
 * A clone passes its tests with nothing beside it: no source, test, script or benchmark reads
 * above the repository's root (a folder of fixtures next to the checkout is in nobody's clone).
 * A static scan of every file of those folders, this one included, for:
 * - the sibling folder named shared, which the project was once fed from;
 * - a relative path that climbs more parent steps than the file sits deep (three from
 *   test/unit, as a string or as separate arguments of join), counted from the file's folder;
 * - a parent step from the root itself (resolve or join of ROOT and a parent step, dirname of
 *   ROOT, ROOT in a template followed by a parent step).
 * The patterns this file looks for are spelled out below only as regular expressions or put
 * together at run time, so that the scan of this file finds nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';

const SCANNED = ['src', 'test', 'scripts', 'bench', 'bin', '.ci'];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : files(path);
    return /\.(pt|pw)$/.test(entry.name) ? [] : [path];
  });
}

const DOTS = String.raw`\.\.`;
const DOTS_TEXT = '..';
/** `..` steps joined by slashes or by `', '` between arguments, and no part of `...`. */
const CLIMB = new RegExp(
  String.raw`(?<![.\w])${DOTS}(?:(?:[/\\]|['"\x60]\s*,\s*['"\x60])${DOTS})*(?![.\w])`,
  'g',
);
const SIBLING = new RegExp(String.raw`${DOTS}[/\\]+shared\b`);
/** A name that holds the repository's root, and a step above it. */
const ROOT_NAME = String.raw`\b(?:ROOT|root|repoRoot|REPO_ROOT|repositoryRoot)\b`;
const FROM_ROOT = [
  new RegExp(String.raw`${ROOT_NAME}\s*,\s*['"\x60]${DOTS}`),
  new RegExp(String.raw`${ROOT_NAME}\}?\s*[/\\]${DOTS}`),
  new RegExp(String.raw`\bdirname\(\s*${ROOT_NAME}\s*\)`),
  new RegExp(String.raw`new URL\(\s*['"\x60]${DOTS}['"\x60/]?[^)]*,\s*${ROOT_NAME}`),
];

/** What in `text` (a file `depth` folders below the root) reaches above the root. */
function readsAboveRoot(text: string, depth: number): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, index) => {
    const at = `line ${index + 1}: ${line.trim()}`;
    if (SIBLING.test(line)) found.push(at);
    else if (FROM_ROOT.some((pattern) => pattern.test(line))) found.push(at);
    else if ([...line.matchAll(CLIMB)].some((m) => m[0].split(DOTS_TEXT).length - 1 > depth)) {
      found.push(at);
    }
  });
  return found;
}

describe('nothing reads above the repository root', () => {
  const scanned = SCANNED.flatMap((dir) => files(join(ROOT, dir)));

  it('scans every file of src, test, scripts, bench, bin and .ci, this one too', () => {
    const names = scanned.map((file) => relative(ROOT, file).split(sep).join('/'));
    expect(names).toContain('test/unit/repository-root.test.ts');
    expect(names).toContain('bin/ksctl.js');
    expect(names).toContain('.ci/run');
    expect(names.length).toBeGreaterThan(300);
  });

  it('no file reads the sibling shared folder or climbs out of the root', () => {
    const offences = scanned.flatMap((file) => {
      const name = relative(ROOT, file).split(sep).join('/');
      const depth = relative(ROOT, dirname(file)).split(sep).filter(Boolean).length;
      return readsAboveRoot(readFileSync(file, 'utf8'), depth).map((line) => `${name} ${line}`);
    });
    expect(offences).toEqual([]);
  });

  // Put together at run time, so that this file holds none of them as written.
  const up = (n: number) => Array.from({ length: n }, () => DOTS_TEXT).join('/');
  const q = (text: string) => `'${text}'`;

  it.each([
    ['the sibling folder', 2, `new URL(${q(`${up(3)}/shared/fixtures/`)}, import.meta.url)`],
    ['the sibling folder from the root', 0, `readFileSync(${q(`${up(1)}/shared/DESIGN.md`)})`],
    ['one step too many', 2, `new URL(${q(`${up(3)}/x.json`)}, import.meta.url)`],
    ['steps as arguments', 2, `join(import.meta.dirname, ${[1, 2, 3].map(() => q(DOTS_TEXT))})`],
    ['a step from the root', 3, `resolve(ROOT, ${q(DOTS_TEXT)}, 'fixtures')`],
    ['a step from the root, joined', 3, `const up = join(root, ${q(`${up(1)}/shared`)});`],
    ['a path above the root', 3, `const x = \`\${ROOT}/${up(1)}/other\`;`],
    ['the root\u2019s parent', 3, `const parent = ${'dirname'}(ROOT);`],
  ])('flags %s', (_what, depth, line) => {
    expect(readsAboveRoot(line, depth)).toHaveLength(1);
  });

  it.each([
    ['an import within the tree', 2, `import { x } from ${q(`${up(2)}/src/errors.js`)};`],
    ['the root from its helper', 2, `resolve(here, ${q(up(2))})`],
    ['a script moving to the root', 1, `cd "$(dirname "$0")/${DOTS_TEXT}"`],
    ['an ellipsis', 3, `'GET, POST, PUT, DELETE, ...'`],
    ['a path segment test', 2, `if (segment === ${q(DOTS_TEXT)}) refuse();`],
  ])('leaves %s alone', (_what, depth, line) => {
    expect(readsAboveRoot(line, depth)).toEqual([]);
  });
});

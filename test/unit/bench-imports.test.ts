/**
 * The benchmarks import the compiled modules of dist/ by path (bench/README.md): a module moved or
 * renamed in src/ leaves `npm run bench` failing at its first group unless the bench follows.
 * Every name a bench file imports from dist/ must be there (after `npm run build`, as `npm test`
 * runs it).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const BENCH = join(import.meta.dirname, '..', '..', 'bench');
const FROM_DIST = [
  // import { a, b as c } from '../dist/x.js'
  /import\s*\{([^}]*)\}\s*from\s*['"]([^'"]*\/dist\/[^'"]*)['"]/g,
  // const { a, b: c } = await import('../dist/x.js')
  /const\s*\{([^}]*)\}\s*=\s*await import\(\s*['"]([^'"]*\/dist\/[^'"]*)['"]\s*\)/g,
];

function benchFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? benchFiles(join(dir, entry.name))
      : entry.name.endsWith('.js')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('the benchmarks', () => {
  it('import from dist/ only names that are there', async () => {
    const missing: string[] = [];
    let checked = 0;
    for (const file of benchFiles(BENCH)) {
      const source = readFileSync(file, 'utf8');
      for (const pattern of FROM_DIST) {
        for (const [, list, specifier] of source.matchAll(pattern)) {
          const target = resolve(file, '..', specifier!);
          const loaded = (await import(pathToFileURL(target).href).catch(() => undefined)) as
            Record<string, unknown> | undefined;
          const names = list!
            .split(',')
            .map(
              (name) =>
                name
                  .trim()
                  .replace(/^type\s+/, '')
                  .split(/\s+as\s+|\s*:\s*/)[0]!,
            )
            .filter((name) => name !== '');
          for (const name of names) {
            checked += 1;
            if (loaded === undefined || !(name in loaded)) {
              missing.push(`${file.slice(BENCH.length + 1)}: ${name} from ${specifier}`);
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });
});

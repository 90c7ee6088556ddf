/**
 * Comments cite the contracts as `docs/design.md 2.3` (or `section 2.3`): every section cited
 * must be a heading of that page, so a reader who follows a reference finds it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return /\.(ts|js)$/.test(entry.name) ? [path] : [];
  });
}

describe('references to docs/design.md', () => {
  const page = readFileSync(join(ROOT, 'docs', 'design.md'), 'utf8');
  const sections = new Set([...page.matchAll(/^#{2,3} (\d+(?:\.\d+)*)\.? /gm)].map((m) => m[1]));
  const cited = ['src', 'test', 'bench'].flatMap((dir) =>
    files(join(ROOT, dir)).flatMap((file) =>
      [
        ...readFileSync(file, 'utf8').matchAll(/docs\/design\.md (?:sections? )?(\d+(?:\.\d+)*)/g),
      ].map((m) => ({ file, section: m[1]! })),
    ),
  );

  it('the page has its numbered sections, and the code cites them', () => {
    expect([...sections]).toEqual(expect.arrayContaining(['1', '1.2', '2.3', '3.2.1', '5.1']));
    expect(cited.length).toBeGreaterThan(50);
  });

  it('every section cited is a heading of the page', () => {
    const missing = cited
      .filter(({ section }) => !sections.has(section))
      .map(({ file, section }) => `${file}: ${section}`);
    expect(missing).toEqual([]);
  });
});

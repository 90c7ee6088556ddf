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

/**
 * docs/architecture.md names files and folders of src/ (and a few beside it) in backticks: each
 * must exist, so the map stays true to the code as files move. A name without a folder is looked
 * for where the page's table row or paragraph puts it: anywhere under src/.
 */
describe('docs/architecture.md', () => {
  const page = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const all = ['src', 'scripts', 'bin', 'test', 'console']
    .flatMap((dir) => files(join(ROOT, dir)))
    .map((file) =>
      file
        .slice(ROOT.length + 1)
        .split('\\')
        .join('/'),
    );
  const named = [...page.matchAll(/`([\w./*-]+\/|[\w./*-]+\.(?:ts|js|md))`/g)].map((m) => m[1]!);

  it('names only files and folders that exist', () => {
    expect(named.length).toBeGreaterThan(60);
    const missing = named.filter((name) => {
      if (name.includes('*')) {
        const pattern = new RegExp(`(^|/)${name.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`);
        return !all.some((file) => pattern.test(file));
      }
      if (name.endsWith('/'))
        return !all.some((file) => file.includes(`${name}`) || `${file}/`.startsWith(name));
      if (name.endsWith('.md'))
        return !readdirSync(join(ROOT, 'docs')).includes(name.split('/').pop()!);
      return !all.some((file) => file === name || file.endsWith(`/${name}`));
    });
    expect(missing).toEqual([]);
  });
});

/**
 * What importing the library loads (issue 20): `ksctl` brings no mock, no prompts, no terminal
 * output and no command line; `ksctl/mock` no command line. Checked on the built ES modules by
 * following their static imports (what Node loads at import; `import()` waits for a call).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, ROOT } from '../helpers/spawn.js';

const DIST = join(ROOT, 'dist');
const STATIC_IMPORT = /(?:^|[;\n])\s*(?:import|export)\s+(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/g;

/** Every built file and package a module loads statically, its own file included. */
function staticGraph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [join(DIST, entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      if (specifier!.startsWith('.')) queue.push(resolve(dirname(file), specifier!));
      else if (!specifier!.startsWith('node:')) packages.add(specifier!);
    }
  }
  return {
    files: [...files].map((f) => relative(DIST, f).split('\\').join('/')),
    packages: [...packages],
  };
}

describe('importing the library', () => {
  beforeAll(() => {
    assertBuilt();
    expect(existsSync(join(DIST, 'client', 'lib', 'index.js')), 'dist/client/lib is built').toBe(
      true,
    );
  });

  it('ksctl loads the clients, and no mock, prompts, renderer or command line', () => {
    const { files, packages } = staticGraph('client/lib/index.js');
    expect(files).toEqual(
      expect.arrayContaining(['client/api/client.js', 'client/device/client.js']),
    );
    expect(files.filter((f) => /^(mock|client\/cli)\//.test(f))).toEqual([]);
    expect(files.filter((f) => /^client\/output\/(render|progress|io)\.js$/.test(f))).toEqual([]);
    expect(
      files.filter((f) =>
        /^(client\/apply\/|common\/markings\/(file-rules|file-format|desired)\.js$)/.test(f),
      ),
    ).toEqual([]);
    expect(packages.filter((p) => /^(@inquirer|chalk|commander|conf|yaml)/.test(p))).toEqual([]);
  });

  it('ksctl/mock loads the mock server and no command line or prompts', () => {
    const { files, packages } = staticGraph('client/lib/mock.js');
    expect(files).toContain('mock/server/server.js');
    expect(files.filter((f) => /^client\/cli\//.test(f))).toEqual([]);
    expect(packages.filter((p) => /^(@inquirer|chalk|commander|conf)/.test(p))).toEqual([]);
  });

  it('finds the imports of a module however they are laid out', () => {
    const text = `import { a,\n  b } from './x.js';\nexport * from "./y.js";\nimport './z.js';\nconst m = await import('./lazy.js');`;
    expect([...text.matchAll(STATIC_IMPORT)].map((m) => m[1])).toEqual([
      './x.js',
      './y.js',
      './z.js',
    ]);
  });
});

/**
 * The published package as a user gets it: `npm pack` once, the tarball unpacked into a project
 * of its own outside the repository, and the README's library examples (examples/library) run
 * there: type-checked with tsc against the packed declarations, then the vitest example with
 * vitest and the node:test example with `node --test`. Offline: the project's other packages
 * are links to this repository's node_modules, where `npm ci` put ksctl's dependencies.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, ROOT } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const run = promisify(execFile);
const dirs = tempDirs();
const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { types: string; default: string }>;
  bin: Record<string, string>;
};

let project: string;
let packed: string[];

/** Runs a program in the project; a failure shows its output, the test's only clue. */
async function inProject(file: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(process.execPath, [file, ...args], {
      cwd: project,
      env: { ...process.env, NODE_OPTIONS: '', FORCE_COLOR: '0', NO_COLOR: '1' },
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

beforeAll(async () => {
  assertBuilt();
  const out = await dirs.make();
  // The build is npm test's first step; packing again would rebuild for nothing.
  const { stdout } = await run(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', out],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
  );
  const [info] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  packed = info!.files.map((f) => f.path);

  project = await dirs.make();
  const modules = join(project, 'node_modules');
  await mkdir(modules);
  await run('tar', ['-xzf', join(out, info!.filename), '-C', modules]);
  await rename(join(modules, 'package'), join(modules, 'ksctl'));
  for (const entry of await readdir(join(ROOT, 'node_modules'))) {
    if (entry === 'ksctl' || entry === '.bin' || entry.startsWith('.')) continue;
    await symlink(join(ROOT, 'node_modules', entry), join(modules, entry), 'junction');
  }
  await cp(join(modules, 'ksctl', 'examples', 'library'), join(project, 'examples'), {
    recursive: true,
  });
  // The README's other code blocks of the library are checked with the examples.
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Use it from code'));
  const blocks = [
    ...section.slice(0, section.indexOf('\n## ', 1)).matchAll(/^```ts\n([\s\S]*?)^```$/gm),
  ]
    .map((match) => match[1]!)
    .filter((code) => !code.includes("from 'vitest'"));
  expect(blocks.length).toBeGreaterThan(0);
  await Promise.all(
    blocks.map((code, i) => writeFile(join(project, 'examples', `readme-${i + 1}.ts`), code)),
  );
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'uses-ksctl', private: true, type: 'module' }),
  );
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        allowJs: true,
        checkJs: true,
        types: ['node'],
        // The declarations of ksctl itself are checked too: skipLibCheck would hide their errors.
        skipLibCheck: false,
      },
      include: ['examples'],
    }),
  );
}, 120_000);

afterAll(() => dirs.removeAll());

describe('the packed ksctl', () => {
  it('holds every export with its declarations, the CLI, and no sources or tests', () => {
    for (const target of Object.values(manifest.exports)) {
      const files = typeof target === 'string' ? [target] : [target.types, target.default];
      for (const file of files) expect(packed).toContain(file.replace(/^\.\//, ''));
    }
    for (const bin of Object.values(manifest.bin)) expect(packed).toContain(bin);
    expect(packed).toContain('dist/bundle/main.cjs');
    expect(packed).toContain('examples/library/vitest/keys.test.ts');
    // The CLI runs from its bundle: tsc's output of src/client/cli is not shipped, nor are sources.
    expect(packed.filter((path) => /^(src|test|bench|dist\/cli)\//.test(path))).toEqual([]);
  });

  it('the README shows the library examples as they are', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    for (const example of ['vitest/keys.test.ts', 'node-test/keys.test.mjs']) {
      const text = await readFile(join(ROOT, 'examples', 'library', example), 'utf8');
      expect(readme.includes(text.trimEnd()), `README.md shows ${example} as it is`).toBe(true);
    }
  });

  // tsc over the project: 28 s in a CI run, 42 under a busier one. The programs get 120 s.
  it(
    'type-checks the examples and the README code against the packed declarations',
    { timeout: 150_000 },
    async () => {
      await inProject(join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), ['-p', '.']);
    },
  );

  it('runs the vitest example', { timeout: 150_000 }, async () => {
    const output = await inProject(join(project, 'node_modules', 'vitest', 'vitest.mjs'), [
      'run',
      '--root',
      project,
      'examples/vitest',
    ]);
    expect(output).toMatch(/Tests\s+3 passed/);
  });

  it('runs the node:test example', async () => {
    // TAP on every Node: Node 24's own default off a terminal is the spec reporter.
    const output = await inProject('--test', [
      '--test-reporter=tap',
      'examples/node-test/keys.test.mjs',
    ]);
    expect(output).toMatch(/# pass 2\n/);
    expect(output).toMatch(/# fail 0\n/);
  });

  it('runs every JS and TS block of the README from the packed package, each ending by itself', async () => {
    const ts = await import('typescript');
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    // `norun` marks the few that cannot run here (another package, a server of your own).
    const blocks = [...readme.matchAll(/^```(?:ts|js)\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const [i, code] of blocks.entries()) {
      // Node 20 runs no TypeScript: the types are stripped as tsc would.
      const js = ts.transpileModule(code, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      const file = join(project, `readme-block-${i + 1}.test.mjs`);
      await writeFile(file, js);
      const args = code.includes("from 'vitest'")
        ? [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', project, file]
        : code.includes("from 'node:test'")
          ? ['--test', file]
          : [file];
      // A block that leaves a server or a connection open never ends: the time bound fails it.
      const ran = await run(process.execPath, args, {
        cwd: project,
        env: { ...process.env, NODE_OPTIONS: '', FORCE_COLOR: '0', NO_COLOR: '1' },
        timeout: 60_000,
        killSignal: 'SIGKILL',
      }).catch((error: { message: string; stdout?: string; stderr?: string; killed?: boolean }) => {
        throw new Error(
          `README block ${i + 1} ${error.killed ? 'did not end within 60 s' : 'failed'}: ${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}\n${code.slice(0, 300)}`,
        );
      });
      expect(ran.stderr, `README block ${i + 1}`).not.toMatch(/Error/);
    }
  }, 300_000);

  it('the installed bin runs the CLI from its bundle', async () => {
    const bin = join(project, 'node_modules', 'ksctl', 'bin', 'ksctl.js');
    expect((await inProject(bin, ['--version'])).trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(await inProject(bin, ['markings', 'list', '--help'])).toContain('--value-limit');
  });
});

/**
 * The single executable (issue 36): `npm run build:sea`'s dist/sea/ksctl, built once here from the
 * pinned Node 24 (scripts/node-24.js), then run as a user without Node would: no node and no npm
 * on the PATH, from a folder of its own, against a mock it serves itself.
 *
 * Needs the pinned Node 24 binary (`node scripts/node-24.js` installs it; .ci/run does). Without
 * it each test is skipped naming it (test/helpers/programs.ts), unless CI is set: there it fails.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Exit, ServedMock } from '../helpers/spawn.js';
import { assertBuilt, cleanEnv, ksctl, ROOT, serveMock } from '../helpers/spawn.js';
import { requireThere } from '../helpers/programs.js';
import { tempDirs } from '../helpers/temp.js';

const SEA = join(ROOT, 'dist', 'sea', 'ksctl');
const check = spawnSync(process.execPath, [join(ROOT, 'scripts', 'node-24.js'), '--check'], {
  encoding: 'utf8',
});
const node24 = check.status === 0 ? check.stdout.trim() : undefined;

const dirs = tempDirs();
let bare: string;
let served: ServedMock | undefined;
let configDir: string;
let home: string;

/** `settings` with nothing on the PATH but an empty folder (no node, no npm) and no NODE_*. */
const withoutNode = (settings: Record<string, string>): NodeJS.ProcessEnv => {
  const clean = cleanEnv(settings);
  for (const key of Object.keys(clean)) if (/^(NODE_|npm_)/i.test(key)) delete clean[key];
  return { ...clean, PATH: bare };
};

/** What the executable runs with against the file's mock. */
const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv =>
  withoutNode({ KSCTL_CONFIG_DIR: configDir, KSCTL_HOME: home, HOME: home, ...extra });

const sea = (args: string[], extra: Record<string, string> = {}, cwd?: string): Promise<Exit> =>
  ksctl(args, { env: env(extra), program: [SEA], timeoutMs: 120_000, cwd: cwd ?? bare });

/** The status of a GET of `path` exactly as written (no URL normalization on the way). */
function rawStatus(base: string, path: string): Promise<number | undefined> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = get({ host: hostname, port, path, agent: false }, (answer) => {
      answer.resume();
      resolve(answer.statusCode);
    });
    request.once('error', reject);
  });
}

describe('the single executable', () => {
  const ready = requireThere(
    node24 !== undefined,
    'Node 24 is not installed in .cache/: node scripts/node-24.js',
  );
  beforeAll(async () => {
    if (!ready) return;
    assertBuilt();
    // Built once for the file, as `npm run build:sea` does after the build the suite runs on.
    await new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        [join(ROOT, 'scripts', 'build-sea.js')],
        { cwd: ROOT, timeout: 600_000 },
        (error, _stdout, stderr) =>
          error ? reject(new Error(`build:sea failed: ${stderr}`)) : resolve(),
      );
    });
    [bare, configDir, home] = await Promise.all([dirs.make(), dirs.make(), dirs.make()]);
    // Neither node nor npm can be found from there.
    const found = spawnSync('/bin/sh', ['-c', 'command -v node || command -v npm'], {
      env: { PATH: bare },
    });
    expect(found.stdout.length).toBe(0);
    expect(found.status).not.toBe(0);
    served = await serveMock(['--json'], {
      env: env(),
      readyFile: join(configDir, 'run', 'ready.json'),
      program: [SEA],
      readyTimeoutMs: 60_000,
    });
  }, 660_000);
  afterAll(async () => {
    if (served?.child.exitCode === null) await served.stop();
    await dirs.removeAll();
  });

  it('is one executable file that carries its Node, and says so in --version', async () => {
    const { mode } = await stat(SEA);
    expect(mode & 0o111).not.toBe(0);
    const version = await sea(['--version']);
    const { version: ours } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(version).toMatchObject({ code: 0, stderr: '' });
    const node = spawnSync(node24 ?? 'node', ['--version'], { encoding: 'utf8' }).stdout.trim();
    expect(version.stdout).toBe(
      `${ours} (single executable, Node.js ${node.slice(1)} ${process.platform}-${process.arch})\n`,
    );
    // Anything else answers as the npm package's CLI does.
    const help = await sea(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: ksctl /);
  });

  it('runs the markings commands against the mock it serves', async () => {
    const created = await sea([
      ...['markings', 'create', 'region', '--value', 'us-east', '--value', 'eu-west'],
    ]);
    expect(created.code, created.stderr).toBe(0);
    const listed = await sea(['markings', 'list', '-o', 'json']);
    expect(listed.code, listed.stderr).toBe(0);
    const markings = JSON.parse(listed.stdout) as {
      name: string;
      detail: { valueCount: number };
    }[];
    expect(markings.map((m) => [m.name, m.detail.valueCount])).toEqual([['region', 2]]);
    // A markings file: YAML, parsed by the bundled yaml library (no node_modules anywhere).
    const file = join(home, 'markings.yaml');
    await writeFile(
      file,
      'markings:\n  - name: region\n    values:\n      - us-east\n      - sa-east\n',
    );
    const plan = await sea(['markings', 'apply', '-f', file, '--dry-run']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('sa-east');
    const unknown = await sea(['markings', 'get', 'nowhere']);
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
  });

  it('enrolls a device, with the mock opening registrations on its threads, and makes keys', async () => {
    const threads = async () => (await readdir(`/proc/${served!.child.pid}/task`)).length;
    const idle = await threads();
    const enrolled = await sea(['enroll', '--mock-user', 'alice', '--name', 'one-file']);
    expect(enrolled.code, enrolled.stderr).toBe(0);
    // The crypto pool's threads started from the worker's asset (they stay until the mock ends).
    expect(await threads()).toBeGreaterThan(idle);
    expect(await readdir(join(home, '.ionicsecurity'))).toContain('profiles.pt');
    const created = await sea(['keys', 'create', '-o', 'json']);
    expect(created.code, created.stderr).toBe(0);
    const [key] = JSON.parse(created.stdout) as { id: string }[];
    const fetched = await sea(['keys', 'fetch', key!.id, '-o', 'json']);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(fetched.stdout).toContain(key!.id);
    expect(served!.output().stderr).not.toMatch(/crypto worker/);
  });

  it('serves the console and the OpenAPI document from its assets', async () => {
    const { url } = served!.info;
    const page = await fetch(`${url}/_mock/console/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toBe(await readFile(join(ROOT, 'console', 'index.html'), 'utf8'));
    for (const asset of html.match(/assets\/[\w./-]+/g) ?? []) {
      const answer = await fetch(`${url}/_mock/console/${asset}`);
      expect(answer.status, asset).toBe(200);
      expect(Buffer.from(await answer.arrayBuffer())).toEqual(
        await readFile(join(ROOT, 'console', asset)),
      );
    }
    // No other asset of the executable (package.json, the bundle's chunks) is reachable from the
    // console's paths, sent as a hostile client writes them (fetch would tidy them up first).
    for (const path of [
      '/_mock/console/assets/../../package.json',
      '/_mock/console/assets/..%2f..%2fpackage.json',
      '/_mock/console/assets/../../bundle/main.cjs',
      '/_mock/console/assets/%2e%2e/%2e%2e/bundle/main.cjs',
      '/_mock/console/..%2fbundle%2fhashes.json',
    ]) {
      expect(await rawStatus(url, path), path).toBe(404);
    }
    const openapi = await fetch(`${url}/_mock/openapi.json`);
    expect(openapi.status).toBe(200);
    const document = (await openapi.json()) as { openapi: string; servers: { url: string }[] };
    expect(document.openapi).toMatch(/^3\./);
    expect(document.servers[0]!.url).toBe(url);
  });

  it('writes the same completion scripts as the npm package', async () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const fromSea = await sea(['completion', shell]);
      expect(fromSea.code, fromSea.stderr).toBe(0);
      const fromNpm = await ksctl(['completion', shell], { env: cleanEnv({}) });
      expect(fromSea.stdout).toBe(fromNpm.stdout);
    }
  });

  it('loads nothing from a node_modules folder beside it or in the working folder', async () => {
    const cwd = await dirs.make();
    const marker = join(cwd, 'loaded');
    for (const name of ['yaml', 'undici', 'commander']) {
      await mkdir(join(cwd, 'node_modules', name), { recursive: true });
      await writeFile(
        join(cwd, 'node_modules', name, 'index.js'),
        `require('node:fs').writeFileSync(${JSON.stringify(marker)}, ${JSON.stringify(name)});\n`,
      );
    }
    const file = join(cwd, 'markings.yaml');
    await writeFile(file, 'markings:\n  - name: region\n    values: [us-east]\n');
    const plan = await sea(['markings', 'apply', '-f', file, '--dry-run'], {}, cwd);
    expect(plan.code, plan.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });

  it('keeps a code cache of its chunks and uses it on the next run', async () => {
    const cacheDir = await dirs.make();
    const first = await sea(['markings', 'list', '-o', 'json'], { KSCTL_CACHE_DIR: cacheDir });
    expect(first.code, first.stderr).toBe(0);
    const [folder] = await readdir(join(cacheDir, 'code'));
    const files = (await readdir(join(cacheDir, 'code', folder!))).sort();
    expect(files).toContain('main.cjs.cache');
    expect(files.some((name) => /^net-.*\.cjs\.cache$/.test(name))).toBe(true);
    const before = await Promise.all(
      files.map(async (name) => (await stat(join(cacheDir, 'code', folder!, name))).mtimeMs),
    );
    const second = await sea(['markings', 'list', '-o', 'json'], { KSCTL_CACHE_DIR: cacheDir });
    expect(second).toMatchObject({ code: 0, stdout: first.stdout });
    // Used as it was: not written again.
    const after = await Promise.all(
      files.map(async (name) => (await stat(join(cacheDir, 'code', folder!, name))).mtimeMs),
    );
    expect(after).toEqual(before);
    // Made by the Node inside it, which is the pinned Node 24.
    const node = spawnSync(node24 ?? 'node', ['--version'], { encoding: 'utf8' }).stdout.trim();
    const header = (await readFile(join(cacheDir, 'code', folder!, 'main.cjs.cache')))
      .subarray(0, 200)
      .toString('latin1');
    expect(header.startsWith(`ksctl-code-cache/1 ${node} `)).toBe(true);
  });

  it('walks the demo, with the example markings file from its assets', async () => {
    const [tmp, cwd, demoHome, config] = await Promise.all([
      dirs.make(),
      dirs.make(),
      dirs.make(),
      dirs.make(),
    ]);
    const tour = await ksctl(['demo'], {
      env: withoutNode({ TMPDIR: tmp, HOME: demoHome, KSCTL_CONFIG_DIR: config }),
      program: [SEA],
      cwd,
      timeoutMs: 180_000,
    });
    expect(tour.stderr).toBe('');
    expect(tour.code).toBe(0);
    expect(tour.stdout).toContain('$ ksctl markings apply -f examples/markings.yaml');
    expect(await readdir(tmp)).toEqual([]);
    expect(await readdir(cwd)).toEqual([]);
  });
});

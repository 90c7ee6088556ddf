/**
 * The code cache of the bundle (bin/code-cache.js, issue 26): a short command's second run reads
 * the code V8 compiled in the first instead of compiling the bundle again. What a user would
 * notice if it broke: a cache that is never used (every run as slow as the first), one used for
 * a bundle or a Node it was not made for (wrong behaviour), or a command that fails because of
 * its cache. Observed through the cache files: a file V8 refuses, or that was made for something
 * else, is written again after the command; one that is used stays as it is.
 */
import { spawn } from 'node:child_process';
import { cp, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockEnv } from '../helpers/cli.js';
import type { TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';
import { assertBuilt, BIN, cleanEnv, type Exit, ksctl, ROOT } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const temp = tempDirs();
const suite = mockSuite({ resetEachTest: false });
let mock: TestMock;

beforeAll(() => {
  assertBuilt();
  mock = suite.mock;
});
afterAll(() => temp.removeAll());

const LIST = ['markings', 'list', '-o', 'json'];

/** `ksctl ARGS` against the mock, with the code cache in `cacheDir`; `bin` for a copy of ksctl. */
async function run(args: string[], cacheDir: string, bin = BIN): Promise<Exit> {
  const env = cleanEnv({ ...mockEnv(mock, await temp.make()), KSCTL_CACHE_DIR: cacheDir });
  if (bin === BIN) return ksctl(args, { env });
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

interface CacheFile {
  path: string;
  header: string[];
  bytes: Buffer;
}

/** The cache files under `cacheDir`, by the name of the bundle file they are for. */
async function cacheFiles(cacheDir: string): Promise<Map<string, CacheFile>> {
  const files = new Map<string, CacheFile>();
  const root = join(cacheDir, 'code');
  for (const install of await readdir(root).catch(() => [])) {
    for (const name of await readdir(join(root, install))) {
      if (!name.endsWith('.cache')) continue;
      const path = join(root, install, name);
      const bytes = await readFile(path);
      const header = bytes.subarray(0, bytes.indexOf(10)).toString('latin1').split(' ');
      files.set(name.slice(0, -'.cache'.length), { path, header, bytes });
    }
  }
  return files;
}

const netChunk = (files: Map<string, CacheFile>) =>
  [...files.keys()].find((name) => name.startsWith('net-'));

/** A copy of ksctl whose bundle can change under the cache: its folder and its bin/ksctl.js. */
async function copyOfKsctl(): Promise<{ copy: string; bin: string }> {
  const copy = await temp.make();
  await cp(join(ROOT, 'bin'), join(copy, 'bin'), { recursive: true });
  await cp(join(ROOT, 'dist', 'bundle'), join(copy, 'dist', 'bundle'), { recursive: true });
  await cp(join(ROOT, 'package.json'), join(copy, 'package.json'));
  await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'junction');
  return { copy, bin: join(copy, 'bin', 'ksctl.js') };
}

describe('the code cache of the bundle', () => {
  it('is written by the first run and used, as it is, by the next', async () => {
    const cacheDir = await temp.make();
    const first = await run(LIST, cacheDir);
    expect(first.code).toBe(0);
    const written = await cacheFiles(cacheDir);
    // The program, rolldown's helpers and the network chunk, each made for this Node and file.
    expect(written.has('main.cjs')).toBe(true);
    expect(netChunk(written)).toBeDefined();
    const main = written.get('main.cjs')!;
    expect(main.header.slice(0, 4)).toEqual([
      'ksctl-code-cache/1',
      process.version,
      process.versions.v8,
      process.arch,
    ]);
    expect(main.header.at(-1)).toBe('markings/list');

    const second = await run(LIST, cacheDir);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    // Nothing written again: V8 took every file (it refuses data made under other flags, and the
    // command changes a flag as it runs).
    const after = await cacheFiles(cacheDir);
    for (const [name, file] of written)
      expect(after.get(name)?.bytes.equals(file.bytes)).toBe(true);
  });

  it('gathers the code of each kind of command that uses a file', async () => {
    const cacheDir = await temp.make();
    expect((await run(['markings', 'list', '--help'], cacheDir)).code).toBe(0);
    const helpOnly = (await cacheFiles(cacheDir)).get('main.cjs')!;
    expect(helpOnly.header.at(-1)).toBe('markings/list/--help');

    expect((await run(LIST, cacheDir)).code).toBe(0);
    const both = (await cacheFiles(cacheDir)).get('main.cjs')!;
    expect(both.header.at(-1)).toBe('markings/list/--help,markings/list');
    // The listing's own functions join those the help compiled.
    expect(both.bytes.length).toBeGreaterThan(helpOnly.bytes.length);
  });

  it('is made again when V8 refuses it or it was made for another Node', async () => {
    const cacheDir = await temp.make();
    const first = await run(LIST, cacheDir);
    const written = await cacheFiles(cacheDir);
    const main = written.get('main.cjs')!;
    const net = written.get(netChunk(written)!)!;
    // The network chunk's data garbled under a header that matches: V8 refuses it.
    const garbled = Buffer.from(net.bytes);
    garbled.fill(0x5a, net.bytes.indexOf(10) + 1);
    await writeFile(net.path, garbled);
    // The program's file as another Node version would have left it.
    const other = [main.header[0], 'v19.0.0', ...main.header.slice(2)].join(' ');
    await writeFile(
      main.path,
      Buffer.concat([Buffer.from(`${other}\n`), main.bytes.subarray(main.bytes.indexOf(10) + 1)]),
    );

    const second = await run(LIST, cacheDir);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(second.stderr).toBe('');
    const after = await cacheFiles(cacheDir);
    expect(after.get('main.cjs')!.header[1]).toBe(process.version);
    expect(after.get(netChunk(after)!)!.bytes.equals(garbled)).toBe(false);

    // What was written then is used as it is.
    expect((await run(LIST, cacheDir)).code).toBe(0);
    const third = await cacheFiles(cacheDir);
    for (const [name, file] of after) expect(third.get(name)?.bytes.equals(file.bytes)).toBe(true);
  });

  it('is ignored when it is not a cache file at all', async () => {
    const cacheDir = await temp.make();
    const first = await run(LIST, cacheDir);
    const main = (await cacheFiles(cacheDir)).get('main.cjs')!;
    await writeFile(main.path, Buffer.alloc(10_000, 0xff));
    const second = await run(LIST, cacheDir);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect((await cacheFiles(cacheDir)).get('main.cjs')!.header[0]).toBe('ksctl-code-cache/1');
  });

  it('is made again for a bundle file that changed, and only for it', async () => {
    const { copy, bin } = await copyOfKsctl();
    const cacheDir = await temp.make();
    const first = await run(LIST, cacheDir, bin);
    expect(first.code).toBe(0);
    const written = await cacheFiles(cacheDir);

    const entry = join(copy, 'dist', 'bundle', 'main.cjs');
    await writeFile(entry, `${await readFile(entry, 'utf8')}\n// changed\n`);
    const second = await run(LIST, cacheDir, bin);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    const after = await cacheFiles(cacheDir);
    expect(after.get('main.cjs')!.header[4]).not.toBe(written.get('main.cjs')!.header[4]);
    const net = netChunk(written)!;
    expect(after.get(net)!.bytes.equals(written.get(net)!.bytes)).toBe(true);
  });

  it('never runs old code for a bundle file edited in place to the same length', async () => {
    // V8 checks cached data against the length of the source only: the cache must tell the edit.
    const { copy, bin } = await copyOfKsctl();
    const cacheDir = await temp.make();
    const help = ['markings', 'list', '--help'];
    const first = await run(help, cacheDir, bin);
    expect(first.stdout).toMatch(/^Usage: ksctl markings list/);
    expect((await cacheFiles(cacheDir)).has('main.cjs')).toBe(true);

    const entry = join(copy, 'dist', 'bundle', 'main.cjs');
    const before = await readFile(entry, 'latin1');
    const after = before.replaceAll('Usage:', 'USAGE:');
    expect(after.length).toBe(before.length);
    await writeFile(entry, after, 'latin1');
    const second = await run(help, cacheDir, bin);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^USAGE: ksctl markings list/);
  });

  it('changes nothing but speed when it cannot be written, or is turned off', async () => {
    const dir = await temp.make();
    const file = join(dir, 'a-file');
    await writeFile(file, 'not a directory\n');
    const reference = await run(LIST, '');
    expect(reference.code).toBe(0);
    // A cache directory that cannot be made (under a file), twice: no message, the same answer.
    for (let i = 0; i < 2; i++) {
      const exit = await run(LIST, join(file, 'cache'));
      expect(exit).toMatchObject({ code: 0, stdout: reference.stdout, stderr: '' });
    }
    // KSCTL_CACHE_DIR empty: no cache, not even in the home directory's.
    const home = join(dir, 'home');
    await mkdir(home);
    const env = cleanEnv({
      ...mockEnv(mock, await temp.make()),
      HOME: home,
      XDG_CACHE_HOME: join(home, 'cache'),
      KSCTL_CACHE_DIR: '',
    });
    expect((await ksctl(LIST, { env })).code).toBe(0);
    expect(await readdir(home)).toEqual([]);
  });

  it.skipIf(process.platform === 'win32')(
    'goes to the user cache directory by default',
    async () => {
      const home = await temp.make();
      const env = cleanEnv({ ...mockEnv(mock, await temp.make()), HOME: home, XDG_CACHE_HOME: '' });
      delete env.KSCTL_CACHE_DIR;
      expect((await ksctl(['markings', 'list', '--help'], { env })).code).toBe(0);
      const expected =
        process.platform === 'darwin'
          ? join(home, 'Library', 'Caches', 'ksctl')
          : join(home, '.cache', 'ksctl');
      expect((await cacheFiles(expected)).has('main.cjs')).toBe(true);
    },
  );
});

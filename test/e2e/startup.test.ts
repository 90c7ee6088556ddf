/**
 * What a network command loads (issue 11): a scripted `ksctl markings list` pays for every module
 * it loads on every call, so the HTTP client must not bring fetch, WebSocket, caches, workers or
 * compression with it. Checked on the built CLI, through the list of modules Node loaded.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockEnv } from '../helpers/cli.js';
import { startMock, type TestMock } from '../helpers/mock.js';
import { assertBuilt, cleanEnv, ksctl } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const temp = tempDirs();
let mock: TestMock;

beforeAll(async () => {
  assertBuilt();
  mock = await startMock();
});
afterAll(async () => {
  await mock.close();
  await temp.removeAll();
});

/**
 * Runs ksctl with a preload that writes, at exit, the built-in modules the process loaded; with
 * `chunks`, also a module loader hook that records the files of the bundle it loads (the hooks run
 * in a worker thread, so the built-ins are then not the command's alone).
 */
async function loadedBy(
  args: string[],
  options: { chunks?: boolean } = {},
): Promise<{ code: number | null; stdout: string; builtins: string[]; chunks: string[] }> {
  const dir = await temp.make();
  const preload = join(dir, 'record-modules.cjs');
  const record = join(dir, 'modules.json');
  const hooks = join(dir, 'record-files.mjs');
  const register = join(dir, 'register-hooks.mjs');
  const files = join(dir, 'files.txt');
  await writeFile(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify(process.moduleLoadList)));\n`,
  );
  await writeFile(files, '');
  await writeFile(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(files)}, url + '\\n');
  return next(url, context);
}\n`,
  );
  await writeFile(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const env = cleanEnv({
    ...mockEnv(mock, dir),
    NODE_OPTIONS: `--require ${preload}${options.chunks ? ` --import ${pathToFileURL(register).href}` : ''}`,
  });
  const exit = await ksctl(args, { env });
  const loaded = JSON.parse(await readFile(record, 'utf8')) as string[];
  const builtins = loaded
    .filter((m) => m.startsWith('NativeModule '))
    .map((m) => m.slice('NativeModule '.length));
  const chunks = (await readFile(files, 'utf8'))
    .split('\n')
    .filter((url) => url.includes('/dist/bundle/'))
    .map((url) => url.slice(url.lastIndexOf('/') + 1));
  return { code: exit.code, stdout: exit.stdout, builtins, chunks };
}

describe('start-up of a network command', () => {
  it('markings list loads the HTTP client without fetch, WebSocket, workers, zlib or HTTP/2', async () => {
    const { code, stdout, builtins } = await loadedBy(['markings', 'list', '-o', 'json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual([]);
    expect(builtins).toContain('net');
    // Node's own copy of undici backs the global fetch; undici's entry point touches it.
    expect(builtins).not.toContain('internal/deps/undici/undici');
    expect(builtins).not.toContain('worker_threads');
    expect(builtins).not.toContain('zlib');
    // Nor HTTP/2 and TLS, for a plain http:// service, nor what commander and undici load for
    // paths ksctl does not take (scripts/bundle.js gives them stand-ins).
    expect(builtins).not.toContain('http2');
    expect(builtins).not.toContain('tls');
    expect(builtins).not.toContain('child_process');
    expect(builtins).not.toContain('assert');
  });

  // Each file of the bundle costs about a millisecond to resolve, read, compile and link; the
  // chunks are laid out by hand for the shortest commands (scripts/bundle.js).
  it('markings list loads three files of the bundle: the program, the network chunk, helpers', async () => {
    const { code, chunks } = await loadedBy(['markings', 'list', '-o', 'json'], { chunks: true });
    expect(code).toBe(0);
    expect(chunks[0]).toBe('main.js');
    expect(chunks.some((file) => file.startsWith('net-'))).toBe(true);
    expect(chunks.length).toBeLessThanOrEqual(3);
  });

  it('markings list --help loads neither the network chunk nor more than two files', async () => {
    const { code, stdout, chunks } = await loadedBy(['markings', 'list', '--help'], {
      chunks: true,
    });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: ksctl markings list/);
    expect(chunks[0]).toBe('main.js');
    expect(chunks.filter((file) => file.startsWith('net-'))).toEqual([]);
    expect(chunks.length).toBeLessThanOrEqual(2);
  });
});

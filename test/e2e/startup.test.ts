/**
 * What a network command loads (issue 11): a scripted `ksctl markings list` pays for every module
 * it loads on every call, so the HTTP client must not bring fetch, WebSocket, caches, workers or
 * compression with it. Checked on the built CLI, through the list of modules Node loaded.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockEnv } from '../helpers/cli.js';
import type { TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';
import { assertBuilt, cleanEnv, ksctl } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const temp = tempDirs();
const suite = mockSuite({ resetEachTest: false });
let mock: TestMock;

beforeAll(() => {
  assertBuilt();
  mock = suite.mock;
});
afterAll(() => temp.removeAll());

/**
 * Runs ksctl with a preload that writes, at exit, the built-in modules the process loaded and the
 * files of the bundle it loaded (the bundle is CommonJS: they are in require's cache).
 */
async function loadedBy(
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{
  code: number | null;
  stdout: string;
  builtins: string[];
  chunks: string[];
  stdin: boolean;
}> {
  const dir = await temp.make();
  const preload = join(dir, 'record-modules.cjs');
  const record = join(dir, 'modules.json');
  await writeFile(
    preload,
    `let stdin = false;
const { get } = Object.getOwnPropertyDescriptor(process, 'stdin');
Object.defineProperty(process, 'stdin', { configurable: true, enumerable: true, get() { stdin = true; return get.call(this); } });
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ builtins: process.moduleLoadList, files: Object.keys(require.cache), stdin })));\n`,
  );
  const env = cleanEnv({
    ...mockEnv(mock, dir),
    NODE_OPTIONS: `--require ${preload}`,
    ...extraEnv,
  });
  const exit = await ksctl(args, { env });
  const loaded = JSON.parse(await readFile(record, 'utf8')) as {
    builtins: string[];
    files: string[];
    stdin: boolean;
  };
  const builtins = loaded.builtins
    .filter((m) => m.startsWith('NativeModule '))
    .map((m) => m.slice('NativeModule '.length));
  const chunks = loaded.files
    .filter((file) => /[\\/]dist[\\/]bundle[\\/]/.test(file))
    .map((file) => basename(file));
  return { code: exit.code, stdout: exit.stdout, builtins, chunks, stdin: loaded.stdin };
}

/** The built-in modules an empty CommonJS program loads on this Node, with the same preload. */
async function bareBuiltins(): Promise<string[]> {
  const dir = await temp.make();
  const record = join(dir, 'modules.json');
  const program = join(dir, 'empty.cjs');
  await writeFile(
    program,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify(process.moduleLoadList)));\n`,
  );
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, [program], { env: cleanEnv({}) }, (error) =>
      error ? reject(error) : resolve(),
    );
  });
  return (JSON.parse(await readFile(record, 'utf8')) as string[])
    .filter((m) => m.startsWith('NativeModule '))
    .map((m) => m.slice('NativeModule '.length));
}

describe('start-up of a network command', () => {
  it('markings list loads the HTTP client without fetch, WebSocket, workers, zlib or HTTP/2', async () => {
    const { code, stdout, builtins, stdin } = await loadedBy(['markings', 'list', '-o', 'json']);
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
    // node:http (its client and server) for undici's header cap, node:fs/promises (with readline
    // and file watchers) for reading the configuration: stand-ins and node:fs instead.
    expect(builtins).not.toContain('http');
    expect(builtins).not.toContain('fs/promises');
    // The client times requests with process.hrtime: the global performance loads perf_hooks.
    expect(builtins).not.toContain('perf_hooks');
    // Only profile writers and the mock take lock files (their host name and waits), and a
    // retry's wait loads the timers it needs then.
    expect(builtins).not.toContain('os');
    expect(builtins).not.toContain('timers/promises');
    // The CLI is CommonJS: it starts none of Node's ES module loader beyond what Node itself
    // loads for any program. Written for Node 20, where a CommonJS program loads one module of it
    // (esm/utils) and the loader stays unloaded; Node 24 sets the loader up (translators and all)
    // before any program runs, so it is measured against a bare program on the same Node.
    const bare = await bareBuiltins();
    const esmLoader = (names: string[]) =>
      names.filter((name) => name.startsWith('internal/modules/esm/'));
    expect(esmLoader(builtins).filter((name) => !bare.includes(name))).toEqual([]);
    if (Number(process.versions.node.split('.')[0]) < 22) {
      expect(builtins).not.toContain('internal/modules/esm/translators');
    }
    // Standard input is a stream set up on first use; only --token-file - and prompts read it.
    expect(stdin).toBe(false);
  });

  // node:crypto costs a short command a few milliseconds to load: the code cache checks its files
  // against the hashes the build listed, and a request's conversation id is random bytes from the
  // kernel (src/common/encoding/random-pool.ts). Without the cache, with it being written, and read.
  it('markings list loads no node:crypto, with its code cache or without', async () => {
    const cacheDir = await temp.make();
    const runs: Record<string, string>[] = [
      {},
      { KSCTL_CACHE_DIR: cacheDir },
      { KSCTL_CACHE_DIR: cacheDir },
    ];
    for (const extra of runs) {
      const { code, stdout, builtins } = await loadedBy(['markings', 'list', '-o', 'json'], extra);
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toEqual([]);
      expect(builtins.filter((name) => /crypto/.test(name))).toEqual([]);
    }
  });

  // Each file of the bundle costs about a millisecond to resolve, read, compile and link; the
  // chunks are laid out by hand for the shortest commands (scripts/bundle.js).
  it('markings list loads three files of the bundle: the program, the network chunk, helpers', async () => {
    const { code, chunks } = await loadedBy(['markings', 'list', '-o', 'json']);
    expect(code).toBe(0);
    expect(chunks[0]).toBe('main.cjs');
    expect(chunks.some((file) => file.startsWith('net-'))).toBe(true);
    expect(chunks.length).toBeLessThanOrEqual(3);
  });

  it('markings list --help loads neither the network chunk nor more than two files', async () => {
    const { code, stdout, chunks } = await loadedBy(['markings', 'list', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: ksctl markings list/);
    expect(chunks[0]).toBe('main.cjs');
    expect(chunks.filter((file) => file.startsWith('net-'))).toEqual([]);
    expect(chunks.length).toBeLessThanOrEqual(2);
  });
});

/**
 * undici's header cap is Node's --max-http-header-size (16 KiB by default), which the bundle
 * gives it without loading node:http (scripts/bundle.js): an answer with larger headers is
 * refused, unless Node is told to take more.
 */
describe('the cap on an answer’s headers', () => {
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.setHeader('x-large', 'a'.repeat(20 * 1024));
      res.setHeader('content-type', 'application/json');
      res.end('{"totalResults":0,"Resources":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/dev`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const list = async (extra: Record<string, string>) =>
    ksctl(['markings', 'list', '-o', 'json'], {
      env: cleanEnv({
        KSCTL_CONFIG_DIR: await temp.make(),
        KSCTL_BASE_URL: baseUrl,
        KSCTL_TOKEN: 'token',
        ...extra,
      }),
    });

  it('is 16 KiB by default', async () => {
    const exit = await list({});
    expect(exit.code).toBe(7);
    expect(exit.stdout).toBe('');
  });

  it('follows --max-http-header-size in NODE_OPTIONS', async () => {
    const exit = await list({ NODE_OPTIONS: '--max-http-header-size=65536' });
    expect(exit.stderr).toBe('');
    expect(exit).toMatchObject({ code: 0, stdout: '[]\n' });
  });
});

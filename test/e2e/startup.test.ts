/**
 * What a network command loads (issue 11): a scripted `ksctl markings list` pays for every module
 * it loads on every call, so the HTTP client must not bring fetch, WebSocket, caches, workers or
 * compression with it. Checked on the built CLI, through the list of modules Node loaded.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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

/** Runs ksctl with a preload that writes, at exit, the built-in modules the process loaded. */
async function loadedBy(
  args: string[],
): Promise<{ code: number | null; stdout: string; builtins: string[] }> {
  const dir = await temp.make();
  const preload = join(dir, 'record-modules.cjs');
  const record = join(dir, 'modules.json');
  await writeFile(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify(process.moduleLoadList)));\n`,
  );
  const env = cleanEnv({ ...mockEnv(mock, dir), NODE_OPTIONS: `--require ${preload}` });
  const exit = await ksctl(args, { env });
  const loaded = JSON.parse(await readFile(record, 'utf8')) as string[];
  const builtins = loaded
    .filter((m) => m.startsWith('NativeModule '))
    .map((m) => m.slice('NativeModule '.length));
  return { code: exit.code, stdout: exit.stdout, builtins };
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
    // Nor HTTP/2 and TLS, for a plain http:// service (scripts/bundle.js keeps them lazy).
    expect(builtins).not.toContain('http2');
    expect(builtins).not.toContain('tls');
  });
});

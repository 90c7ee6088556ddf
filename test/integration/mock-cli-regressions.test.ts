/**
 * Regressions in `ksctl mock serve|tokens|faults|reset`: admin commands that ignored --base-url,
 * a port out of range reported as a bug, a bad --ready-file found only after the `mock` context
 * was rewritten, and fault rules accepted although they could never fire as meant.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MockInfo } from '../../src/mock/wire.js';
import { run } from '../../src/cli/main.js';
import { ConfigStore } from '../../src/config/store.js';
import { runCli, tsvRows } from '../helpers/cli.js';
import { startMock, type TestMock } from '../helpers/mock.js';
import { tempDirs } from '../helpers/temp.js';

/** Nothing listens on port 1 of the loopback interface: connection refused. */
const DEAD_URL = 'http://127.0.0.1:1/v2/dev';

const dirs = tempDirs();
let mock: TestMock;
let other: TestMock;
let configDir: string;

/** Only the configuration directory: the `mock` context says where the mock is. */
const ksctl = (argv: string[], env: Record<string, string> = {}) =>
  runCli(argv, { env: { KSCTL_CONFIG_DIR: configDir, ...env } });

async function mockContext(): Promise<unknown> {
  return (await ConfigStore.open({ KSCTL_CONFIG_DIR: configDir })).find('mock');
}

async function markingNames(target: TestMock): Promise<string[]> {
  const { body } = await target.call('GET', '/v2/dev/markings');
  return (body as { Resources: { name: string }[] }).Resources.map((m) => m.name);
}

beforeAll(async () => {
  [mock, other] = await Promise.all([startMock(), startMock()]);
});
afterAll(async () => {
  await Promise.all([mock.close(), other.close()]);
  await dirs.removeAll();
});
beforeEach(async () => {
  await Promise.all([mock.reset(), other.reset()]);
  // What `mock serve` leaves behind: a current `mock` context with every URL of the mock.
  configDir = await dirs.make();
  const store = await ConfigStore.open({ KSCTL_CONFIG_DIR: configDir });
  await store.set('mock', {
    baseUrl: mock.info.baseUrl,
    token: mock.token,
    apiUrl: mock.info.apiUrl,
    enrollmentUrl: mock.info.enrollmentUrl,
    knsUrl: mock.info.knsUrl,
    keyspace: mock.info.keyspace,
  });
  await store.use('mock');
});

describe('admin commands: --base-url and KSCTL_BASE_URL outrank the mock context', () => {
  beforeEach(async () => {
    expect((await mock.call('POST', '/v2/dev/markings', { name: 'kept' })).status).toBe(201);
  });

  it('mock reset --base-url <nothing there> exits 7 and leaves the context mock alone', async () => {
    const result = await ksctl(['mock', 'reset', '--yes', '--base-url', DEAD_URL]);
    expect(result.code).toBe(7);
    expect(result.stderr).toMatch(/cannot reach the service at http:\/\/127\.0\.0\.1:1/);
    expect(await markingNames(mock)).toEqual(['kept']);
  });

  it('mock tokens --base-url <nothing there> exits 7 and prints no tokens', async () => {
    const result = await ksctl(['mock', 'tokens', '--user', 'alice', '--base-url', DEAD_URL]);
    expect(result).toMatchObject({ code: 7, stdout: '' });
  });

  it('KSCTL_BASE_URL outranks the context too', async () => {
    const result = await ksctl(['mock', 'reset', '--yes'], { KSCTL_BASE_URL: DEAD_URL });
    expect(result.code).toBe(7);
    expect(await markingNames(mock)).toEqual(['kept']);
  });

  it('mock reset --base-url <another mock> resets that one', async () => {
    await other.call('POST', '/v2/dev/markings', { name: 'gone' });
    const result = await ksctl(['mock', 'reset', '--yes', '--base-url', other.baseUrl]);
    expect(result.code).toBe(0);
    expect(await markingNames(other)).toEqual([]);
    expect(await markingNames(mock)).toEqual(['kept']);
  });

  it('without either, the mock context is used', async () => {
    expect((await ksctl(['mock', 'reset', '--yes'])).code).toBe(0);
    expect(await markingNames(mock)).toEqual([]);
  });
});

describe('mock serve --port', () => {
  it.each(['70000', '65536', '99999', 'abc', '1.5'])(
    '%s is a usage error (exit 2)',
    async (port) => {
      const result = await ksctl(['mock', 'serve', '--no-context', '--port', port]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`argument '${port}' is invalid`);
      expect(result.stderr).toContain('expected a port number from 0 to 65535');
      expect(result.stderr).not.toMatch(/bug|unexpected/i);
    },
  );
});

/** `mock serve` in-process until `stop()`; its output so far is readable meanwhile. */
function serveInProcess(argv: string[]) {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const stdout = new PassThrough().on('data', (c: Buffer) => out.push(c));
  const stderr = new PassThrough().on('data', (c: Buffer) => err.push(c));
  const controller = new AbortController();
  const exit = run(['mock', 'serve', '--port', '0', '--no-log', ...argv], {
    io: {
      stdin: new PassThrough(),
      stdout,
      stderr,
      stdinIsTTY: false,
      stdoutIsTTY: false,
      stderrIsTTY: false,
      color: false,
      columns: 200,
    },
    env: { KSCTL_CONFIG_DIR: configDir },
    signal: controller.signal,
  });
  return {
    exit,
    stdout: () => Buffer.concat(out).toString('utf8'),
    stderr: () => Buffer.concat(err).toString('utf8'),
    stop: () => controller.abort(),
  };
}

describe('mock serve --ready-file', () => {
  it('a directory is refused before the server starts or the context changes', async () => {
    const directory = join(configDir, 'run');
    await mkdir(directory);
    const before = await mockContext();
    const result = await ksctl(['mock', 'serve', '--port', '0', '--ready-file', directory]);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `error: cannot write the ready file ${directory}: it is a directory\n` +
        'hint: name a file, for example ready.json inside that directory\n',
    );
    expect(await mockContext()).toEqual(before);
  });

  it('on success: the context, then the --json line, then the ready file (in a new directory)', async () => {
    const readyFile = join(configDir, 'run', 'ready.json');
    const served = serveInProcess(['--json', '--ready-file', readyFile]);
    try {
      const deadline = Date.now() + 10_000;
      while (!existsSync(readyFile)) {
        if (Date.now() > deadline) throw new Error(`no ready file; stderr: ${served.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Everything else was there before the ready file.
      const printed = JSON.parse(served.stdout()) as MockInfo;
      expect(JSON.parse(await readFile(readyFile, 'utf8'))).toEqual(printed);
      // The "mock" context names the suite's mock, which answers: this one is "mock-2".
      expect(await mockContext()).toMatchObject({ baseUrl: mock.info.baseUrl });
      const store = await ConfigStore.open({ KSCTL_CONFIG_DIR: configDir });
      expect(store.find('mock-2')).toMatchObject({ baseUrl: printed.baseUrl });
      expect(served.stderr()).toContain('ksctl --context mock-2 markings list');
      const health = await fetch(`${printed.url}/_mock/health`);
      expect(health.status).toBe(200);
      await health.body?.cancel();
    } finally {
      served.stop();
    }
    expect(await served.exit).toBe(0);
  });
});

describe('fault rules: the same bad rule gets the same answer', () => {
  const bad = 'status=503,path=';
  const problem = 'path must not be empty (leave it out to match every path)';

  it('mock faults set: a usage error (exit 2), nothing sent', async () => {
    const result = await ksctl(['mock', 'faults', 'set', bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: fault rule "${bad}": ${problem}; nothing was sent\n`);
    expect(await mock.journal()).toEqual([]);
    expect((await mock.call('GET', '/_mock/faults')).body).toEqual([]);
  });

  it('mock serve --fault: a usage error (exit 2), nothing started', async () => {
    const before = await mockContext();
    const result = await ksctl(['mock', 'serve', '--port', '0', '--fault', bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: --fault "${bad}": ${problem}\n`);
    expect(await mockContext()).toEqual(before);
  });

  it('in a seed file: invalid input (exit 3)', async () => {
    const seed = join(configDir, 'seed.yaml');
    await writeFile(seed, "faults:\n  - status: 503\n    path: ''\n");
    const result = await ksctl(['mock', 'serve', '--port', '0', '--seed', seed]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`seed faults[0]: ${problem}`);
  });

  it('in a PUT /_mock/faults body: 400', async () => {
    const answer = await mock.call('PUT', '/_mock/faults', [{ status: 503, path: '' }]);
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain(problem);
  });

  it.each([
    [
      'status=503,method=bogus',
      'method "bogus" is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
    ],
    [
      'code=12345',
      'code 12345 is neither a markings error code, an enrollment cause code nor a device error code',
    ],
    ['status=503,times=99999999999999999999', 'times must be at most 9007199254740991'],
  ])('mock faults set %s: exit 2, naming the bad part', async (rule, message) => {
    const result = await ksctl(['mock', 'faults', 'set', rule]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(tsvRows((await ksctl(['mock', 'faults', 'list'])).stdout)).toEqual([]);
  });
});

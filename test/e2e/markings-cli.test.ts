/**
 * The real thing: `bin/ksctl.js mock serve` spawned, and the real binary run against it, as a
 * user or a CI job would. Needs a build (`npm test` builds first).
 */
import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Marking } from '../../src/common/markings/wire.js';
import type { MockInfo } from '../../src/common/mock/wire.js';
import { tsvRows } from '../helpers/cli.js';
import {
  assertBuilt,
  BIN,
  cleanEnv,
  type ServedMock,
  serveMock,
  ksctl as spawnKsctl,
} from '../helpers/spawn.js';
import { requireProgram } from '../helpers/programs.js';
import { tempDirs } from '../helpers/temp.js';

const DEV_TOKEN = 'e2e-dev-token';
const READER_TOKEN = 'e2e-reader-token';
const SEED = `markings:
  - name: classification
    description: Data classification level
    defaultValue: internal
    values:
      - public
      - internal
      - name: restricted
        description: Need to know
tokens:
  - token: ${READER_TOKEN}
    name: reader
    scopes: [markings:read]
`;

const dirs = tempDirs();
let configDir: string;
let served: ServedMock;

/** The binary with only the configuration directory: the `mock` context does the rest. */
const ksctl = (args: string[], extra: Record<string, string> = {}, input?: string) =>
  spawnKsctl(args, { env: cleanEnv({ KSCTL_CONFIG_DIR: configDir, ...extra }), input });

beforeAll(async () => {
  assertBuilt();
  configDir = await dirs.make();
  const seedFile = join(configDir, 'seed.yaml');
  await writeFile(seedFile, SEED);
  served = await serveMock(['--json', '--seed', seedFile, '--dev-token', DEV_TOKEN], {
    env: cleanEnv({ KSCTL_CONFIG_DIR: configDir }),
    readyFile: join(configDir, 'run', 'ready.json'),
  });
});
afterAll(async () => {
  if (served.child.exitCode === null) await served.stop();
  await dirs.removeAll();
});

describe('ksctl mock serve', () => {
  it('--json prints the MockInfo object on stdout, the same as the ready file', async () => {
    const info = served.info;
    expect(Object.keys(info).sort()).toEqual(
      [
        'apiUrl',
        'baseUrl',
        'consoleUrl',
        'enrollmentUrl',
        'keyspace',
        'knsUrl',
        'tenantId',
        'token',
        'url',
        'users',
      ].sort(),
    );
    expect(info).toMatchObject({ tenantId: 'dev', keyspace: 'ABcd', token: DEV_TOKEN });
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.baseUrl).toBe(`${info.url}/v2/dev`);
    expect(info.consoleUrl).toMatch(new RegExp(`^${info.url}/_mock/console/login\\?code=`));
    const printed = await served.stdoutLines(1);
    expect(printed).toHaveLength(1);
    expect(JSON.parse(printed[0]!) as MockInfo).toEqual(info);
    expect((await stat(join(configDir, 'run', 'ready.json'))).mode & 0o777).toBe(0o600);
  });

  it('writes the current `mock` context, so ksctl works with no other setting', async () => {
    const config = JSON.parse(await readFile(join(configDir, 'config.json'), 'utf8'));
    expect(config.currentContext).toBe('mock');
    expect(config.contexts.mock).toMatchObject({ baseUrl: served.info.baseUrl, token: DEV_TOKEN });
    const listed = await ksctl(['markings', 'list']);
    expect(listed.code).toBe(0);
    expect(tsvRows(listed.stdout)[0]!.slice(0, 4)).toEqual([
      'classification',
      expect.stringMatching(/^[0-9a-f]{24}$/),
      '3',
      'internal',
    ]);
  });

  it('the seed file gave a token that may only read', async () => {
    const [read, write] = await Promise.all([
      ksctl(['markings', 'list'], { KSCTL_TOKEN: READER_TOKEN }),
      ksctl(['markings', 'create', 'x'], { KSCTL_TOKEN: READER_TOKEN }),
    ]);
    expect(read.code).toBe(0);
    expect(write.code).toBe(4);
    expect(write.stderr).toMatch(/missing scope markings:create/);
    expect(write.stderr).toMatch(/^conversation id: \S+$/m);
  });
});

describe('a marking from creation to deletion, with the real binary', () => {
  it('create → list → get -o json → update → values → delete --yes', async () => {
    const created = await ksctl([
      'markings',
      'create',
      'region',
      '--value',
      'eu',
      '--value',
      'us=United States',
      '--default-value',
      'eu',
    ]);
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(/^created marking region \([0-9a-f]{24}\) with 2 values$/m);

    const listed = await ksctl(['markings', 'list']);
    expect(listed.code).toBe(0);
    const rows = tsvRows(listed.stdout);
    expect(rows.map((r) => r[0])).toEqual(['classification', 'region']);
    expect(rows.every((r) => r.length === 7)).toBe(true);
    expect(listed.stdout).not.toMatch(/NAME/);

    const got = await ksctl(['markings', 'get', 'region', '-o', 'json']);
    expect(got.code).toBe(0);
    const region = JSON.parse(got.stdout) as Marking;
    expect(region).toMatchObject({ name: 'region', defaultValue: 'eu', _version: 1 });
    expect(region.detail.values!.map((v) => v.name)).toEqual(['eu', 'us']);

    const updated = await ksctl([
      'markings',
      'update',
      region.id,
      '--add-value',
      'apac',
      '--description',
      'Where data lives',
      '-o',
      'json',
    ]);
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      detail: { description: 'Where data lives', valueCount: 3 },
    });

    const values = await ksctl(['markings', 'values', 'list', 'region']);
    expect(tsvRows(values.stdout).map((r) => r[0])).toEqual(['apac', 'eu', 'us']);

    const refused = await ksctl(['markings', 'delete', 'region']);
    expect(refused.code).toBe(2);
    const deleted = await ksctl(['markings', 'delete', 'region', '--yes']);
    expect(deleted.code).toBe(0);
    expect((await ksctl(['markings', 'get', 'region'])).code).toBe(5);
  });

  it('exit codes: conflict 6, invalid input 3, usage 2, not found 5 (run side by side)', async () => {
    const cases: [string[], number][] = [
      [['markings', 'create', 'classification'], 6],
      [['markings', 'create', ' bad'], 3],
      [['markings', 'list', '--bogus'], 2],
      [['markings', 'get', 'nope'], 5],
    ];
    const results = await Promise.all(cases.map(([args]) => ksctl(args)));
    expect(results.map((r) => r.code)).toEqual(cases.map(([, code]) => code));
    expect(results.map((r) => r.stdout)).toEqual(cases.map(() => ''));
  });

  it('--token-file - takes the token from standard input', async () => {
    const result = await ksctl(
      ['markings', 'list', '--token-file', '-'],
      { KSCTL_TOKEN: 'wrong' },
      `${READER_TOKEN}\n`,
    );
    expect(result.code).toBe(0);
  });
});

describe('on a terminal', () => {
  requireProgram('script', 'apt-get install bsdutils');

  it('tables have a header; piped they do not', async () => {
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    // --no-pager: the table itself, not less's (tables-cli tests the pager).
    const command = [process.execPath, BIN, 'markings', 'list', '--wide', '--no-pager']
      .map(quote)
      .join(' ');
    const result = spawnSync('script', ['-qec', command, '/dev/null'], {
      env: cleanEnv({ KSCTL_CONFIG_DIR: configDir }),
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(result.status).toBe(0);
    const lines = result.stdout.replace(/\r/g, '').trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+ID\s+VALUES\s+DEFAULT\s+PUBLIC\s+ADMIN ONLY\s+DESCRIPTION/);
    expect(lines[1]).toMatch(
      /^classification\s+[0-9a-f]{24}\s+3\s+internal\s+no\s+no\s+Data classification level/,
    );
    expect(result.stdout).not.toContain('\t');
  });

  it('Ctrl-D at the confirmation is an interruption: exit 130, nothing deleted', async () => {
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const command = [process.execPath, BIN, 'markings', 'delete', 'classification']
      .map(quote)
      .join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      // A person at a terminal: CI (set where .ci/run runs) would refuse to ask at all.
      env: cleanEnv({ KSCTL_CONFIG_DIR: configDir, CI: '' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (screen += text));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    try {
      for (let i = 0; i < 400 && !screen.includes('Delete marking'); i++) await sleep(50);
      expect(screen).toContain('Delete marking "classification"');
      child.stdin.write('\x04');
      // It used to print "interrupted" and exit 0, as if nothing had gone wrong.
      expect(await closed).toBe(130);
    } finally {
      clearTimeout(killer);
      child.stdin.end();
    }
    expect(screen).toContain('error: interrupted; nothing was changed');
    expect((await ksctl(['markings', 'get', 'classification'])).code).toBe(0);
  });
});

describe('stopping', () => {
  it('SIGTERM stops the mock gracefully with exit 0', async () => {
    const exit = await served.stop();
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.stderr).toMatch(/stopped\n$/);
    const after = await ksctl(['markings', 'list']);
    expect(after.code).toBe(7);
  });
});

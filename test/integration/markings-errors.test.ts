/**
 * How the markings commands fail: exit codes of docs/design.md 5, the message on stderr with the
 * conversation id of the failing request, nothing sent when the input is invalid, retries.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { conversationIdOf, mockEnv, runCli } from '../helpers/cli.js';
import { mockSuite } from '../helpers/mock-suite.js';
import { DEV_TOKEN, startMock } from '../helpers/mock.js';

const READER_TOKEN = 'reader-token-with-markings-read-only';

const suite = mockSuite({
  seed: {
    markings: [
      { name: 'classification', values: ['public', 'internal'], defaultValue: 'internal' },
    ],
    tokens: [{ token: READER_TOKEN, name: 'reader', scopes: ['markings:read'] }],
  },
});
const { ksctl } = suite;

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('errors from the service: exit code, message, conversation id', () => {
  it.each<[string, string[], Record<string, string | undefined>, number, RegExp]>([
    [
      'no token (401)',
      ['markings', 'list'],
      { KSCTL_TOKEN: undefined },
      4,
      /missing Authorization header/,
    ],
    [
      'a bad token (401)',
      ['markings', 'list'],
      { KSCTL_TOKEN: 'nope' },
      4,
      /unknown or invalid credentials \(40100\)\nhint: the token came from KSCTL_TOKEN in the environment/,
    ],
    [
      'a token without the scope (403)',
      ['markings', 'create', 'x'],
      { KSCTL_TOKEN: READER_TOKEN },
      4,
      /missing scope markings:create[\s\S]*scope: this operation needs markings:create/,
    ],
    [
      'an unknown tenant (404)',
      ['markings', 'list'],
      { KSCTL_BASE_URL: 'BASE/../nope' },
      5,
      /tenant nope not found/,
    ],
    [
      'an unknown marking name (404)',
      ['markings', 'get', 'nope'],
      {},
      5,
      /marking "nope" not found/,
    ],
    [
      'an unknown marking id (404)',
      ['markings', 'get', '000000000000000000000000'],
      {},
      5,
      /not found/,
    ],
    [
      'an unknown value (404)',
      ['markings', 'values', 'get', 'classification', 'nope'],
      {},
      5,
      /value "nope" not found in marking classification\nhint: list its values with `ksctl markings values list classification`/,
    ],
    [
      'a duplicate name (409)',
      ['markings', 'create', 'classification'],
      {},
      6,
      /a marking named "classification" already exists/,
    ],
    [
      'a stale version (412)',
      ['markings', 'delete', 'classification', '--if-version', '7', '--yes'],
      {},
      6,
      /is at version 1, not 7 \(41200\)\nhint: the marking changed since it was read/,
    ],
  ])('%s', async (_what, argv, env, code, message) => {
    const baseUrl = env.KSCTL_BASE_URL?.replace('BASE/..', `${suite.mock.info.url}/v2`);
    const result = await ksctl(argv, {
      env: { ...env, ...(baseUrl ? { KSCTL_BASE_URL: baseUrl } : {}) },
    });
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: /);
    expect(result.stderr).toMatch(message);
    const journal = await suite.mock.journal();
    expect(conversationIdOf(result.stderr)).toBe(journal.at(-1)!.cid);
  });

  it.each<[string, Record<string, unknown>, string[], number]>([
    // The commands check what they send (a description's length too): a 400 is the service's.
    ['400', { status: 400 }, ['markings', 'values', 'update', 'c', 'v', '--description', 'd'], 3],
    ['413', { status: 413 }, ['markings', 'create', 'x'], 3],
    ['415', { status: 415 }, ['markings', 'create', 'x'], 3],
    ['500', { status: 500 }, ['markings', 'list'], 7],
    ['500 on a write', { status: 500, method: 'POST' }, ['markings', 'create', 'x'], 7],
  ])('an injected %s', async (_what, rule, argv, code) => {
    await suite.mock.setFaults([{ path: '/v2/dev/markings*', ...rule }]);
    const result = await ksctl(argv);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(/injected fault/);
    const journal = await suite.mock.journal();
    expect(journal).toHaveLength(1);
    expect(conversationIdOf(result.stderr)).toBe(journal[0]!.cid);
  });

  it('an unreachable service is exit 7, after retries, with the conversation id', async () => {
    const port = await closedPort();
    const result = await ksctl(['markings', 'list'], {
      env: { KSCTL_BASE_URL: `http://127.0.0.1:${port}/v2/dev` },
    });
    expect(result.code).toBe(7);
    expect(result.stderr).toMatch(
      /cannot reach the service at http:\/\/127\.0\.0\.1:\d+: connection refused/,
    );
    expect(conversationIdOf(result.stderr)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a 429 with Retry-After is retried, then succeeds', async () => {
    await suite.mock.setFaults([
      { status: 429, method: 'POST', path: '/v2/dev/markings', times: 1 },
    ]);
    const result = await ksctl(['markings', 'create', 'retried', '-o', 'json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).name).toBe('retried');
    const posts = (await suite.mock.journal()).filter((r) => r.method === 'POST');
    expect(posts.map((r) => r.status)).toEqual([429, 201]);
    // The same request, sent again: one conversation.
    expect(posts[0]!.cid).toBe(posts[1]!.cid);
  });

  it('a 503 on a read is retried, then succeeds', async () => {
    await suite.mock.setFaults([{ status: 503, method: 'GET', times: 1 }]);
    const result = await ksctl(['markings', 'list']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^classification\t/);
  });

  it('a read-only token can still read', async () => {
    const result = await ksctl(['markings', 'list'], { env: { KSCTL_TOKEN: READER_TOKEN } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^classification\t/);
  });

  it('a per-request timeout is exit 7', async () => {
    const slow = await startMock({ latency: { minMs: 400, maxMs: 400 } });
    try {
      const result = await runCli(['markings', 'list', '--timeout', '0.1'], {
        env: mockEnv(slow, suite.configDir),
      });
      expect(result.code).toBe(7);
      expect(result.stderr).toMatch(/timed out/);
      // A read is tried again: the words say how often and how long it took in all.
      const hint =
        /^hint: no answer within 0\.1 s \((\d) tries, (\d+\.\d) s in all\); give it longer with --timeout/m;
      expect(result.stderr).toMatch(hint);
      const [, tries, seconds] = hint.exec(result.stderr)!;
      expect(Number(tries)).toBeGreaterThan(1);
      expect(Number(seconds)).toBeGreaterThanOrEqual(Number(tries) * 0.1);
      expect(result.stderr).not.toContain('may have been made');
      expect(conversationIdOf(result.stderr)).toBeDefined();

      // A write that timed out may have landed all the same: the hint says to look first.
      const write = await runCli(['markings', 'create', 'late', '--timeout', '0.1'], {
        env: mockEnv(slow, suite.configDir),
      });
      expect(write.code).toBe(7);
      expect(write.stderr).toMatch(/--timeout .*the change may have been made even so: check/);
      // A write is tried once: the timeout is the whole wait.
      expect(write.stderr).toMatch(/^hint: no answer within 0\.1 s; give it longer/m);
    } finally {
      await slow.close();
    }
  });

  it('a 404 from a base URL without /v2/TENANT says the URL is the likely cause', async () => {
    const origin = new URL(suite.mock.baseUrl).origin;
    for (const args of [
      ['markings', 'list'],
      ['markings', 'get', 'classification'],
    ]) {
      const result = await ksctl(args, { env: { KSCTL_BASE_URL: origin } });
      expect(result.code).toBe(5);
      expect(result.stderr).toContain(`hint: the base URL ${origin} does not end in /v2/TENANT`);
    }
    // With the tenant in it, an unknown marking is just that.
    const unknown = await ksctl(['markings', 'get', 'nonesuch']);
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).not.toContain('/v2/TENANT');
  });
});

describe('a marking or value not found by name', () => {
  const found = mockSuite({ seed: { markings: [{ name: 'region', values: ['eu'] }] } });

  it.each([
    [['markings', 'get', 'nope'], /marking "nope" not found/],
    [['markings', 'values', 'get', 'classification', 'nope'], /value "nope" not found/],
  ])('%j names the conversation of the lookup', async (argv, message) => {
    await found.api.createMarking({ name: 'classification' });
    const result = await runCli(argv, { env: mockEnv(found.mock, await found.makeDir()) });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(message);
    const journal = await found.mock.journal();
    expect(conversationIdOf(result.stderr)).toBe(journal.at(-1)!.cid);
  });

  it('values delete names the marking to list, not MARKING', async () => {
    const result = await found.ksctl(['markings', 'values', 'delete', 'region', 'nosuch', '--yes']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain(
      'hint: list its values with `ksctl markings values list region`',
    );
  });
});

describe('invalid input is caught before anything is sent (exit 3)', () => {
  it.each([
    [
      ['markings', 'create', ' padded'],
      /invalid marking name " padded": must not start or end with white space; nothing was sent/,
    ],
    [
      ['markings', 'create', 'x', '--value', 'tab\there'],
      /--value "tab\\there": value name must not contain control characters/,
    ],
    [['markings', 'create', 'x', '--value', 'a', '--value', 'a'], /--value "a": given twice/],
    [['markings', 'create', 'x', '--value', '=description only'], /value name must not be empty/],
    [
      ['markings', 'create', 'x', '--value', 'a', '--default-value', 'b'],
      /--default-value "b" is not one of the --value options/,
    ],
    [['markings', 'create', 'x'.repeat(257)], /must be at most 256 characters/],
    [
      ['markings', 'update', 'classification', '--rename', ''],
      /invalid new name "": must not be empty/,
    ],
    [
      ['markings', 'update', 'classification', '--add-value', 'ok', '--add-value', 'b\nad'],
      /control characters/,
    ],
    [['markings', 'values', 'add', 'classification', ' x'], /white space/],
    [
      ['markings', 'values', 'update', 'classification', 'public', '--rename', 'a\u0007'],
      /control characters/,
    ],
  ])('%j', async (argv, message) => {
    const result = await ksctl(argv);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(message);
    expect(conversationIdOf(result.stderr)).toBeUndefined();
    expect(await suite.mock.journal()).toEqual([]);
  });
});

describe('a description too long names whose it is and where it was given (exit 3)', () => {
  const long = 'd'.repeat(4097);
  const most = 'must be at most 4096 characters';
  it.each<[string[], string]>([
    [
      ['markings', 'create', 'm', '--description', long],
      `--description: the description of marking "m" ${most}; nothing was sent`,
    ],
    [
      ['markings', 'update', 'classification', '--description', long],
      `--description: the description of marking "classification" ${most}`,
    ],
    [
      ['markings', 'create', 'm', '--value', `v=${long}`],
      `  --value "v": the value's description ${most}`,
    ],
    [
      ['markings', 'update', 'classification', '--add-value', `v=${long}`],
      `  --add-value "v": the value's description ${most}`,
    ],
    [
      ['markings', 'values', 'add', 'classification', `v=${long}`],
      `  value "v": the value's description ${most}`,
    ],
    [
      ['markings', 'values', 'add', 'classification', 'v', '--description', long],
      `--description: the description of the values added ${most}`,
    ],
    [
      ['markings', 'values', 'update', 'classification', 'public', '--description', long],
      `--description: the description of value "public" ${most}`,
    ],
  ])('case %#', async (argv, message) => {
    const result = await ksctl(argv);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(message);
    expect(await suite.mock.journal()).toEqual([]);
  });
});

describe('a name of 10,000 characters is quoted cut short, with its length', () => {
  const name = 'n'.repeat(10_000);
  it.each<[string[], number]>([
    [['markings', 'get', name], 5],
    [['markings', 'delete', name, '--yes'], 5],
    [['markings', 'create', name], 3],
    [['markings', 'update', 'classification', '--rename', name], 3],
    [['markings', 'create', 'x', '--value', 'a', '--default-value', name], 3],
    [['markings', 'values', 'get', 'classification', name], 5],
    [['markings', 'values', 'add', 'classification', name], 3],
    [['markings', 'update', 'classification', '--remove-value', name], 3],
    [['context', 'use', name], 5],
  ])('case %#', async (argv, code) => {
    const result = await ksctl(argv);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(`"${'n'.repeat(60)}"… (10,000 characters)`);
    expect(result.stderr.length).toBeLessThan(500);
  });
});

describe('usage errors (exit 2), nothing sent', () => {
  it.each([
    [['markings', 'list', '--bogus'], /unknown option '--bogus'/],
    [['markings', 'list', '--value-limit', 'all'], /expected a whole number/],
    [['markings', 'list', '--limit', '0'], /expected a whole number from 1 to 999999999/],
    [['markings', 'list', '-o', 'xml'], /Allowed choices are table, json, yaml/],
    [['markings', 'frobnicate'], /unknown command 'frobnicate'/],
    [['markings', 'get'], /missing required argument 'marking'/],
    [['markings', 'create'], /a name is needed/],
    [['markings', 'list', '--timeout', '-1'], /expected a number of seconds from 0.001 to 86400/],
  ])('%j', async (argv, message) => {
    const result = await ksctl(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(await suite.mock.journal()).toEqual([]);
  });

  it('KSCTL_OUTPUT that is not a format', async () => {
    const result = await ksctl(['markings', 'list'], { env: { KSCTL_OUTPUT: 'xml' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/KSCTL_OUTPUT must be one of table, json, yaml/);
  });

  it('no base URL anywhere', async () => {
    const result = await runCli(['markings', 'list'], {
      env: { KSCTL_CONFIG_DIR: await suite.makeDir() },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no service to talk to\nhint: pass --base-url/);
  });

  it('--help and --version exit 0', async () => {
    const help = await ksctl(['markings', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: ksctl markings/);
    expect((await ksctl(['--version'])).code).toBe(0);
  });
});

describe('--debug', () => {
  it('traces requests and answers on stderr with the token redacted, stdout unchanged', async () => {
    const plain = await ksctl(['markings', 'list']);
    for (const result of [
      await ksctl(['--debug', 'markings', 'list']),
      await ksctl(['markings', 'list'], { env: { KSCTL_DEBUG: '1' } }),
    ]) {
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(plain.stdout);
      expect(result.stderr).toMatch(
        /^\[debug\] > GET http:\/\/127\.0\.0\.1:\d+\/v2\/dev\/markings\?/m,
      );
      expect(result.stderr).toMatch(/^\[debug\] > authorization: Bearer \[redacted\]$/m);
      expect(result.stderr).toMatch(/^\[debug\] < 200 /m);
      expect(result.stderr).not.toContain(DEV_TOKEN);
    }
  });

  it('never shows the token, also when a request fails or the token comes from a file', async () => {
    const result = await ksctl(
      ['--debug', '--token-file', '-', 'markings', 'create', 'classification'],
      {
        stdin: `${DEV_TOKEN}\n`,
        env: { KSCTL_TOKEN: undefined },
      },
    );
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/^\[debug\] < 409 /m);
    expect(result.stderr).toMatch(/conversation id: /);
    expect(result.stderr).not.toContain(DEV_TOKEN);
  });
});

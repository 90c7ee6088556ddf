/**
 * Regressions of an audit, through the whole CLI against the in-process mock: bad timeouts and
 * tokens are usage errors (exit 2) naming their source and sending nothing, `api --query`,
 * `context add --timeout`, the bounds of number options, and `export -o table`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { cliFor, mockEnv, runCli } from '../helpers/cli.js';
import { startMock, type TestMock } from '../helpers/mock.js';
import { tempDirs } from '../helpers/temp.js';

const dirs = tempDirs();
let mock: TestMock;
let configDir: string;
const ksctl = cliFor(() => mockEnv(mock, configDir));

beforeAll(async () => {
  mock = await startMock({ seed: { markings: [{ name: 'classification', values: ['a'] }] } });
});
afterAll(async () => {
  await mock.close();
  await dirs.removeAll();
});
beforeEach(async () => {
  configDir = await dirs.make();
  await mock.reset();
});

/** A user mistake: exit 2, no stack trace, no "bug", nothing sent to the service. */
async function expectUsageError(
  result: { code: number; stderr: string },
  message: RegExp,
): Promise<void> {
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/bug|unexpected error|\n\s+at /);
  expect(await mock.journal()).toEqual([]);
}

describe('timeouts out of range were a bug (exit 1) or passed silently', () => {
  it.each(['9999999', '4294968', '0.0001', 'abc', '-5'])('--timeout %s', async (seconds) => {
    await expectUsageError(
      await ksctl(['markings', 'list', '--timeout', seconds]),
      /option '--timeout <seconds>' argument .* is invalid\. expected a number of seconds from 0\.001 to 86400\./,
    );
  });

  it.each(['9999999', '4294968', '0.0001', 'abc', '-5'])('KSCTL_TIMEOUT=%s', async (seconds) => {
    await expectUsageError(
      await ksctl(['markings', 'list'], { env: { KSCTL_TIMEOUT: seconds } }),
      /^error: KSCTL_TIMEOUT must be a positive number of seconds, not ".*"\nhint: a timeout is a number of seconds from 0\.001 to 86400/,
    );
  });

  // enroll read KSCTL_TIMEOUT on its own: -5 ended in exit 1, abc was ignored.
  it.each(['-5', 'abc'])('enroll with KSCTL_TIMEOUT=%s', async (seconds) => {
    await expectUsageError(
      await ksctl(['enroll', '--mock-user', 'alice', '--keyspace', 'ABcd'], {
        env: { KSCTL_TIMEOUT: seconds, KSCTL_HOME: configDir },
      }),
      /KSCTL_TIMEOUT must be a positive number of seconds/,
    );
  });

  it('--timeout 0.0015 is 2 ms: a slow service times out (exit 7), not a bug', async () => {
    const slow = await startMock({ latency: { minMs: 200, maxMs: 200 } });
    try {
      const result = await runCli(['markings', 'list', '--timeout', '0.0015'], {
        env: mockEnv(slow, configDir),
      });
      expect(result.code).toBe(7);
      expect(result.stderr).toMatch(/timed out/);
    } finally {
      await slow.close();
    }
  });

  it('the client takes a timeout a hair off whole milliseconds (seconds × 1000)', async () => {
    const timeoutMs = (0.1 + 0.2) * 10_000; // 3000.0000000000005
    expect(Number.isInteger(timeoutMs)).toBe(false);
    const client = new ApiClient({
      baseUrl: mock.baseUrl,
      auth: { kind: 'bearer', token: mock.token },
      timeoutMs,
    });
    try {
      expect((await client.request('GET', '/markings')).status).toBe(200);
    } finally {
      await client.close();
    }
  });
});

describe('a malformed token was reported as a network failure (exit 7, UND_ERR_INVALID_ARG)', () => {
  const SECRET = 'ksdev.SECRET';

  it.each([
    ['two lines', `${SECRET}\nsecond line\n`, /has more than one line/],
    [
      'binary bytes',
      Buffer.from([0x6b, 0x00, 0xff, 0x01, 0x0a]),
      /has a character that is not visible ASCII/,
    ],
  ])('--token-file with %s', async (_what, content, problem) => {
    const file = join(configDir, 'token.txt');
    await writeFile(file, content);
    const result = await ksctl(['markings', 'list', '--token-file', file]);
    await expectUsageError(
      result,
      new RegExp(`the token in --token-file ${file} ${problem.source}`),
    );
    expect(result.stderr).not.toContain(SECRET);
    expect(result.stderr).not.toMatch(/cannot reach|base URL/);
  });

  it('KSCTL_TOKEN with a control character', async () => {
    const result = await ksctl(['markings', 'list'], { env: { KSCTL_TOKEN: `${SECRET}\u0001b` } });
    await expectUsageError(result, /the token in KSCTL_TOKEN has a character that is not visible/);
    expect(result.stderr).not.toContain(SECRET);
  });

  it('a token stored in a context', async () => {
    await writeFile(
      join(configDir, 'config.json'),
      JSON.stringify({
        currentContext: 'bad',
        contexts: { bad: { baseUrl: mock.baseUrl, token: `${SECRET}\nx` } },
      }),
    );
    const result = await runCli(['markings', 'list'], { env: { KSCTL_CONFIG_DIR: configDir } });
    await expectUsageError(result, /the token in context "bad" has more than one line/);
    expect(result.stderr).not.toContain(SECRET);
  });

  it('context add refuses such a token instead of storing it', async () => {
    const result = await runCli(
      ['context', 'add', 'x', '--base-url', mock.baseUrl, '--token-file', '-'],
      { env: { KSCTL_CONFIG_DIR: configDir }, stdin: `${SECRET}\nx\n` },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/the token in standard input \(--token-file -\) has more than/);
    await expect(readFile(join(configDir, 'config.json'), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});

describe('api: -q is the global --quiet, so the query option is --query only', () => {
  it('--query sends query parameters', async () => {
    const result = await ksctl(['api', 'GET', '/markings', '--query', 'limit=1']);
    expect(result.code).toBe(0);
    const journal = await mock.journal();
    expect(journal.at(-1)!.path).toMatch(/\/markings\?limit=1$/);
  });

  it('the help no longer offers -q for a query', async () => {
    const help = await ksctl(['api', '--help']);
    // Its own options, that is: the global -q, --quiet is listed after them.
    const own = help.stdout.split('Global Options:')[0]!;
    expect(own).toMatch(/--query <key=value>/);
    expect(own).not.toMatch(/-q,|\s-q\s/);
  });

  it('sends the credentials only to the service: a full URL elsewhere is refused', async () => {
    // Another loopback server that would log the Authorization header if anything reached it.
    const other = await startMock({});
    try {
      const elsewhere = `${other.baseUrl}/markings`;
      const refused = await ksctl(['api', 'GET', elsewhere]);
      await expectUsageError(refused, /is not the service .*sends the credentials only there/);
      expect(await other.journal()).toEqual([]);
      // The service's own full URL works like its path.
      const own = await ksctl(['api', 'GET', `${mock.baseUrl}/markings`]);
      expect(own.code).toBe(0);
      expect(JSON.parse(own.stdout)).toMatchObject({ totalResults: 1 });
    } finally {
      await other.close();
    }
  });

  it('a header is checked, and a bad one is not echoed (it may hold a credential)', async () => {
    const result = await ksctl(['api', 'GET', '/markings', '-H', 'Bearer SECRET:x']);
    await expectUsageError(result, /--header number 1 is not valid: its name is not a header name/);
    expect(result.stderr).not.toContain('SECRET');
    const control = await ksctl(['api', 'GET', '/markings', '-H', 'x-a: b\u0001c']);
    await expectUsageError(control, /its value is not one line of printable ASCII/);
  });
});

describe('context add --timeout was swallowed by the global --timeout', () => {
  it('stores it, show prints it, and KSCTL_TIMEOUT is not stored', async () => {
    const env = { KSCTL_CONFIG_DIR: configDir };
    const added = await runCli(
      ['context', 'add', 'slow', '--base-url', mock.baseUrl, '--timeout', '5'],
      { env },
    );
    expect(added.code).toBe(0);
    const shown = await runCli(['context', 'show', 'slow'], { env });
    expect(shown.stdout).toMatch(/^Timeout\t5 s$/m);
    const json = await runCli(['context', 'show', 'slow', '-o', 'json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ timeoutMs: 5000 });

    await runCli(['context', 'add', 'plain', '--base-url', mock.baseUrl], {
      env: { ...env, KSCTL_TIMEOUT: '7' },
    });
    const plain = await runCli(['context', 'show', 'plain', '-o', 'json'], { env });
    expect(JSON.parse(plain.stdout)).not.toHaveProperty('timeoutMs');
  });
});

describe('number options state their bounds', () => {
  it.each([
    [
      ['markings', 'list', '--limit', '1000000000'],
      /expected a whole number from 1 to 999999999\./,
    ],
    [
      ['markings', 'apply', '--concurrency', 'abc'],
      /expected a whole number from 1 to 999999999\./,
    ],
    [
      ['enroll', '--count', 'abc'],
      /'--count <n>' argument 'abc' is invalid\. expected a whole number from 1 to 10000\./,
    ],
    [['enroll', '--count', '999999999'], /expected a whole number from 1 to 10000\./],
    [['markings', 'list', '--value-limit', 'x'], /expected a whole number from 0 to 999999999\./],
  ])('%j', async (argv, message) => {
    await expectUsageError(await ksctl(argv), message);
  });
});

describe('markings export -o table wrote YAML silently', () => {
  it('is a usage error, and yaml and json still work', async () => {
    await expectUsageError(
      await ksctl(['markings', 'export', '-o', 'table']),
      /markings export writes yaml or json, not a table\nhint: pass -o yaml \(the default\) or -o json/,
    );
    const yaml = await ksctl(['markings', 'export', '-o', 'yaml']);
    expect(yaml).toMatchObject({ code: 0 });
    expect(yaml.stdout).toMatch(/^markings:\n {2}- name: classification/);
    const json = await ksctl(['markings', 'export', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ markings: [{ name: 'classification' }] });
  });
});

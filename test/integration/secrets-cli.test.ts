/**
 * Tokens and passwords on the command line: never taken as flags (the hint names the flag that
 * reads a file), and a malformed token, wherever it came from, is a usage error (exit 2) naming
 * its source, never echoed, never sent (it used to be reported as a network failure, exit 7).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectUsageError, runCli } from '../helpers/cli.js';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite({
  seed: { markings: [{ name: 'classification', values: ['a'] }] },
  dirPerTest: true,
});
const { ksctl } = suite;

describe('a malformed token is a usage error, not a network failure (exit 7, UND_ERR_INVALID_ARG)', () => {
  const SECRET = 'ksdev.SECRET';

  it.each([
    ['two lines', `${SECRET}\nsecond line\n`, /has more than one line/],
    [
      'binary bytes',
      Buffer.from([0x6b, 0x00, 0xff, 0x01, 0x0a]),
      /has a character that is not visible ASCII/,
    ],
  ])('--token-file with %s', async (_what, content, problem) => {
    const file = join(suite.configDir, 'token.txt');
    await writeFile(file, content);
    const result = await ksctl(['markings', 'list', '--token-file', file]);
    await expectUsageError(
      suite.mock,
      result,
      new RegExp(`the token in --token-file ${file} ${problem.source}`),
    );
    expect(result.stderr).not.toContain(SECRET);
    expect(result.stderr).not.toMatch(/cannot reach|base URL/);
  });

  it('KSCTL_TOKEN with a control character', async () => {
    const result = await ksctl(['markings', 'list'], { env: { KSCTL_TOKEN: `${SECRET}\u0001b` } });
    await expectUsageError(
      suite.mock,
      result,
      /the token in KSCTL_TOKEN has a character that is not visible/,
    );
    expect(result.stderr).not.toContain(SECRET);
  });

  it('a token stored in a context', async () => {
    await writeFile(
      join(suite.configDir, 'config.json'),
      JSON.stringify({
        currentContext: 'bad',
        contexts: { bad: { baseUrl: suite.mock.baseUrl, token: `${SECRET}\nx` } },
      }),
    );
    const result = await runCli(['markings', 'list'], {
      env: { KSCTL_CONFIG_DIR: suite.configDir },
    });
    await expectUsageError(suite.mock, result, /the token in context "bad" has more than one line/);
    expect(result.stderr).not.toContain(SECRET);
  });

  it('context add refuses such a token instead of storing it', async () => {
    const result = await runCli(
      ['context', 'add', 'x', '--base-url', suite.mock.baseUrl, '--token-file', '-'],
      { env: { KSCTL_CONFIG_DIR: suite.configDir }, stdin: `${SECRET}\nx\n` },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/the token in standard input \(--token-file -\) has more than/);
    await expect(readFile(join(suite.configDir, 'config.json'), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});

describe('secrets given as flags', () => {
  it('a secret given as a flag points at the flag that reads it from a file', async () => {
    const password = await ksctl(['enroll', '--password', 'x']);
    expect(password.code).toBe(2);
    expect(password.stderr).toMatch(
      /^hint: secrets are never taken on the command line; use --password-file PATH/m,
    );
    const token = await ksctl(['context', 'add', 'prod', '--token', 'x']);
    expect(token.stderr).toMatch(/^hint: .*use --token-file PATH/m);
  });
});

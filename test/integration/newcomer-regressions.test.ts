/**
 * What a seasoned gh or terraform user tripped over on a first afternoon with ksctl: errors that
 * pointed at the wrong thing, flags that contradict each other, secrets given as flags, silent
 * waits on standard input, pages of errors for a wrong file.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { InputError } from '../../src/errors.js';
import { formatError } from '../../src/output/errors.js';
import { cliFor, mockCliSuite, mockEnv } from '../helpers/cli.js';
import { ROOT } from '../helpers/spawn.js';

const suite = mockCliSuite({ seed: { markings: [{ name: 'region', values: ['eu'] }] } });
const ksctl = cliFor(() => ({
  ...mockEnv(suite.mock, suite.configDir),
  KSCTL_HOME: suite.configDir,
  KSCTL_API_URL: suite.mock.info.apiUrl,
  KSCTL_ENROLLMENT_URL: suite.mock.info.enrollmentUrl,
  KSCTL_KNS_URL: suite.mock.info.knsUrl,
}));
const NOWHERE = 'http://127.0.0.1:9';

describe('errors point at the right thing', () => {
  it('a device request that cannot connect names the address it tried, not a base URL', async () => {
    // Device requests go to absolute URLs: their client has no base URL.
    const client = new ApiClient({ auth: { kind: 'none' }, retries: 0 });
    const failed = await client.request('POST', `${NOWHERE}/v2.4/keys/create`).catch((e) => e);
    // A relative path is a bug of the caller's, named as such, before anything is sent.
    const relative = await client.request('GET', '/markings').catch((e: Error) => e);
    await client.close();
    expect(failed.message).toContain(`cannot reach the service at ${NOWHERE}`);
    expect(failed.hint).not.toContain('--base-url');
    expect((relative as Error).message).toContain(
      '/markings: this client has no base URL, it takes absolute URLs only',
    );
  });

  it('enroll into an unknown keyspace says so, without a hint about the base URL', async () => {
    const result = await ksctl(['enroll', '--mock-user', 'alice', '--keyspace', 'ZZzz']);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/keyspace ZZzz not found/);
    expect(result.stderr).not.toMatch(/v2\/TENANT/);
  });

  it('markings apply -f README.md lists its problems, each on one short line, not 37 KB', async () => {
    const result = await ksctl(['markings', 'apply', '-f', join(ROOT, 'README.md')]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /^error: invalid markings files \(\d+ problems; nothing was sent\)$/m,
    );
    expect(result.stderr.length).toBeLessThan(8000);
    for (const line of result.stderr.split('\n')) expect(line.length).toBeLessThan(300);
  });

  it('profiles list with a --persistor-path that does not exist is not found (exit 5)', async () => {
    const result = await ksctl(['profiles', 'list', '--persistor-path', '/nonexistent/x.pt']);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/^error: there is no profile file at \/nonexistent\/x\.pt$/m);
    const fresh = await ksctl(['profiles', 'list'], { tty: true });
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).toMatch(/^no profiles in /);
  });

  it('a password file that is not there is not asked a password (a new one, twice) first', async () => {
    for (const tty of [true, false]) {
      const named = await ksctl(['profiles', 'list', '--persistor-path', '/nonexistent/x.pw'], {
        tty,
      });
      expect(named.code).toBe(5);
      expect(named.stderr).toMatch(/^error: there is no profile file at \/nonexistent\/x\.pw$/m);
      expect(named.stderr + named.stdout).not.toMatch(/password/i);
    }
    const shown = await ksctl(['profiles', 'show', 'x', '--persistor-path', '/nonexistent/x.pw']);
    expect(shown.code).toBe(5);
    expect(shown.stderr).toMatch(/^error: there is no profile file at \/nonexistent\/x\.pw$/m);
  });

  it('api: an unknown method, an --input that is not there, a path without its slash', async () => {
    const method = await ksctl(['api', 'FOO', '/markings']);
    expect(method.code).toBe(2);
    expect(method.stderr).toMatch(/^error: "FOO" is not an HTTP method\nhint: use one of GET,/m);
    expect(await suite.mock.journal()).toEqual([]);
    const input = await ksctl(['api', 'POST', '/markings', '--input', '/nonexistent/body.json']);
    expect(input.code).toBe(3);
    expect(input.stderr).toMatch(
      /^error: cannot read the --input file \/nonexistent\/body\.json: no such file/m,
    );
    const bare = await ksctl(['api', 'GET', 'markings']);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toContain('"name": "region"');
  });

  it('status with the service down says who is unknown, not unreported', async () => {
    const result = await ksctl(['status'], { env: { KSCTL_BASE_URL: `${NOWHERE}/v2/dev` } });
    expect(result.code).toBe(7);
    expect(result.stdout).toMatch(/^Who\tunknown \(no answer\)$/m);
    expect(result.stdout).not.toMatch(/not reported/);
  });

  it('--public --no-public is a usage error, nothing sent', async () => {
    for (const argv of [
      ['markings', 'list', '--public', '--no-public'],
      ['markings', 'update', 'region', '--no-public', '--public'],
    ]) {
      const result = await ksctl(argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^error: --public and --no-public contradict each other/m);
    }
    expect(await suite.mock.journal()).toEqual([]);
  });

  it('a secret given as a flag points at the flag that reads it from a file', async () => {
    const password = await ksctl(['enroll', '--password', 'x']);
    expect(password.code).toBe(2);
    expect(password.stderr).toMatch(
      /^hint: secrets are never taken on the command line; use --password-file PATH/m,
    );
    const token = await ksctl(['context', 'add', 'prod', '--token', 'x']);
    expect(token.stderr).toMatch(/^hint: .*use --token-file PATH/m);
  });

  it('apply -f - on a terminal says it reads standard input and how to end it', async () => {
    const result = await ksctl(['markings', 'apply', '-f', '-', '--dry-run'], {
      tty: true,
      stdin: 'markings:\n  - name: region\n    values: [eu]\n',
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^reading markings \(YAML or JSON\) from standard input; end it with Ctrl-D/m,
    );
    const piped = await ksctl(['markings', 'apply', '-f', '-', '--dry-run'], {
      stdin: 'markings:\n  - name: region\n    values: [eu]\n',
    });
    expect(piped.stderr).not.toMatch(/standard input/);
  });

  it('created marking x with 1 value, not 1 values', async () => {
    const one = await ksctl(['markings', 'create', 'x', '--value', 'a']);
    expect(one.stderr).toMatch(/^created marking x \([0-9a-f]{24}\) with 1 value$/m);
    const none = await ksctl(['markings', 'create', 'y']);
    expect(none.stderr).toMatch(/^created marking y \([0-9a-f]{24}\) with 0 values$/m);
  });

  it('values delete names the marking to list, not MARKING', async () => {
    const result = await ksctl(['markings', 'values', 'delete', 'region', 'nosuch', '--yes']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain(
      'hint: list its values with `ksctl markings values list region`',
    );
  });

  it('hints start in lower case, whoever wrote them', () => {
    const text = formatError(new InputError('bad', { hint: 'Check the file' }), false);
    expect(text).toBe('error: bad\nhint: check the file\n');
    const acronym = formatError(new InputError('bad', { hint: 'URL first' }), false);
    expect(acronym).toContain('hint: URL first');
  });
});

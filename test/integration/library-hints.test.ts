/**
 * The library's errors name the options of its calls in their hints, not the CLI's flags (issue
 * 25): the same typed errors, in the words of code; the CLI keeps its flags.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  enroll,
  type KsctlError,
  MarkingsClient,
  ProfileFile,
} from '../../src/client/lib/index.js';
import { type Mock, startMock } from '../../src/client/lib/mock.js';
import { runCli } from '../helpers/cli.js';
import { tempDirs } from '../helpers/temp.js';

const temp = tempDirs();
let mock: Mock;

beforeAll(async () => {
  mock = await startMock({ seed: { markings: [{ name: 'classification', values: ['public'] }] } });
});

afterAll(async () => {
  await mock.close();
  await temp.removeAll();
});

async function failure(promise: Promise<unknown>): Promise<KsctlError> {
  return (await promise.then(
    () => expect.fail('expected the call to fail'),
    (e: unknown) => e,
  )) as KsctlError;
}

/** A hint for code: it names no CLI flag and no ksctl command. */
function expectCodeWords(error: KsctlError, option: string | RegExp): void {
  expect(error.hint).toBeDefined();
  expect(error.hint).not.toMatch(/(^|\s|\()--[a-z]/);
  expect(error.hint).not.toMatch(/\bksctl [a-z]/);
  expect(error.hint).toMatch(option);
}

describe('hints of library errors', () => {
  it('a refused token names the client options, not --token-file', async () => {
    const client = new MarkingsClient({ baseUrl: mock.baseUrl, token: 'wrong', retries: 0 });
    const error = await failure(client.list().toArray());
    expect(error.code).toBe('E_AUTH');
    expectCodeWords(error, /token or basic option/);
    await client.close();
  });

  it('a marking not found points at list()', async () => {
    const client = new MarkingsClient({ baseUrl: mock.baseUrl, token: mock.token });
    const marking = await failure(client.get('clasification'));
    expect(marking.code).toBe('E_NOT_FOUND');
    expectCodeWords(marking, /`list\(\)`/);
    await client.close();
  });

  it('a profile file that does not exist names enroll() and its profileFile', async () => {
    const dir = await temp.make();
    const error = await failure(ProfileFile.plaintext(join(dir, 'none.pt')).active());
    expect(error.message).toMatch(/there is no profile file at/);
    expectCodeWords(error, /enroll\(\) with profileFile/);
  });

  it('a target that would be replaced names { force: true }', async () => {
    const dir = await temp.make();
    const source = ProfileFile.plaintext(join(dir, 'a.pt'));
    const profile = await enroll({
      keyspace: mock.keyspace,
      apiUrl: mock.apiUrl,
      enrollmentUrl: mock.enrollmentUrl,
      tokens: mock.mintTokens('alice'),
      name: 'one',
      profileFile: source,
    });
    expect(profile.name).toBe('one');
    const target = ProfileFile.plaintext(join(dir, 'b.pt'));
    await source.convert(target);
    const error = await failure(source.convert(target));
    expectCodeWords(error, /\{ force: true \}/);
  });

  it('enroll() names its options: the URLs and the portal sign-in', async () => {
    const noUrls = await failure(
      enroll({ keyspace: mock.keyspace, tokens: mock.mintTokens('alice') }),
    );
    expect(noUrls.code).toBe('E_USAGE');
    expectCodeWords(noUrls, /apiUrl and enrollmentUrl, or knsUrl/);
    const wrong = await failure(
      enroll({
        keyspace: mock.keyspace,
        apiUrl: mock.apiUrl,
        enrollmentUrl: mock.enrollmentUrl,
        portal: { username: 'alice', password: 'not-her-password' },
      }),
    );
    expect(wrong.code).toBe('E_AUTH');
    expectCodeWords(wrong, /portal\.password/);
  });

  it('a failed marking of apply() has its hint in code words too', async () => {
    const client = new MarkingsClient({ baseUrl: mock.baseUrl, token: mock.token });
    const plan = await client.plan({ markings: [{ name: 'new-one' }] });
    const refused = new MarkingsClient({ baseUrl: mock.baseUrl, token: 'wrong', retries: 0 });
    const report = await refused.apply(plan);
    expect(report.failed[0]?.code).toBe('E_AUTH');
    expect(report.failed[0]?.hint).toMatch(/token or basic option/);
    await Promise.all([client.close(), refused.close()]);
  });

  it('the CLI keeps its flags and commands for the same errors', async () => {
    const env = {
      KSCTL_CONFIG_DIR: await temp.make(),
      KSCTL_BASE_URL: mock.baseUrl,
      KSCTL_TOKEN: mock.token,
    };
    const missing = await runCli(['markings', 'get', 'clasification'], { env });
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('`ksctl markings list`');
    const refused = await runCli(['markings', 'list'], { env: { ...env, KSCTL_TOKEN: 'wrong' } });
    expect(refused.code).toBe(4);
    const dir = await temp.make();
    const profiles = await runCli(['profiles', 'list', '--persistor-path', join(dir, 'none.pt')], {
      env,
    });
    expect(profiles.code).toBe(5);
    expect(profiles.stderr).toContain('--persistor-path');
  });
});

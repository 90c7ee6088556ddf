/**
 * `ksctl context add|use|list|show|remove`, where contexts are stored, and how --context and
 * KSCTL_* choose and override them, against the in-process mock.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tsvRows } from '../helpers/cli.js';
import { contextSuite } from './context-fixtures.js';

const suite = contextSuite();
const { ksctl } = suite;

const addMock = (name: string, ...extra: string[]) =>
  ksctl([
    'context',
    'add',
    name,
    '--base-url',
    suite.mock.baseUrl,
    '--token-file',
    suite.tokenFile,
    ...extra,
  ]);

describe('context add', () => {
  it('the first context becomes current and is used at once', async () => {
    const added = await addMock('dev');
    expect(added).toMatchObject({ code: 0, stderr: 'added context dev (current)\n' });
    const listed = await ksctl(['markings', 'list']);
    expect(listed.code).toBe(0);
    expect(tsvRows(listed.stdout).map((r) => r[0])).toEqual(['from-mock']);
  });

  it('stores the token in a file only its owner can read, in a directory only its owner can enter', async () => {
    await addMock('dev');
    const file = join(suite.configDir, 'config.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(suite.configDir)).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(await readFile(file, 'utf8'));
    expect(stored).toMatchObject({
      currentContext: 'dev',
      contexts: { dev: { baseUrl: suite.mock.baseUrl, token: suite.mock.token } },
    });
  });

  it('the token may come from standard input', async () => {
    const added = await ksctl(
      ['context', 'add', 'piped', '--base-url', suite.mock.baseUrl, '--token-file', '-'],
      {
        stdin: `${suite.mock.token}\n`,
      },
    );
    expect(added.code).toBe(0);
    expect((await ksctl(['markings', 'list'])).code).toBe(0);
  });

  it('a second context does not become current unless --use', async () => {
    await addMock('one');
    expect((await addMock('two')).stderr).toBe('added context two\n');
    expect((await addMock('three', '--use')).stderr).toBe('added context three (current)\n');
  });

  it.each([
    [['context', 'add', 'bad name'], 2, /invalid context name "bad name"/],
    [
      ['context', 'add', 'x', '--base-url', 'ftp://x'],
      2,
      /--base-url "ftp:\/\/x" is not an http\(s\) URL/,
    ],
    [['context', 'add', 'x', '--username', 'u'], 2, /--username and --password-file go together/],
    [
      [
        'context',
        'add',
        'x',
        '--base-url',
        'http://127.0.0.1:9/v2/dev',
        '--token-file',
        '/nonexistent/token',
      ],
      2,
      /cannot read the token from \/nonexistent\/token: no such file or directory/,
    ],
  ])('%j fails (exit %i)', async (argv, code, message) => {
    const result = await ksctl(argv);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });

  // Every mix of the settings that name no service: refused at once (exit 2, naming --base-url),
  // nothing stored, no secret read; it used to be stored as {} and fail at its first use.
  const others: string[][] = [
    ['--timeout', '60'],
    ['--keyspace', 'ABcd'],
    ['--persistor', 'plaintext', '--persistor-path', 'p.pt'],
    ['--use'],
    ['--token-file', '-'],
    ['--username', 'u', '--password-file', '-'],
  ];
  const mixes = Array.from({ length: 2 ** others.length }, (_, bits) =>
    others.filter((_, i) => bits & (1 << i)),
  ).filter((mix) => !(mix.includes(others[4]!) && mix.includes(others[5]!)));
  it.each(mixes.map((mix) => [mix.flat().join(' ') || '(nothing)', mix.flat()]))(
    'without a service URL, %s: exit 2 naming --base-url, nothing stored',
    async (_, flags) => {
      const file = join(suite.configDir, 'config.json');
      const before = await readFile(file, 'utf8').catch(() => undefined);
      const result = await ksctl(['context', 'add', 'prod', ...flags], { stdin: 'secret-token\n' });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^error: context "prod" needs the URL of the service: --base-url URL\nhint: the markings API: --base-url https:\/\/HOST\/v2\/TENANT; .*--kns-url/,
      );
      expect(result.stderr).not.toContain('secret-token');
      expect(await readFile(file, 'utf8').catch(() => undefined)).toBe(before);
    },
  );

  it('a context for enrollment alone needs no --base-url', async () => {
    const added = await ksctl([
      'context',
      'add',
      'lab',
      '--kns-url',
      suite.mock.baseUrl.replace(/\/v2\/.*/, ''),
      '--keyspace',
      'ABcd',
    ]);
    expect(added.code).toBe(0);
    const shown = await ksctl(['context', 'show', 'lab', '-o', 'json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ keyspace: 'ABcd' });
  });

  it('an existing name is a conflict (exit 6) unless --force', async () => {
    await addMock('dev');
    const again = await addMock('dev');
    expect(again.code).toBe(6);
    expect(again.stderr).toMatch(/context "dev" already exists\nhint: pass --force/);
    expect((await addMock('dev', '--force')).code).toBe(0);
  });

  it('--timeout is stored, not taken for the global --timeout; KSCTL_TIMEOUT is not stored', async () => {
    const added = await ksctl([
      'context',
      'add',
      'slow',
      '--base-url',
      suite.mock.baseUrl,
      '--timeout',
      '5',
    ]);
    expect(added.code).toBe(0);
    const shown = await ksctl(['context', 'show', 'slow']);
    expect(shown.stdout).toMatch(/^Timeout\t5 s$/m);
    const json = await ksctl(['context', 'show', 'slow', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ timeoutMs: 5000 });

    await ksctl(['context', 'add', 'plain', '--base-url', suite.mock.baseUrl], {
      env: { KSCTL_TIMEOUT: '7' },
    });
    const plain = await ksctl(['context', 'show', 'plain', '-o', 'json']);
    expect(JSON.parse(plain.stdout)).not.toHaveProperty('timeoutMs');
  });
});

describe('context list and show never print secrets', () => {
  beforeEach(async () => {
    await addMock('dev');
    await writeFile(join(suite.configDir, 'pw'), 'basic-secret-password\n');
    await ksctl([
      'context',
      'add',
      'basic',
      '--base-url',
      'https://other.example/v2/t',
      '--username',
      'ann',
      '--password-file',
      join(suite.configDir, 'pw'),
    ]);
  });

  it('list: the current one marked; piped and as JSON', async () => {
    const piped = await ksctl(['context', 'list']);
    expect(tsvRows(piped.stdout)).toEqual([
      ['', 'basic', 'https://other.example/v2/t', 'basic (ann)'],
      ['*', 'dev', suite.mock.baseUrl, 'bearer token'],
    ]);
    const asJson = await ksctl(['context', 'ls', '-o', 'json']);
    expect(JSON.parse(asJson.stdout)).toEqual([
      { name: 'basic', current: false, baseUrl: 'https://other.example/v2/t', auth: 'basic (ann)' },
      { name: 'dev', current: true, baseUrl: suite.mock.baseUrl, auth: 'bearer token' },
    ]);
  });

  it.each(['table', 'json', 'yaml'])('show and list -o %s', async (format) => {
    for (const argv of [
      ['context', 'show'],
      ['context', 'show', 'basic'],
      ['context', 'list'],
    ]) {
      const result = await ksctl([...argv, '-o', format], { tty: format === 'table' });
      expect(result.code).toBe(0);
      expect(result.stdout + result.stderr).not.toContain(suite.mock.token);
      expect(result.stdout + result.stderr).not.toContain('basic-secret-password');
    }
  });

  it('show: the current context by default, another by name, where the file is', async () => {
    const shown = JSON.parse((await ksctl(['context', 'show', '-o', 'json'])).stdout);
    expect(shown).toEqual({
      name: 'dev',
      current: true,
      auth: 'bearer token',
      baseUrl: suite.mock.baseUrl,
      configFile: join(suite.configDir, 'config.json'),
    });
    const rows = tsvRows((await ksctl(['context', 'show', 'basic'])).stdout);
    expect(rows).toContainEqual(['Auth', 'basic (ann)']);
    expect(rows).toContainEqual(['Current', 'no']);
    expect((await ksctl(['context', 'show', 'nope'])).code).toBe(5);
  });
});

describe('choosing and overriding a context', () => {
  beforeEach(async () => {
    await addMock('dev');
    await ksctl(['context', 'add', 'broken', '--base-url', suite.mock.baseUrl]);
  });

  it('use switches the current context; an unknown one is not found (exit 5)', async () => {
    expect(await ksctl(['context', 'use', 'broken'])).toMatchObject({
      code: 0,
      stderr: 'switched to context broken\n',
    });
    expect((await ksctl(['markings', 'list'])).code).toBe(4);
    expect((await ksctl(['context', 'use', 'nope'])).code).toBe(5);
  });

  it('--context and KSCTL_CONTEXT pick another context for one command', async () => {
    expect((await ksctl(['--context', 'broken', 'markings', 'list'])).code).toBe(4);
    expect((await ksctl(['markings', 'list'], { env: { KSCTL_CONTEXT: 'broken' } })).code).toBe(4);
    expect(
      (await ksctl(['markings', 'list', '--context', 'dev'], { env: { KSCTL_CONTEXT: 'broken' } }))
        .code,
    ).toBe(0);
    const unknown = await ksctl(['--context', 'nope', 'markings', 'list']);
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toMatch(/context "nope" not found\nhint: known contexts: broken, dev/);
  });

  it('KSCTL_TOKEN and KSCTL_BASE_URL override the context; flags override those', async () => {
    await ksctl(['context', 'use', 'broken']);
    expect(
      (await ksctl(['markings', 'list'], { env: { KSCTL_TOKEN: suite.mock.token } })).code,
    ).toBe(0);
    const elsewhere = `${suite.mock.info.url}/v2/elsewhere`;
    expect(
      (
        await ksctl(['markings', 'list'], {
          env: { KSCTL_TOKEN: suite.mock.token, KSCTL_BASE_URL: elsewhere },
        })
      ).code,
    ).toBe(5);
    const flagged = await ksctl(
      ['markings', 'list', '--base-url', suite.mock.baseUrl, '--token-file', suite.tokenFile],
      {
        env: { KSCTL_TOKEN: 'wrong', KSCTL_BASE_URL: elsewhere },
      },
    );
    expect(flagged.code).toBe(0);
  });
});

describe('where a setting comes from (issue 25, item 6)', () => {
  beforeEach(async () => {
    await addMock('dev');
    await ksctl(['context', 'add', 'broken', '--base-url', suite.mock.baseUrl]);
  });

  it('status names the settings the environment gives, and none the context gives', async () => {
    const fromContext = tsvRows((await ksctl(['status'])).stdout);
    expect(fromContext).toContainEqual(['Context', 'dev (current)']);
    expect(fromContext).toContainEqual(['Base URL', suite.mock.baseUrl]);
    expect(fromContext).toContainEqual(['Credentials', 'bearer token']);
    const env = {
      KSCTL_CONTEXT: 'broken',
      KSCTL_TOKEN: suite.mock.token,
      KSCTL_BASE_URL: suite.mock.baseUrl,
    };
    const fromEnvironment = await ksctl(['status'], { env });
    expect(fromEnvironment.code).toBe(0);
    const rows = tsvRows(fromEnvironment.stdout);
    expect(rows).toContainEqual(['Context', 'broken (from KSCTL_CONTEXT)']);
    expect(rows).toContainEqual(['Base URL', `${suite.mock.baseUrl} (from KSCTL_BASE_URL)`]);
    expect(rows).toContainEqual(['Credentials', 'bearer token (from KSCTL_TOKEN)']);
    const asJson = JSON.parse((await ksctl(['status', '-o', 'json'], { env })).stdout);
    expect(asJson.sources).toEqual({
      context: 'KSCTL_CONTEXT',
      baseUrl: 'KSCTL_BASE_URL',
      auth: 'KSCTL_TOKEN',
    });
    const basic = await ksctl(['status'], {
      env: { KSCTL_USERNAME: 'ann', KSCTL_PASSWORD: 'not-known' },
    });
    expect(tsvRows(basic.stdout)).toContainEqual([
      'Credentials',
      'basic (ann) (from KSCTL_USERNAME and KSCTL_PASSWORD)',
    ]);
  });

  it('context show says which of its settings the environment overrides', async () => {
    const env = { KSCTL_CONTEXT: 'dev', KSCTL_TOKEN: 'from-env', KSCTL_TIMEOUT: '5' };
    const rows = tsvRows((await ksctl(['context', 'show'], { env })).stdout);
    expect(rows).toContainEqual(['Name', 'dev (from KSCTL_CONTEXT)']);
    expect(rows).toContainEqual(['Auth', 'bearer token (KSCTL_TOKEN overrides it)']);
    expect(rows).toContainEqual(['Timeout', 'none stored; KSCTL_TIMEOUT sets it']);
    expect(rows).toContainEqual(['Base URL', suite.mock.baseUrl]);
    const overridden = await ksctl(['context', 'show', 'dev'], {
      env: { KSCTL_BASE_URL: 'http://127.0.0.1:9/v2/t' },
    });
    expect(tsvRows(overridden.stdout)).toContainEqual([
      'Base URL',
      `${suite.mock.baseUrl} (KSCTL_BASE_URL overrides it)`,
    ]);
    const asJson = JSON.parse((await ksctl(['context', 'show', '-o', 'json'], { env })).stdout);
    expect(asJson).toMatchObject({
      chosenBy: 'KSCTL_CONTEXT',
      overriddenBy: { auth: 'KSCTL_TOKEN', timeoutMs: 'KSCTL_TIMEOUT' },
    });
    expect(JSON.stringify(asJson)).not.toContain('from-env');
  });

  it('a 401 with a token from the environment says the token came from there', async () => {
    const env = { KSCTL_TOKEN: 'not-a-known-token' };
    for (const argv of [['markings', 'list'], ['status'], ['api', 'GET', '/markings']]) {
      const refused = await ksctl(argv, { env });
      expect(refused.code).toBe(4);
      expect(refused.stderr).toMatch(
        /^hint: the token came from KSCTL_TOKEN in the environment: check it or unset it$/m,
      );
      expect(refused.stderr).not.toContain('not-a-known-token');
    }
    // A token of the context's own is not blamed on the environment.
    await ksctl(
      ['context', 'add', 'stale', '--base-url', suite.mock.baseUrl, '--token-file', '-'],
      {
        stdin: 'not-a-known-token\n',
      },
    );
    const stale = await ksctl(['--context', 'stale', 'markings', 'list']);
    expect(stale.code).toBe(4);
    expect(stale.stderr).not.toMatch(/environment/);
  });
});

describe('context remove', () => {
  beforeEach(() => addMock('dev'));

  it('needs --yes off a terminal; on a terminal it asks', async () => {
    expect((await ksctl(['context', 'remove', 'dev'])).code).toBe(2);
    const declined = await ksctl(['context', 'rm', 'dev'], { tty: true, answers: [false] });
    expect(declined.questions).toEqual([
      'Remove context "dev" and the credentials stored with it?',
    ]);
    expect(declined.code).toBe(2);
    expect((await ksctl(['context', 'show', 'dev'])).code).toBe(0);
    const accepted = await ksctl(['context', 'rm', 'dev'], { tty: true, answers: [true] });
    expect(accepted).toMatchObject({ code: 0, stderr: 'removed context dev\n' });
  });

  it('removing the current context leaves none current, and its token is gone from the file', async () => {
    expect((await ksctl(['context', 'remove', 'dev', '--yes'])).code).toBe(0);
    const stored = await readFile(join(suite.configDir, 'config.json'), 'utf8');
    expect(stored).not.toContain(suite.mock.token);
    expect(JSON.parse(stored).currentContext).toBeUndefined();
    const show = await ksctl(['context', 'show']);
    expect(show.code).toBe(2);
    expect(show.stderr).toMatch(/there is no current context/);
    expect((await ksctl(['markings', 'list'])).code).toBe(2);
  });
});

/**
 * `ksctl enroll` in-process against the real mock: where the inputs come from (flags, the
 * environment, the context, the key naming lookup, the portal), what is stored, what is never
 * printed, and the replay race. One pre-generated device key pair stands in for the RSA-3072
 * generation of every enrollment (seconds each); the e2e tests run the real one.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TokenPair } from '../../src/common/enrollment/wire.js';
import { deviceKeySource } from '../../src/client/enroll/device-keys.js';
import { run } from '../../src/client/cli/main.js';
import type { Prompter } from '../../src/client/cli/kit/prompter.js';
import type { OutboxMessage } from '../../src/mock/model/enrollment/store.js';
import type { IOStreams } from '../../src/client/output/io.js';
import { loadProfiles } from '../../src/client/profiles/index.js';
import { cliFor, tsvRows } from '../helpers/cli.js';
import { DEV_TOKEN } from '../helpers/mock.js';
import { enrollingSuite } from './mock-enroll-fixtures.js';

const suite = enrollingSuite();

/** The mock's URLs, a throwaway config dir and home; nothing from the test process leaks in. */
const baseEnv = (): Record<string, string> => suite.env();
const cli = cliFor(baseEnv);

async function mint(user = 'alice', extra: Record<string, unknown> = {}): Promise<TokenPair> {
  const answer = await suite.mock.call('POST', '/_mock/tokens', { user, ...extra });
  expect(answer.status).toBe(200);
  return answer.body as TokenPair;
}

const tokenEnv = (pair: TokenPair) => ({ KSCTL_STOKEN: pair.stoken, KSCTL_UIDAUTH: pair.uidauth });

describe('one device', () => {
  it('stores a profile whose keys are the ones the service sealed, in a 0600 file', async () => {
    const result = await cli(['enroll', '--name', 'laptop', '-o', 'json'], {
      env: tokenEnv(await mint()),
    });
    expect(result.stderr).toMatch(/^enrolled ABcd\.1\..+ into keyspace ABcd; profile "laptop"/);
    expect(result.code).toBe(0);
    const shown = JSON.parse(result.stdout);
    expect(shown).toMatchObject({
      name: 'laptop',
      keyspace: 'ABcd',
      server: suite.mock.info.apiUrl,
      active: true,
      persistor: 'plaintext',
      path: suite.profilesPath,
    });

    const set = await loadProfiles({ kind: 'plaintext', path: suite.profilesPath });
    expect(set.activeDeviceId).toBe(shown.deviceId);
    const [profile] = set.profiles;
    const sealed = suite.mock.server.state.enrollment.keysOf(shown.deviceId)!;
    expect(profile!.aesCdEiKey.equals(sealed.cdEi)).toBe(true);
    expect(profile!.aesCdIdcKey.equals(sealed.cdIdc)).toBe(true);
    expect(profile!.server).toBe(suite.mock.info.apiUrl);
    expect(Math.abs(profile!.creationTimestamp! - Date.now() / 1000)).toBeLessThan(60);
    expect((await stat(suite.profilesPath)).mode & 0o777).toBe(0o600);
    expect((await stat(suite.dir)).mode & 0o077).toBe(0);
  });

  it('never sends a registration twice, even on an answer other requests are retried after', async () => {
    await suite.mock.setFaults([{ path: '/v2.3/register/ABcd', status: 503, times: 1 }]);
    const result = await cli(['enroll', '--name', 'once'], { env: tokenEnv(await mint()) });
    expect(result.code).not.toBe(0);
    expect(result.stderr).not.toMatch(/retrying/);
    const registrations = (await suite.mock.journal()).filter((r) => r.path.includes('/register/'));
    expect(registrations).toHaveLength(1);
  });

  it('reads STOKEN and UIDAUTH from files, a UIDAUTH without its comma included', async () => {
    const pair = await mint();
    await writeFile(join(suite.dir, 'stoken'), `${pair.stoken}\n`);
    await writeFile(join(suite.dir, 'uidauth'), pair.uidauth.slice(1));
    const result = await cli(
      ['enroll', '--stoken-file', join(suite.dir, 'stoken'), '--uidauth-file', '-'],
      { stdin: pair.uidauth.slice(1) },
    );
    expect(result.stderr).toContain('enrolled');
    expect(result.code).toBe(0);
  });

  it('signs in to the portal with --username and --password-file', async () => {
    await writeFile(join(suite.dir, 'pw'), 'alice-password\n');
    const result = await cli([
      'enroll',
      '--username',
      'alice',
      '--password-file',
      join(suite.dir, 'pw'),
    ]);
    expect(result.code).toBe(0);
    const devices = (await suite.mock.call('GET', '/_mock/devices')).body as { user: string }[];
    expect(devices.map((d) => d.user)).toEqual(['alice']);
    // The portal sent the key server public key inline (X-Ionic-Reg-Pubkey): it is not fetched.
    const paths = (await suite.mock.journal()).map((r) => r.path);
    expect(paths.some((path) => path.endsWith('/register'))).toBe(true);
    expect(paths.filter((path) => path.endsWith('/pubkey'))).toEqual([]);
  });

  it('a wrong portal password is exit 4 with a hint at the password, never at a token file', async () => {
    await writeFile(join(suite.dir, 'pw'), 'not-her-password\n');
    const result = await cli([
      'enroll',
      '--username',
      'alice',
      '--password-file',
      join(suite.dir, 'pw'),
    ]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('the enrollment portal refused the sign-in as alice');
    expect(result.stderr).toMatch(/hint: .*--password-file or KSCTL_PORTAL_PASSWORD/);
    expect(result.stderr).not.toContain('--token-file');
    expect(result.stderr).not.toContain('not-her-password');
  });

  it('signs in by e-mail and asks for the registration code on a terminal, never echoing it', async () => {
    const asked: string[] = [];
    const prompter: Prompter = {
      confirm: async () => false,
      input: async () => '',
      secret: async (question) => {
        asked.push(question);
        const outbox = (await suite.mock.call('GET', '/_mock/outbox')).body as OutboxMessage[];
        return outbox.at(-1)!.code;
      },
    };
    const { code, stderr } = await runWith(
      ['enroll', '--email', 'alice@example.com'],
      baseEnv(),
      prompter,
    );
    expect(asked).toEqual(['Registration code sent to alice@example.com:']);
    expect(code).toBe(0);
    const outbox = (await suite.mock.call('GET', '/_mock/outbox')).body as OutboxMessage[];
    expect(stderr).not.toContain(outbox[0]!.code);
  });

  it('a mistyped registration code is called the registration code, not a STOKEN', async () => {
    const file = join(suite.dir, 'code');
    const email = ['enroll', '--email', 'alice@example.com', '--registration-code-file', file];
    await writeFile(file, 'A1B2C3\n');
    const malformed = await cli(email);
    expect(malformed.code).toBe(3);
    expect(malformed.stderr).toMatch(
      /^error: the registration code must begin with "I\." and carry a value; nothing was enrolled$/m,
    );
    expect(malformed.stderr).toContain(
      'hint: type the code from the e-mail sent to alice@example.com',
    );
    await writeFile(file, 'I.not-the-code-that-was-sent\n');
    const wrong = await cli(email);
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toMatch(
      /^error: the registration code is wrong or has expired \(40105\)$/m,
    );
    expect(wrong.stderr).toContain('sign in with --email again for a new one');
    for (const { stderr } of [malformed, wrong]) expect(stderr).not.toContain('STOKEN');
  });

  it('refuses --email off a terminal without --registration-code-file, before any e-mail is sent', async () => {
    const result = await cli(['enroll', '--email', 'alice@example.com']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--registration-code-file');
    expect((await suite.mock.call('GET', '/_mock/outbox')).body).toEqual([]);
  });

  it('finds the API and enrollment URLs from the keyspace through the key naming lookup', async () => {
    const env = { ...baseEnv(), KSCTL_API_URL: '', KSCTL_ENROLLMENT_URL: '' };
    const result = await cli(
      ['enroll', '--keyspace', 'ABcd', '--kns-url', suite.mock.info.knsUrl, '--mock-user', 'alice'],
      { env: { ...env, KSCTL_BASE_URL: suite.mock.baseUrl, KSCTL_TOKEN: DEV_TOKEN } },
    );
    expect(result.stderr).toContain('enrolled');
    expect(result.code).toBe(0);
    const paths = (await suite.mock.journal()).map((r) => `${r.method} ${r.path}`);
    expect(paths).toEqual([
      'GET /v2.4/kns/keyspaces/ABcd',
      'GET /enrollment/keyspace/ABcd/pubkey',
      'POST /v2.3/register/ABcd',
    ]);
  });

  it('takes the keyspace and URLs from the context, flags winning over it', async () => {
    const env = {
      KSCTL_CONFIG_DIR: suite.dir,
      KSCTL_HOME: suite.dir,
      KSCTL_BASE_URL: suite.mock.baseUrl,
      KSCTL_TOKEN: DEV_TOKEN,
    };
    expect(
      (
        await cli(
          [
            'context',
            'add',
            'lab',
            '--api-url',
            'http://127.0.0.1:9/nowhere',
            '--enrollment-url',
            suite.mock.info.enrollmentUrl,
            '--keyspace',
            'ABcd',
            '--use',
          ],
          { env },
        )
      ).code,
    ).toBe(0);
    const result = await cli(
      ['enroll', '--api-url', suite.mock.info.apiUrl, '--mock-user', 'alice'],
      {
        env: { ...env, KSCTL_KEYSPACE: undefined, KSCTL_PERSISTOR_PATH: undefined },
      },
    );
    expect(result.stderr).toContain('enrolled');
    expect(result.code).toBe(0);
    // The default profile file under KSCTL_HOME, never the real home.
    const set = await loadProfiles({
      kind: 'plaintext',
      path: join(suite.dir, '.ionicsecurity', 'profiles.pt'),
    });
    expect(set.profiles).toHaveLength(1);
  });

  it('asks for what is missing on a terminal, STOKEN and UIDAUTH as secrets', async () => {
    const pair = await mint();
    const result = await cli(['enroll', '--name', 'asked'], {
      tty: true,
      env: { KSCTL_KEYSPACE: undefined },
      answers: ['ABcd', pair.stoken, pair.uidauth],
    });
    expect(result.questions).toEqual([
      'Keyspace to enroll into:',
      'STOKEN (from your enrollment portal):',
      'UIDAUTH (from your enrollment portal):',
    ]);
    expect(result.code).toBe(0);
  });

  it.each([
    [['enroll'], { KSCTL_KEYSPACE: undefined }, /no keyspace.*\nhint: pass --keyspace/],
    [['enroll'], {}, /the STOKEN is missing\nhint: pass --stoken-file PATH .* or set KSCTL_STOKEN/],
    [['enroll', '--count', '3'], {}, /--count needs a token pair for each device/],
    [['enroll', '--password-file', 'x'], {}, /--password-file goes with --username/],
    [
      ['enroll', '--username', 'alice', '--mock-user', 'alice'],
      {},
      /choose one source of token pairs/,
    ],
    [
      ['enroll', '--keyspace', 'ABcd', '--api-url', ''],
      { KSCTL_API_URL: '', KSCTL_ENROLLMENT_URL: '', KSCTL_STOKEN: 'I.x', KSCTL_UIDAUTH: ',Iy' },
      /cannot tell where to enroll/,
    ],
  ])('%j is a usage error (exit 2) off a terminal', async (argv, env, message) => {
    const result = await cli(argv, { env: { ...tokenlessEnv(), ...env } });
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
    expect((await suite.mock.journal()).filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('refuses flags that do not go together before a key generation starts', async () => {
    const generate = vi.spyOn(deviceKeySource, 'generate');
    try {
      const clash = ['enroll', '--username', 'alice', '--mock-user', 'alice'];
      expect((await cli(clash, { env: tokenlessEnv() })).code).toBe(2);
      expect(generate).not.toHaveBeenCalled();
      // A problem found later (here: no keyspace) comes after the generation began.
      const late = await cli(['enroll'], { env: { ...tokenlessEnv(), KSCTL_KEYSPACE: undefined } });
      expect(late.code).toBe(2);
      expect(generate).toHaveBeenCalledTimes(1);
    } finally {
      generate.mockRestore();
    }
  });

  it('rejects a malformed keyspace before sending anything (exit 3)', async () => {
    const result = await cli(['enroll', '--keyspace', 'AB-d'], { env: tokenEnv(await mint()) });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('invalid keyspace "AB-d"');
    expect(await suite.mock.journal()).toEqual([]);
  });

  it('never prints a secret, even with --debug', async () => {
    const pair = await mint();
    await writeFile(join(suite.dir, 'pw'), 'alice-password');
    const debugged = await cli(
      [
        '--debug',
        'enroll',
        '--username',
        'alice',
        '--password-file',
        join(suite.dir, 'pw'),
        '-o',
        'json',
      ],
      {},
    );
    const direct = await cli(['--debug', 'enroll'], { env: tokenEnv(pair) });
    expect(debugged.code).toBe(0);
    expect(direct.code).toBe(0);
    const set = await loadProfiles({ kind: 'plaintext', path: suite.profilesPath });
    const secrets = [
      pair.stoken,
      pair.uidauth,
      pair.uidauth.slice(2, 30),
      'alice-password',
      ...set.profiles.flatMap((p) => [p.aesCdEiKey.toString('hex'), p.aesCdIdcKey.toString('hex')]),
    ];
    const output = debugged.stderr + debugged.stdout + direct.stderr + direct.stdout;
    expect(output).toContain('[debug] > POST');
    expect(output).toContain('"p":"[redacted]"');
    for (const secret of secrets) expect(output).not.toContain(secret);
  });
});

/** The base environment without any token pair. */
function tokenlessEnv(): Record<string, string | undefined> {
  return { KSCTL_STOKEN: undefined, KSCTL_UIDAUTH: undefined };
}

async function runWith(
  argv: string[],
  env: Record<string, string>,
  prompter: Prompter,
  signal?: AbortSignal,
) {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks: Buffer[] = [];
  err.on('data', (c: Buffer) => chunks.push(c));
  out.resume();
  const stdin = new PassThrough();
  stdin.end();
  const io: IOStreams = {
    stdin,
    stdout: out,
    stderr: err,
    stdinIsTTY: true,
    stdoutIsTTY: true,
    stderrIsTTY: false,
    color: false,
    columns: 100,
  };
  const code = await run(argv, { io, env, prompter, signal });
  return { code, stderr: Buffer.concat(chunks).toString('utf8') };
}

describe('profile files', () => {
  it('a wrong profile password is exit 4, leaves the file untouched and spends no token pair', async () => {
    const pwPath = join(suite.dir, 'profiles.pw');
    const env = { KSCTL_PERSISTOR_PATH: pwPath, KSCTL_PERSISTOR: 'password' };
    const first = await cli(['enroll', '--mock-user', 'alice'], {
      env: { ...env, ...adminEnv(), KSCTL_PERSISTOR_PASSWORD: 'right password' },
    });
    expect(first.code).toBe(0);
    const before = await readFile(pwPath);
    const beforeStat = await stat(pwPath);

    const pair = await mint();
    const wrong = await cli(['enroll'], {
      env: { ...env, ...tokenEnv(pair), KSCTL_PERSISTOR_PASSWORD: 'wrong password' },
    });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain('the password is wrong');
    expect((await readFile(pwPath)).equals(before)).toBe(true);
    expect((await stat(pwPath)).mtimeMs).toBe(beforeStat.mtimeMs);

    const again = await cli(['enroll'], {
      env: { ...env, ...tokenEnv(pair), KSCTL_PERSISTOR_PASSWORD: 'right password' },
    });
    expect(again.code).toBe(0);
    const set = await loadProfiles({ kind: 'password', path: pwPath, password: 'right password' });
    expect(set.profiles).toHaveLength(2);
  });

  it('writes password files as 1.1 unless --persistor-version 1.0', async () => {
    for (const [version, header] of [
      [[], true],
      [['--persistor-version', '1.0'], false],
    ] as const) {
      const path = join(suite.dir, `v${header}.pw`);
      const result = await cli(
        ['enroll', '--mock-user', 'alice', '--persistor-path', path, ...version],
        { env: { ...adminEnv(), KSCTL_PERSISTOR_PASSWORD: 'secret!' } },
      );
      expect(result.code).toBe(0);
      const bytes = await readFile(path);
      expect(bytes.subarray(0, 9).toString('latin1') === '{"extra":').toBe(header);
    }
  });

  it('writes aesgcm files with the key from a file and the adata', async () => {
    const keyHex = 'ab'.repeat(32);
    await writeFile(join(suite.dir, 'key'), keyHex);
    const path = join(suite.dir, 'profiles.aesgcm');
    const result = await cli(
      [
        'enroll',
        '--mock-user',
        'alice',
        '--persistor-path',
        path,
        '--persistor-aesgcm-key-file',
        join(suite.dir, 'key'),
        '--persistor-aesgcm-adata',
        'my app',
      ],
      { env: adminEnv() },
    );
    expect(result.code).toBe(0);
    const set = await loadProfiles({
      kind: 'aesgcm',
      path,
      aesgcmKey: Buffer.from(keyHex, 'hex'),
      aesgcmAdata: 'my app',
    });
    expect(set.profiles).toHaveLength(1);
  });

  it('--no-set-active keeps the active profile', async () => {
    expect(
      (await cli(['enroll', '--mock-user', 'alice', '--name', 'one'], { env: adminEnv() })).code,
    ).toBe(0);
    const second = await cli(
      ['enroll', '--mock-user', 'alice', '--name', 'two', '--no-set-active'],
      {
        env: adminEnv(),
      },
    );
    expect(second.code).toBe(0);
    const set = await loadProfiles({ kind: 'plaintext', path: suite.profilesPath });
    const active = set.profiles.find((p) => p.deviceId === set.activeDeviceId);
    expect(active?.name).toBe('one');
  });
});

/** The mock's dev token, for --mock-user. */
function adminEnv(): Record<string, string> {
  return { KSCTL_BASE_URL: suite.mock.baseUrl, KSCTL_TOKEN: DEV_TOKEN };
}

describe('test devices in bulk', () => {
  it('enrolls --count devices at once, each with its own pair, and saves every profile', async () => {
    const result = await cli(
      [
        'enroll',
        '--count',
        '8',
        '--concurrency',
        '4',
        '--mock-user',
        'alice',
        '--name',
        'qa',
        '-o',
        'json',
      ],
      { env: adminEnv() },
    );
    expect(result.stderr).toContain('enrolled 8 of 8 devices into keyspace ABcd');
    expect(result.code).toBe(0);
    const { enrolled, failed } = JSON.parse(result.stdout);
    expect(failed).toEqual([]);
    expect(enrolled.map((r: { name: string }) => r.name)).toEqual([
      'qa-1',
      'qa-2',
      'qa-3',
      'qa-4',
      'qa-5',
      'qa-6',
      'qa-7',
      'qa-8',
    ]);
    const set = await loadProfiles({ kind: 'plaintext', path: suite.profilesPath });
    expect(set.profiles.map((p) => p.name).sort()).toEqual(
      enrolled.map((r: { name: string }) => r.name),
    );
    expect(new Set(set.profiles.map((p) => p.deviceId)).size).toBe(8);
    // No profile was active, so the first one stored became active; the rest left it alone.
    expect(set.profiles.filter((p) => p.deviceId === set.activeDeviceId)).toHaveLength(1);

    // A second run continues the numbers, unpadded: qa-9 beside qa-8, not qa-09.
    const more = await cli(
      [
        'enroll',
        '--count',
        '2',
        '--mock-user',
        'alice',
        '--name',
        'qa',
        '--no-verify',
        '-o',
        'json',
      ],
      { env: adminEnv() },
    );
    expect(more.code).toBe(0);
    expect(JSON.parse(more.stdout).enrolled.map((r: { name: string }) => r.name)).toEqual([
      'qa-9',
      'qa-10',
    ]);
  });

  it('signs in to the portal once per device', async () => {
    await writeFile(join(suite.dir, 'pw'), 'alice-password');
    const result = await cli(
      ['enroll', '--count', '3', '--username', 'alice', '--password-file', join(suite.dir, 'pw')],
      {},
    );
    expect(result.code).toBe(0);
    expect(tsvRows(result.stdout).map((r) => r[0])).toEqual([
      'test-device-1',
      'test-device-2',
      'test-device-3',
    ]);
    const signIns = (await suite.mock.journal()).filter(
      (r) => r.path.endsWith('/register') && r.path.startsWith('/enrollment'),
    );
    expect(signIns).toHaveLength(3);
  });

  it('takes one pair per line of --tokens-file, white space or comma separated', async () => {
    const pairs = [await mint(), await mint(), await mint()];
    const text = [
      '# pairs for QA',
      `${pairs[0]!.stoken} ${pairs[0]!.uidauth}`,
      '',
      `${pairs[1]!.stoken},${pairs[1]!.uidauth}`,
      `${pairs[2]!.stoken}\t${pairs[2]!.uidauth.slice(1)}`,
    ].join('\n');
    await writeFile(join(suite.dir, 'tokens'), text);
    const result = await cli(['enroll', '--tokens-file', join(suite.dir, 'tokens')]);
    expect(result.stderr).toContain('enrolled 3 of 3 devices');
    expect(result.code).toBe(0);

    const tooMany = await cli([
      'enroll',
      '--tokens-file',
      join(suite.dir, 'tokens'),
      '--count',
      '4',
    ]);
    expect(tooMany.code).toBe(2);
  });

  it('starts the key pairs of --count N at once, and stops them when the run fails first', async () => {
    const stops: number[] = [];
    const fixed = deviceKeySource.supply;
    const supply = vi.spyOn(deviceKeySource, 'supply').mockImplementation((total, atOnce) => {
      const keys = fixed(total, atOnce);
      const index = stops.push(0) - 1;
      return { take: () => keys.take(), stop: () => void stops[index]!++ };
    });
    try {
      await writeFile(
        join(suite.dir, 'tokens'),
        `${(await mint()).stoken} ${(await mint()).uidauth}\n`,
      );
      // Found by the use case: the file has one pair for four devices.
      const tooMany = ['enroll', '--tokens-file', join(suite.dir, 'tokens'), '--count', '4'];
      expect((await cli(tooMany)).code).toBe(2);
      // Found as the settings are read: no keyspace.
      const late = await cli(['enroll', '--count', '2', '--mock-user', 'alice'], {
        env: { KSCTL_KEYSPACE: undefined },
      });
      expect(late.code).toBe(2);
      expect(supply.mock.calls.map(([total]) => total)).toEqual([4, 2]);
      expect(stops.every((count) => count > 0)).toBe(true);
    } finally {
      supply.mockRestore();
    }
  });

  it('reports a malformed tokens file by line, without its text (exit 3)', async () => {
    await writeFile(join(suite.dir, 'tokens'), 'I.one ,Itwo\nnot-a-token-line\n');
    const result = await cli(['enroll', '--tokens-file', join(suite.dir, 'tokens')]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`${join(suite.dir, 'tokens')}:2: expected "STOKEN UIDAUTH"`);
    expect(result.stderr).not.toContain('not-a-token-line');
  });

  it('summarises failures with cause and conversation id, and exits with the most common code', async () => {
    await suite.mock.setFaults([
      { path: '/v2.3/register/ABcd', code: 40105, times: 2 },
      { path: '/v2.3/register/ABcd', code: 50004, times: 1 },
    ]);
    const result = await cli(
      ['enroll', '--count', '6', '--concurrency', '1', '--mock-user', 'alice', '-o', 'json'],
      { env: adminEnv() },
    );
    const { enrolled, failed } = JSON.parse(result.stdout);
    expect(enrolled).toHaveLength(3);
    expect(failed.map((f: { serviceCode: number }) => f.serviceCode)).toEqual([
      40105, 40105, 50004,
    ]);
    expect(result.stderr).toContain('3 devices failed:');
    const journal = await suite.mock.journal();
    for (const f of failed) {
      expect(result.stderr).toContain(`conversation id ${f.conversationId}`);
      expect(journal.some((r) => r.cid === `Basic ${f.conversationId}` && r.status >= 400)).toBe(
        true,
      );
    }
    expect(result.stderr).toContain('hint: get a fresh token pair');
    expect(result.code).toBe(4);
    const set = await loadProfiles({ kind: 'plaintext', path: suite.profilesPath });
    expect(set.profiles).toHaveLength(3);
  });
});

describe('interrupted', () => {
  it('Ctrl-C during a bulk run starts no new device, keeps every registered one, and exits 130', async () => {
    const controller = new AbortController();
    suite.mock.onRequest = (request) => {
      if (request.path === '/v2.3/register/ABcd') controller.abort();
    };
    const prompter: Prompter = {
      confirm: async () => false,
      input: async () => '',
      secret: async () => '',
    };
    const { code, stderr } = await runWith(
      ['enroll', '--count', '10', '--concurrency', '1', '--mock-user', 'alice'],
      { ...baseEnv(), ...adminEnv() },
      prompter,
      controller.signal,
    );
    expect(code).toBe(130);
    const registered = (await suite.mock.journal()).filter((r) => r.path === '/v2.3/register/ABcd');
    const set = await loadProfiles({ kind: 'plaintext', path: suite.profilesPath });
    expect(registered.length).toBeLessThan(10);
    expect(set.profiles).toHaveLength(registered.filter((r) => r.status === 200).length);
    expect(stderr).toMatch(/^\d devices not started: interrupted$/m);
  });
});

describe('replay race', () => {
  it('of several enrollments racing with one token pair, exactly one succeeds', async () => {
    const pair = await mint();
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        cli(['enroll', '--name', `racer-${i}`], { env: tokenEnv(pair) }),
      ),
    );
    const codes = results.map((r) => r.code).sort();
    expect(codes).toEqual([0, 6, 6, 6]);
    for (const loser of results.filter((r) => r.code === 6)) {
      expect(loser.stderr).toContain(
        'has already enrolled a device; each pair enrolls once (40902)',
      );
      expect(loser.stderr).toMatch(/^conversation id: [0-9a-f-]{36}$/m);
    }
    const set = await loadProfiles({ kind: 'plaintext', path: suite.profilesPath });
    expect(set.profiles).toHaveLength(1);
  });
});

afterEach(() => {
  suite.mock.onRequest = undefined;
});

describe('nothing said before it is known (issue 33)', () => {
  const nowhere = { KSCTL_API_URL: undefined, KSCTL_ENROLLMENT_URL: undefined };

  it.each([
    ['no keyspace', { KSCTL_KEYSPACE: undefined }],
    ['a keyspace', {}],
  ])(
    'on a terminal with nowhere to enroll and %s: says so before asking anything',
    async (_, env) => {
      const result = await cli(['enroll'], {
        tty: true,
        env: { ...tokenlessEnv(), ...nowhere, ...env },
        answers: [],
      });
      expect(result.questions).toEqual([]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^error: cannot tell where to enroll( into keyspace ABcd)?\nhint: pass --api-url and --enrollment-url, or --kns-url/,
      );
      expect((await suite.mock.journal()).filter((r) => r.method === 'POST')).toEqual([]);
    },
  );

  it('a portal sign-in names the API URL itself: the enrollment URL alone will do', async () => {
    const result = await cli(['enroll', '--name', 'portal-only', '--username', 'alice'], {
      tty: true,
      env: { ...tokenlessEnv(), KSCTL_API_URL: undefined },
      answers: ['alice-password'],
    });
    expect(result.questions).toEqual(['Portal password of alice:']);
    expect(result.stderr).toMatch(/^enrolled ABcd\.1\./m);
    expect(result.code).toBe(0);
  });

  it('the numbered host name is told only once a profile is stored under it', async () => {
    const path = join(suite.dir, 'renamed.pt');
    const env = (extra: Record<string, string | undefined>) => ({
      ...tokenlessEnv(),
      KSCTL_PERSISTOR_PATH: path,
      ...extra,
    });
    const first = await mint();
    expect((await cli(['enroll'], { env: env(tokenEnv(first)) })).code).toBe(0);
    const failures: [string, Record<string, string | undefined>, number][] = [
      ['junk tokens', { KSCTL_STOKEN: 'I.junk', KSCTL_UIDAUTH: ',Ijunk.junk' }, 3],
      ['a token pair used already', tokenEnv(first), 6],
      [
        'a service that is down',
        {
          ...tokenEnv(await mint()),
          KSCTL_API_URL: 'http://127.0.0.1:9',
          KSCTL_ENROLLMENT_URL: 'http://127.0.0.1:9/enrollment',
          KSCTL_TIMEOUT: '2',
        },
        7,
      ],
    ];
    for (const [what, extra, code] of failures) {
      const failed = await cli(['enroll'], { env: env(extra) });
      expect(failed.code, what).toBe(code);
      expect(failed.stderr, what).not.toContain('a profile named');
      // Before the error only the waits (retries of a service that is down) are told.
      expect(failed.stderr, what).toMatch(/^error: /m);
    }
    const second = await cli(['enroll'], { env: env(tokenEnv(await mint())) });
    expect(second.code).toBe(0);
    const host = hostname();
    expect(second.stderr).toMatch(
      new RegExp(
        `^a profile named "${host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}" is already in .*: this one is ".*-2"\nenrolled `,
      ),
    );
    const names = (await loadProfiles({ kind: 'plaintext', path })).profiles.map((p) => p.name);
    expect(names).toEqual([host, `${host}-2`]);
  });
});

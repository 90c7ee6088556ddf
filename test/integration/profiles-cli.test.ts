/**
 * `ksctl profiles list|show|use|delete|convert` on real files: the Ionic SDK sample files read in
 * place, a round trip through every format, the persistor flags, environment and context
 * defaults, and the rules for secrets, confirmations and wrong passwords.
 */
import { copyFile, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { cliFor, tsvRows } from '../helpers/cli.js';
import { tempDirs } from '../helpers/temp.js';
import {
  IONIC_SAMPLE_PT as PT_FIXTURE,
  IONIC_SAMPLE_PW as PW_FIXTURE,
} from '../helpers/fixtures.js';

const FIXTURE_PASSWORD = 'ionic123';
const ACTIVE = 'ABcd.4.9f521b6f-ac9e-48bc-a54a-2f1730288bf';
const OTHER = 'EfGh.1.54sdf8-sdfj-5802-sd80-248vwqucv9s73';

const dirs = tempDirs();
let dir: string;

beforeEach(async () => {
  dir = await dirs.make();
});

afterAll(() => dirs.removeAll());

const cli = cliFor(() => ({ KSCTL_CONFIG_DIR: dir, KSCTL_HOME: dir }));

/** Every profile with its keys, as `profiles show --show-secrets -o json` gives them. */
async function dump(flags: string[], env: Record<string, string> = {}): Promise<unknown[]> {
  const listed = await cli(['profiles', 'list', '-o', 'json', ...flags], { env });
  expect(listed.stderr).toBe('');
  expect(listed.code).toBe(0);
  const rows = JSON.parse(listed.stdout) as { deviceId: string }[];
  const shown = [];
  for (const row of rows) {
    const one = await cli(
      ['profiles', 'show', row.deviceId, '--show-secrets', '-o', 'json', ...flags],
      { env },
    );
    expect(one.code).toBe(0);
    shown.push(JSON.parse(one.stdout));
  }
  return shown;
}

describe('the Ionic SDK sample files, read in place', () => {
  it('lists the plaintext file, marking the active profile', async () => {
    const result = await cli(['profiles', 'list', '--persistor-path', PT_FIXTURE]);
    expect(result.code).toBe(0);
    expect(tsvRows(result.stdout).map((r) => r.slice(0, 5))).toEqual([
      ['*', 'ABcd-profile', ACTIVE, 'ABcd', 'https://api.ionic.com'],
      ['', 'EfGh-profile', OTHER, 'EfGh', 'https://api.ionic.com'],
    ]);
  });

  it('reads the password 1.0 file with its password, to the same profiles and keys', async () => {
    const plain = await dump(['--persistor-path', PT_FIXTURE]);
    const encrypted = await dump(['--persistor', 'password', '--persistor-path', PW_FIXTURE], {
      KSCTL_PERSISTOR_PASSWORD: FIXTURE_PASSWORD,
    });
    expect(encrypted).toEqual(plain);
    expect(plain[0]).toMatchObject({
      name: 'ABcd-profile',
      aesCdEiKey: '51b967286b50565894714770b09698b841927b93449998924823bb7615a969a5',
      creationTimestamp: 1523640111,
      created: '2018-04-13T17:21:51.000Z',
    });
  });

  it('a wrong password is exit 4, saying so without the password', async () => {
    const result = await cli(['profiles', 'list', '--persistor-path', PW_FIXTURE], {
      env: { KSCTL_PERSISTOR: 'password', KSCTL_PERSISTOR_PASSWORD: 'not-the-one' },
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('the password is wrong');
    expect(result.stderr).not.toContain('not-the-one');
  });
});

describe('show', () => {
  it('hides the keys unless --show-secrets', async () => {
    const hidden = await cli(['profiles', 'show', 'EfGh-profile', '--persistor-path', PT_FIXTURE]);
    expect(hidden.code).toBe(0);
    expect(hidden.stdout).toContain(`Device ID\t${OTHER}`);
    expect(hidden.stdout).toContain('[redacted]');
    expect(hidden.stdout.toLowerCase()).not.toContain('12fe5fcb75f1b8ee');
    const shown = await cli([
      'profiles',
      'show',
      'EfGh-profile',
      '--persistor-path',
      PT_FIXTURE,
      '--show-secrets',
    ]);
    expect(shown.stdout).toContain(
      '12fe5fcb75f1b8eebc308f8475e79c21566ad2ecb4f1bc5fdaa4561ad636e1df',
    );
  });

  it('an unknown profile is exit 5', async () => {
    const result = await cli(['profiles', 'show', 'nope', '--persistor-path', PT_FIXTURE]);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('no profile with device id or name "nope"');
  });
});

describe('use and delete', () => {
  let file: string;
  beforeEach(async () => {
    file = join(dir, 'profiles.pt');
    await copyFile(PT_FIXTURE, file);
  });

  it('use makes another profile active and keeps the file 0600', async () => {
    const result = await cli(['profiles', 'use', OTHER, '--persistor-path', file]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('"EfGh-profile"');
    const rows = tsvRows((await cli(['profiles', 'list', '--persistor-path', file])).stdout);
    expect(rows.map((r) => r[0])).toEqual(['', '*']);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('delete needs --yes off a terminal, asks on one, and then deletes', async () => {
    const refused = await cli(['profiles', 'delete', 'EfGh-profile', '--persistor-path', file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pass --yes');
    const declined = await cli(['profiles', 'delete', 'EfGh-profile', '--persistor-path', file], {
      tty: true,
      answers: [false],
    });
    expect(declined.code).toBe(2);
    expect(declined.questions).toEqual([
      `Delete profile "EfGh-profile" (${OTHER}) from ${file}? Its keys are lost`,
    ]);
    expect((await readFile(file, 'utf8')).includes(OTHER)).toBe(true);
    const confirmed = await cli(['profiles', 'delete', 'EfGh-profile', '--persistor-path', file], {
      tty: true,
      answers: [true],
    });
    expect(confirmed.code).toBe(0);
    const rows = tsvRows((await cli(['profiles', 'list', '--persistor-path', file])).stdout);
    expect(rows.map((r) => r[2])).toEqual([ACTIVE]);
  });

  it('deleting the active profile leaves none active', async () => {
    const result = await cli(['profiles', 'rm', ACTIVE, '--yes', '--persistor-path', file]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('no profile is active now');
  });
});

describe('convert: a round trip through every format', () => {
  it('plaintext → password 1.1 → aesgcm → password 1.0 → plaintext keeps every profile and key', async () => {
    const original = await dump(['--persistor-path', PT_FIXTURE]);
    await writeFile(join(dir, 'pw'), 'round-trip-password\n');
    await writeFile(join(dir, 'key'), `${'0f'.repeat(32)}\n`);
    const pw11 = join(dir, 'a.pw');
    const gcm = join(dir, 'b.aesgcm');
    const pw10 = join(dir, 'c.pw');
    const pt = join(dir, 'd.pt');
    const pwEnv = { KSCTL_PERSISTOR_PASSWORD: 'round-trip-password' };
    const gcmFlags = [
      '--persistor-aesgcm-key-file',
      join(dir, 'key'),
      '--persistor-aesgcm-adata',
      'ad',
    ];
    const steps: [string[], Record<string, string>][] = [
      [
        [
          '--persistor-path',
          PT_FIXTURE,
          '--to-persistor',
          'password',
          '--to-path',
          pw11,
          '--to-password-file',
          join(dir, 'pw'),
        ],
        {},
      ],
      [
        [
          '--persistor-path',
          pw11,
          '--to-persistor',
          'aesgcm',
          '--to-path',
          gcm,
          '--to-aesgcm-key-file',
          join(dir, 'key'),
          '--to-aesgcm-adata',
          'ad',
        ],
        pwEnv,
      ],
      [
        [
          ...gcmFlags,
          '--persistor-path',
          gcm,
          '--to-persistor',
          'password',
          '--to-path',
          pw10,
          '--to-password-file',
          join(dir, 'pw'),
          '--to-persistor-version',
          '1.0',
        ],
        {},
      ],
      [['--persistor-path', pw10, '--to-persistor', 'plaintext', '--to-path', pt], pwEnv],
    ];
    for (const [flags, env] of steps) {
      const result = await cli(['profiles', 'convert', ...flags], { env });
      expect(result.stderr).toMatch(/^wrote 2 profiles from /);
      expect(result.code).toBe(0);
    }
    expect((await readFile(pw11)).subarray(0, 9).toString()).toBe('{"extra":');
    expect((await readFile(pw10)).subarray(0, 9).toString()).not.toBe('{"extra":');
    for (const file of [pw11, gcm, pw10, pt]) expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await dump(['--persistor-path', pw11], pwEnv)).toEqual(original);
    expect(await dump([...gcmFlags, '--persistor-path', gcm])).toEqual(original);
    expect(await dump(['--persistor-path', pw10], pwEnv)).toEqual(original);
    expect(await dump(['--persistor-path', pt])).toEqual(original);
  });

  it('refuses to replace a file with content unless --force', async () => {
    const target = join(dir, 'taken.pt');
    await writeFile(target, 'something');
    const args = [
      'profiles',
      'convert',
      '--persistor-path',
      PT_FIXTURE,
      '--to-persistor',
      'plaintext',
      '--to-path',
      target,
    ];
    const refused = await cli(args);
    expect(refused.code).toBe(6);
    expect(await readFile(target, 'utf8')).toBe('something');
    expect((await cli([...args, '--force'])).code).toBe(0);
  });

  it('a target password is never read from a plain flag or the source environment', async () => {
    const result = await cli(toPassword(join(dir, 'x.pw')), {
      env: { KSCTL_PERSISTOR_PASSWORD: 'from-the-environment' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--to-password-file');
  });
});

/** `profiles convert` of the plaintext fixture into a password-protected file at `target`. */
const toPassword = (target: string) => [
  'profiles',
  'convert',
  '--persistor-path',
  PT_FIXTURE,
  '--to-persistor',
  'password',
  '--to-path',
  target,
];

describe('a new password is asked twice', () => {
  it('convert --to-persistor password on a terminal confirms it; two that differ write nothing', async () => {
    const target = join(dir, 'confirmed.pw');
    const differ = await cli(toPassword(target), {
      tty: true,
      answers: ['secret-one', 'secret-two'],
    });
    expect(differ.questions).toEqual([
      `New password for ${target}:`,
      'The profile password again, to confirm:',
    ]);
    expect(differ.code).toBe(2);
    expect(differ.stderr).toMatch(
      /^error: the two entries of the profile password differ; nothing was written$/m,
    );
    await expect(readFile(target)).rejects.toThrow();
    const same = await cli(toPassword(target), {
      tty: true,
      answers: ['secret-one', 'secret-one'],
    });
    expect(same.code).toBe(0);
    const opened = await cli(['profiles', 'list', '--persistor-path', target], {
      tty: true,
      answers: ['secret-one'],
    });
    expect(opened.questions).toEqual([`Password of ${target}:`]);
    expect(opened.code).toBe(0);
  });
});

describe('a password too short', () => {
  it('is refused when first typed, before it is asked a second time', async () => {
    const target = join(dir, 'short.pw');
    const short = await cli(toPassword(target), { tty: true, answers: ['abc'] });
    expect(short.questions).toEqual([`New password for ${target}:`]);
    expect(short.code).toBe(3);
    expect(short.stderr).toMatch(/^error: the profile password is too short: it needs at least 6/m);
    await expect(readFile(target)).rejects.toThrow();
  });
});

describe('a profile file that is missing or holds no profiles', () => {
  it('a missing file says it does not exist; an empty list that it holds no profiles', async () => {
    const missing = join(dir, 'missing.pt');
    const emptyList = join(dir, 'empty-list.pt');
    await writeFile(emptyList, '{"activeDeviceId":"","profiles":[]}');
    for (const command of [
      ['profiles', 'show', 'laptop'],
      ['profiles', 'use', 'laptop'],
      ['profiles', 'delete', 'laptop', '--yes'],
      ['keys', 'create'],
    ]) {
      const gone = await cli([...command, '--persistor-path', missing]);
      expect(gone.code, command.join(' ')).toBe(5);
      expect(gone.stderr).toMatch(
        new RegExp(`^error: there is no profile file at ${missing}$`, 'm'),
      );
      const empty = await cli([...command, '--persistor-path', emptyList]);
      expect(empty.code, command.join(' ')).toBe(5);
      expect(empty.stderr).toMatch(new RegExp(`^error: ${emptyList} holds no profiles$`, 'm'));
      expect(empty.stderr).toContain('ksctl enroll');
    }
    const listed = await cli(['profiles', 'list', '--persistor-path', emptyList], { tty: true });
    expect(listed.code).toBe(0);
    expect(listed.stderr).toBe(`${emptyList} holds no profiles\n`);
  });

  it('a file of zero bytes is no profile file: exit 3 naming it, on a terminal and piped (issue 34)', async () => {
    const plaintext = join(dir, 'zero.pt');
    const password = join(dir, 'zero.pw');
    await writeFile(plaintext, '');
    await writeFile(password, '');
    const secret = join(dir, 'zero-password');
    await writeFile(secret, 'correct horse battery');
    for (const [path, kind, extra] of [
      [plaintext, 'plaintext', []],
      [password, 'password', ['--persistor-password-file', secret]],
    ] as const) {
      for (const command of [
        ['profiles', 'list'],
        ['profiles', 'show', 'laptop'],
        ['profiles', 'use', 'laptop'],
        ['profiles', 'delete', 'laptop', '--yes'],
        ['profiles', 'convert', '--to-persistor', 'plaintext', '--to-path', join(dir, 'never.pt')],
        ['keys', 'create'],
      ]) {
        for (const tty of [true, false]) {
          const argv = [...command, '--persistor', kind, '--persistor-path', path, ...extra];
          const result = await cli(argv, { tty });
          expect(result.code, argv.join(' ')).toBe(3);
          expect(result.stdout).toBe('');
          expect(result.stderr).toMatch(
            new RegExp(
              `^error: ${path} is empty \\(0 bytes\\): it is not a ${kind} profile file$`,
              'm',
            ),
          );
          expect(result.stderr).toContain('delete it');
        }
      }
      // Nothing was written over it.
      expect(await readFile(path, 'utf8')).toBe('');
    }
  });

  it('profiles list with a --persistor-path that does not exist is not found (exit 5)', async () => {
    const result = await cli(['profiles', 'list', '--persistor-path', '/nonexistent/x.pt']);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/^error: there is no profile file at \/nonexistent\/x\.pt$/m);
    const fresh = await cli(['profiles', 'list'], { tty: true });
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).toMatch(/^no profiles in /);
  });

  it('a password file that is not there is not asked a password (a new one, twice) first', async () => {
    for (const tty of [true, false]) {
      const named = await cli(['profiles', 'list', '--persistor-path', '/nonexistent/x.pw'], {
        tty,
      });
      expect(named.code).toBe(5);
      expect(named.stderr).toMatch(/^error: there is no profile file at \/nonexistent\/x\.pw$/m);
      expect(named.stderr + named.stdout).not.toMatch(/password/i);
    }
    const shown = await cli(['profiles', 'show', 'x', '--persistor-path', '/nonexistent/x.pw']);
    expect(shown.code).toBe(5);
    expect(shown.stderr).toMatch(/^error: there is no profile file at \/nonexistent\/x\.pw$/m);
  });
});

describe('where the profile file is', () => {
  it('defaults to .ionicsecurity under KSCTL_HOME, and the kind follows a known extension', async () => {
    const home = join(dir, '.ionicsecurity', 'profiles.pt');
    expect(
      (
        await cli([
          'profiles',
          'convert',
          '--persistor-path',
          PT_FIXTURE,
          '--to-persistor',
          'plaintext',
          '--to-path',
          home,
        ])
      ).code,
    ).toBe(0);
    const listed = await cli(['profiles', 'list', '-o', 'json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toHaveLength(2);
    // A .pw path means the password persistor: without a password that is a usage error.
    const pw = await cli(['profiles', 'list', '--persistor-path', PW_FIXTURE]);
    expect(pw.code).toBe(2);
    expect(pw.stderr).toContain('--persistor-password-file');
  });

  it('takes the persistor and its path from the context, flags winning', async () => {
    const added = await cli([
      '--base-url',
      'http://127.0.0.1:9/v2/dev',
      'context',
      'add',
      'lab',
      '--persistor',
      'password',
      '--persistor-path',
      PW_FIXTURE,
      '--use',
    ]);
    expect(added.code).toBe(0);
    const fromContext = await cli(['profiles', 'list', '-o', 'json'], {
      env: { KSCTL_PERSISTOR_PASSWORD: FIXTURE_PASSWORD },
    });
    expect(fromContext.code).toBe(0);
    expect(JSON.parse(fromContext.stdout)).toHaveLength(2);
    const overridden = await cli([
      'profiles',
      'list',
      '--persistor',
      'plaintext',
      '--persistor-path',
      PT_FIXTURE,
    ]);
    expect(overridden.code).toBe(0);
  });

  it('asks for the password on a terminal, never echoing it', async () => {
    const result = await cli(['profiles', 'list', '--persistor-path', PW_FIXTURE], {
      tty: true,
      answers: [FIXTURE_PASSWORD],
    });
    expect(result.questions).toEqual([`Password of ${PW_FIXTURE}:`]);
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(FIXTURE_PASSWORD);
  });
});

/**
 * Regressions found by an audit of `ksctl enroll` and `ksctl profiles`: a symlinked profile
 * file replaced by a regular file, blank or multi-line profile names accepted after spending a
 * token pair, unreachable URLs blamed on the wrong setting, and a garbage tokens file printing
 * thousands of lines.
 */
import { lstat, mkdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/profiles/index.js';
import { cliFor } from '../helpers/cli.js';
import { enrollingSuite } from './mock-enroll-fixtures.js';

const suite = enrollingSuite();

/** The mock's URLs and dev token (for --mock-user), a throwaway config dir and home. */
const cli = cliFor(() => suite.markingsEnv());

/** A port nothing listens on (the discard port on loopback). */
const NOWHERE = 'http://127.0.0.1:9';

const enrolledDevices = async () =>
  (await suite.mock.call('GET', '/_mock/devices')).body as unknown[];

describe('a profile file behind a symbolic link', () => {
  it('is written through: the link stays and the real file gets the profile', async () => {
    await mkdir(join(suite.dir, 'pf'));
    await mkdir(join(suite.dir, 'dot'));
    await symlink('../dot/real.pt', join(suite.dir, 'pf', 'sym.pt'));
    for (const name of ['first', 'second']) {
      const result = await cli([
        'enroll',
        '--mock-user',
        'alice',
        '--name',
        name,
        '--persistor-path',
        join(suite.dir, 'pf', 'sym.pt'),
      ]);
      expect(result.code).toBe(0);
    }
    expect((await lstat(join(suite.dir, 'pf', 'sym.pt'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(suite.dir, 'pf', 'sym.pt'))).toBe('../dot/real.pt');
    const real = await loadProfiles({ kind: 'plaintext', path: join(suite.dir, 'dot', 'real.pt') });
    expect(real.profiles.map((p) => p.name)).toEqual(['first', 'second']);
  });

  it('profiles convert refuses a --to-path that links to the file being converted', async () => {
    const source = join(suite.dir, 'profiles.pt');
    expect((await cli(['enroll', '--mock-user', 'alice', '--name', 'one'])).code).toBe(0);
    const before = await readFile(source);
    await symlink(source, join(suite.dir, 'link.pt'));
    await writeFile(join(suite.dir, 'pw'), 'a long password\n');
    const result = await cli([
      'profiles',
      'convert',
      '--to-persistor',
      'password',
      '--to-path',
      join(suite.dir, 'link.pt'),
      '--to-password-file',
      join(suite.dir, 'pw'),
      '--force',
    ]);
    expect(result.stderr).toContain('error: --to-path is the file being converted');
    expect(result.code).toBe(2);
    expect(await readFile(source)).toEqual(before);
    expect((await lstat(join(suite.dir, 'link.pt'))).isSymbolicLink()).toBe(true);
  });
});

describe('profile names', () => {
  it.each([
    ['', /^error: --name is empty$/m],
    ['   ', /^error: --name is empty$/m],
    ['lap\ntop', /^error: --name contains an unprintable character \(U\+000A\)/m],
    ['lap\u0007top', /^error: --name contains an unprintable character \(U\+0007\)/m],
    ['x'.repeat(129), /^error: --name has 129 characters; at most 128 are allowed$/m],
    [' laptop', /^error: --name starts or ends with white space$/m],
  ])('%j is a usage error before any request (exit 2)', async (name, message) => {
    const result = await cli(['enroll', '--mock-user', 'alice', '--name', name]);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^hint: profile names are one line of printable text/m);
    expect(result.code).toBe(2);
    expect(await suite.mock.journal()).toEqual([]);
    expect(await enrolledDevices()).toEqual([]);
  });

  it('checks the longest name of a bulk run, number included, before any request', async () => {
    const result = await cli([
      'enroll',
      '--mock-user',
      'alice',
      '--count',
      '10',
      '--name',
      'x'.repeat(126),
    ]);
    expect(result.stderr).toMatch(/^error: the profile name of device 10 has 129 characters/m);
    expect(result.code).toBe(2);
    expect(await suite.mock.journal()).toEqual([]);
  });

  it('refuses a --name already in the file before spending a token pair; the host name is numbered on', async () => {
    const first = await cli(['enroll', '--mock-user', 'alice', '--name', 'laptop', '-o', 'json']);
    expect(first.code).toBe(0);
    const id = JSON.parse(first.stdout).deviceId as string;
    const registrations = async () =>
      (await suite.mock.journal()).filter((r) => r.path.startsWith('/v2.3/register/')).length;
    const before = await registrations();
    expect(before).toBe(1);

    const again = await cli(['enroll', '--mock-user', 'alice', '--name', 'laptop']);
    expect(again.code).toBe(6);
    expect(again.stderr).toContain(
      `error: ${join(suite.dir, 'profiles.pt')} already has a profile named "laptop" (device ${id}); nothing was enrolled`,
    );
    expect(again.stderr).toContain(`hint: choose another --name, or delete that profile first`);
    expect(await registrations()).toBe(before);

    const host = hostname();
    for (let i = 0; i < 2; i++) {
      expect((await cli(['enroll', '--mock-user', 'alice'])).code).toBe(0);
    }
    const listed = await cli(['profiles', 'list', '-o', 'json']);
    expect(JSON.parse(listed.stdout).map((p: { name: string }) => p.name)).toEqual([
      'laptop',
      host,
      `${host}-2`,
    ]);
    expect((await cli(['profiles', 'use', host])).code).toBe(0);
  });
});

describe('an unreachable URL is named, with the setting it came from', () => {
  it.each([
    [
      ['--enrollment-url', NOWHERE],
      {},
      `fetch the key server public key of keyspace ABcd: cannot reach the enrollment URL ${NOWHERE}: connection refused`,
      'hint: check --enrollment-url and that the service is running',
    ],
    [
      ['--api-url', NOWHERE],
      {},
      `mint mock tokens for alice: cannot reach the API URL ${NOWHERE}: connection refused`,
      'hint: check --api-url and that the service is running',
    ],
    [
      [],
      { KSCTL_ENROLLMENT_URL: NOWHERE },
      `cannot reach the enrollment URL ${NOWHERE}: connection refused`,
      'hint: check KSCTL_ENROLLMENT_URL (or pass --enrollment-url) and that the service is running',
    ],
    [
      ['--kns-url', NOWHERE],
      { KSCTL_API_URL: undefined, KSCTL_ENROLLMENT_URL: undefined },
      `key naming lookup of keyspace ABcd: cannot reach the key naming lookup URL ${NOWHERE}: connection refused`,
      'hint: check --kns-url and that the service is running',
    ],
  ])('%j %j (exit 7)', async (flags, env, message, hint) => {
    const result = await cli(['enroll', '--mock-user', 'alice', ...flags], { env });
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain(hint);
    expect(result.stderr).not.toContain('unused.invalid');
    expect(result.stderr).not.toContain('--base-url');
    expect(result.code).toBe(7);
  });

  it('traces a URL from the context back to the context', async () => {
    const added = await cli([
      'context',
      'add',
      'lab',
      '--base-url',
      suite.mock.baseUrl,
      '--enrollment-url',
      NOWHERE,
      '--use',
    ]);
    expect(added.code).toBe(0);
    const result = await cli(['enroll', '--mock-user', 'alice'], {
      env: { KSCTL_ENROLLMENT_URL: undefined },
    });
    expect(result.stderr).toContain(
      `cannot reach the enrollment URL ${NOWHERE}: connection refused`,
    );
    expect(result.stderr).toContain(
      'hint: check the enrollment URL of the context (or pass --enrollment-url) and that the service is running',
    );
    expect(result.code).toBe(7);
  });
});

describe('a tokens file that is not one', () => {
  it('lists the first 50 problems, counts the rest, and never prints the text', async () => {
    const lines = Array.from({ length: 4000 }, (_, i) => `garbage${i}`);
    await writeFile(join(suite.dir, 'tokens'), lines.join('\n'));
    const result = await cli(['enroll', '--tokens-file', join(suite.dir, 'tokens')]);
    expect(result.code).toBe(3);
    const stderr = result.stderr.split('\n');
    expect(stderr[0]).toBe(
      `error: ${join(suite.dir, 'tokens')} has 4000 lines that are not token pairs; nothing was sent`,
    );
    expect(stderr.filter((l) => l.includes('expected "STOKEN UIDAUTH"'))).toHaveLength(50);
    expect(result.stderr).toContain('  … and 3950 more problems\n');
    expect(stderr.length).toBeLessThan(60);
    expect(result.stderr).not.toContain('garbage');
    expect(await suite.mock.journal()).toEqual([]);
  });

  it('says so in one sentence when one line is wrong, or the file is empty', async () => {
    await writeFile(join(suite.dir, 'tokens'), 'I.one ,Itwo\nnot-a-pair\n');
    const one = await cli(['enroll', '--tokens-file', join(suite.dir, 'tokens')]);
    expect(one.stderr).toContain(
      `error: ${join(suite.dir, 'tokens')} has a line that is not a token pair; nothing was sent`,
    );
    await writeFile(join(suite.dir, 'empty'), '\n');
    const empty = await cli(['enroll', '--tokens-file', join(suite.dir, 'empty')]);
    expect(empty.stderr).toContain(
      `error: the list of token pairs in ${join(suite.dir, 'empty')} is empty`,
    );
    expect(empty.code).toBe(2);
  });
});

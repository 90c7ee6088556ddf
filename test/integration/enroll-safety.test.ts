/**
 * Enrollment never spends a token pair on a device whose profile cannot be stored (issue 10): a
 * lock left by a killed ksctl does not stall the next one, bulk names stay unique, a profile name
 * is checked (blank, unprintable, too long, taken) before any request, and a profile file behind
 * a symbolic link is written through the link.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { lstat, mkdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/client/profiles/index.js';
import { cliFor } from '../helpers/cli.js';
import { enrollingSuite } from './mock-enroll-fixtures.js';

const suite = enrollingSuite();

const cli = cliFor(() => suite.markingsEnv());

const enrolledDevices = async () =>
  (await suite.mock.call('GET', '/_mock/devices')).body as unknown[];
const registered = async () => (await enrolledDevices()).length;
const profileNames = async () =>
  (await loadProfiles({ kind: 'plaintext', path: suite.profilesPath })).profiles.map((p) => p.name);

/** The pid of a process that has ended. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid!;
}

describe('bulk names', () => {
  it('a second run with the same --name continues the numbering; every name shows', async () => {
    const bulk = ['enroll', '--count', '2', '--name', 'faulty', '--mock-user', 'alice'];
    expect((await cli(bulk)).code).toBe(0);
    expect((await cli(bulk)).code).toBe(0);
    // Devices of one run are stored as they finish, in either order.
    expect((await profileNames()).sort()).toEqual(['faulty-1', 'faulty-2', 'faulty-3', 'faulty-4']);
    for (const name of ['faulty-1', 'faulty-4']) {
      const shown = await cli(['profiles', 'show', name]);
      expect(shown.code).toBe(0);
    }
  });

  it('two runs at the same time take turns at the file and never share a name', async () => {
    const bulk = ['enroll', '--count', '2', '--name', 'par', '--mock-user', 'alice'];
    const results = await Promise.all([cli(bulk), cli(bulk)]);
    expect(results.map((r) => r.code)).toEqual([0, 0]);
    expect((await profileNames()).sort()).toEqual(['par-1', 'par-2', 'par-3', 'par-4']);
  });
});

describe('the profile file lock', () => {
  it('a lock left by a killed ksctl is taken over at once', async () => {
    await writeFile(`${suite.profilesPath}.lock`, `${await deadPid()} dead-run ${hostname()}\n`);
    const result = await cli(['enroll', '--mock-user', 'alice', '--name', 'after-crash']);
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('waiting for');
    expect(await profileNames()).toEqual(['after-crash']);
  });

  it('a live holder is waited for, and nothing is registered until the lock is free', async () => {
    const lock = `${suite.profilesPath}.lock`;
    // Process 1 always exists.
    await writeFile(lock, `1 live-run ${hostname()}\n`);
    let startedWaiting: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (startedWaiting = resolve));
    const running = cli(['enroll', '--mock-user', 'alice', '--name', 'patient'], {
      onStderr: (chunk) => {
        if (chunk.toString('utf8').includes('waiting for')) startedWaiting();
      },
    });
    // The enrollment says it waits before it registers anything: from then on it holds still
    // until the lock is gone.
    await Promise.race([waiting, running]);
    expect(await registered()).toBe(0);
    await rm(lock);
    const result = await running;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`waiting for process 1 to finish with ${suite.profilesPath}…`);
    expect(await registered()).toBe(1);
  });
});

describe('a profile that could not be stored is never registered', () => {
  it.each([
    ['a file that is not a profile file', 'garbage', 3],
    ['a directory in place of the file', 'dir', 3],
  ])('%s: fails before registering', async (_, kind, code) => {
    if (kind === 'dir') await writeFile(join(suite.dir, 'placeholder'), '');
    const path = kind === 'dir' ? suite.dir : suite.profilesPath;
    if (kind === 'garbage') await writeFile(suite.profilesPath, 'not a profile file\n');
    const result = await cli(['enroll', '--mock-user', 'alice', '--persistor-path', path]);
    expect(result.code).toBe(code);
    expect(await registered()).toBe(0);
  });

  it.skipIf(!existsSync('/proc/self'))(
    'a profile directory that cannot be created: exit 3 at once, nothing registered',
    async () => {
      const result = await cli([
        'enroll',
        '--mock-user',
        'alice',
        '--persistor-path',
        '/proc/newdir/p.pt',
      ]);
      expect(result.code).toBe(3);
      expect(result.stderr).toContain('cannot create the directory /proc/newdir');
      expect(await registered()).toBe(0);
    },
  );

  it('a wrong persistor password fails before registering (exit 4)', async () => {
    await writeFile(join(suite.dir, 'right'), 'the right password\n');
    await writeFile(join(suite.dir, 'wrong'), 'the wrong password\n');
    const enrollWith = (passwordFile: string) =>
      cli([
        'enroll',
        '--mock-user',
        'alice',
        '--persistor',
        'password',
        '--persistor-path',
        join(suite.dir, 'profiles.pw'),
        '--persistor-password-file',
        join(suite.dir, passwordFile),
      ]);
    expect((await enrollWith('right')).code).toBe(0);
    expect((await enrollWith('wrong')).code).toBe(4);
    expect(await registered()).toBe(1);
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

/**
 * Issue 10: enrollment never spends a token pair on a device whose profile cannot be stored, a
 * lock left by a killed ksctl does not stall the next one, and bulk names stay unique.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { rm, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { loadProfiles } from '../../src/profiles/index.js';
import { cliFor } from '../helpers/cli.js';
import { enrollingSuite } from './mock-enroll-fixtures.js';

const suite = enrollingSuite();

const cli = cliFor(() => suite.markingsEnv());

const registered = async () =>
  ((await suite.mock.call('GET', '/_mock/devices')).body as unknown[]).length;
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
    expect(await profileNames()).toEqual(['faulty-1', 'faulty-2', 'faulty-3', 'faulty-4']);
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

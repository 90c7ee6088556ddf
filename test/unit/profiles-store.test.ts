import { randomBytes } from 'node:crypto';
import {
  copyFile,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  utimes,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthError, ConflictError, InputError } from '../../src/common/errors.js';
import {
  loadProfiles,
  saveProfiles,
  updateProfiles,
  withProfileFileLock,
} from '../../src/client/profiles/store.js';
import type { PersistorSpec, Profile, ProfileSet } from '../../src/client/profiles/types.js';
import { testProfile } from '../helpers/profiles.js';
import { IONIC_SAMPLE_PW as PW_FIXTURE } from '../helpers/fixtures.js';

const profile = (index: number): Profile => testProfile(index);

const SET: ProfileSet = { activeDeviceId: profile(0).deviceId, profiles: [profile(0), profile(1)] };
const AES_KEY = randomBytes(32);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'ksctl-profiles-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function specs(): PersistorSpec[] {
  return [
    { kind: 'plaintext', path: path.join(dir, 'p.pt') },
    { kind: 'password', path: path.join(dir, 'p.pw'), password: 'secret-pass' },
    {
      kind: 'password',
      path: path.join(dir, 'p10.pw'),
      password: 'secret-pass',
      passwordVersion: '1.0',
    },
    { kind: 'aesgcm', path: path.join(dir, 'p.aesgcm'), aesgcmKey: AES_KEY, aesgcmAdata: 'adata' },
  ];
}

function addOne(index: number) {
  return (set: ProfileSet): ProfileSet => ({ ...set, profiles: [...set.profiles, profile(index)] });
}

describe('loadProfiles / saveProfiles', () => {
  it('reads a missing file as an empty set with no active profile', async () => {
    const set = await loadProfiles({ kind: 'plaintext', path: path.join(dir, 'none.pt') });
    expect(set).toEqual({ activeDeviceId: '', profiles: [] });
  });

  it('round-trips every format and version', async () => {
    for (const spec of specs()) {
      await saveProfiles(spec, SET);
      const loaded = await loadProfiles(spec);
      expect(loaded.activeDeviceId).toBe(SET.activeDeviceId);
      expect(loaded.profiles).toEqual(SET.profiles);
    }
  });

  it('writes the file 0600 in a new 0700 directory, leaving no temp or lock files', async () => {
    const nested = path.join(dir, 'home', '.ionicsecurity');
    const file = path.join(nested, 'profiles.pw');
    await saveProfiles({ kind: 'password', path: file, password: 'secret-pass' }, SET);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(nested)).mode & 0o777).toBe(0o700);
    expect(await readdir(nested)).toEqual(['profiles.pw']);
  });

  it('makes an existing looser file 0600 when it replaces it', async () => {
    const file = path.join(dir, 'loose.pt');
    await writeFile(file, '{"profiles":[]}', { mode: 0o644 });
    await saveProfiles({ kind: 'plaintext', path: file }, SET);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('uses a fresh salt on every save of a 1.1 password file', async () => {
    const spec: PersistorSpec = {
      kind: 'password',
      path: path.join(dir, 's.pw'),
      password: 'secret-pass',
    };
    await saveProfiles(spec, SET);
    const first = await readFile(spec.path);
    await saveProfiles(spec, SET);
    const second = await readFile(spec.path);
    const header = (bytes: Buffer) => bytes.subarray(0, bytes.indexOf('\r\n\r\n')).toString();
    expect(header(first)).toContain('"version":"1.1"');
    expect(header(first)).not.toBe(header(second));
  });

  it('refuses to write a profile whose key is not 32 bytes', async () => {
    const bad = { ...SET, profiles: [{ ...profile(0), aesCdEiKey: randomBytes(16) }] };
    await expect(
      saveProfiles({ kind: 'plaintext', path: path.join(dir, 'b.pt') }, bad),
    ).rejects.toThrow(/profiles\[0\]\.aesCdEiKey must be 32 bytes/);
  });
});

describe('updateProfiles', () => {
  it('reads, changes and writes back the SDK sample file, keeping its 1.0 format', async () => {
    const file = path.join(dir, 'sample.pw');
    await copyFile(PW_FIXTURE, file);
    const spec: PersistorSpec = { kind: 'password', path: file, password: 'ionic123' };
    await updateProfiles(spec, addOne(7));
    const bytes = await readFile(file);
    // No 1.1 header: older SDKs can still read it. (A 1.0 file starts with its random IV, a
    // `{` one time in 256: the header is what tells them apart.)
    expect(bytes.toString('latin1')).not.toMatch(/^\{"extra":\{"salt":/);
    expect((await loadProfiles(spec)).profiles.map((p) => p.name)).toEqual([
      'ABcd-profile',
      'EfGh-profile',
      'profile-7',
    ]);
    await updateProfiles({ ...spec, passwordVersion: '1.1' }, (set) => set);
    expect((await readFile(file)).toString('latin1')).toMatch(/^\{"extra":\{"salt":/);
  });

  it('leaves the file untouched on a wrong password', async () => {
    const file = path.join(dir, 'sample.pw');
    await copyFile(PW_FIXTURE, file);
    const before = await readFile(file);
    const mutate = vi.fn(addOne(1));
    await expect(
      updateProfiles({ kind: 'password', path: file, password: 'wrong-password' }, mutate),
    ).rejects.toBeInstanceOf(AuthError);
    expect(mutate).not.toHaveBeenCalled();
    expect(await readFile(file)).toEqual(before);
    expect(await readdir(dir)).toEqual(['sample.pw']);
  });

  it('leaves the file untouched on a wrong aesgcm key', async () => {
    const spec = specs()[3]!;
    await saveProfiles(spec, SET);
    const before = await readFile(spec.path);
    await expect(
      updateProfiles({ ...spec, aesgcmKey: randomBytes(32) }, addOne(2)),
    ).rejects.toBeInstanceOf(AuthError);
    expect(await readFile(spec.path)).toEqual(before);
  });

  it('leaves a corrupt file untouched and names it', async () => {
    const file = path.join(dir, 'broken.pt');
    await writeFile(file, '{"activeDeviceId":"x","profiles":[{"name":');
    const error = await updateProfiles({ kind: 'plaintext', path: file }, addOne(1)).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toContain(file);
    expect(await readFile(file, 'utf8')).toBe('{"activeDeviceId":"x","profiles":[{"name":');
  });

  it('writes nothing when the mutation throws', async () => {
    const spec = specs()[0]!;
    await saveProfiles(spec, SET);
    const before = await readFile(spec.path);
    await expect(
      updateProfiles(spec, () => {
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await readFile(spec.path)).toEqual(before);
    expect(await readdir(dir)).toEqual(['p.pt']);
  });

  it('keeps all 20 profiles added by 20 parallel updates', async () => {
    const spec = specs()[1]!;
    await Promise.all(Array.from({ length: 20 }, (_, i) => updateProfiles(spec, addOne(i))));
    const loaded = await loadProfiles(spec);
    expect(loaded.profiles).toHaveLength(20);
    expect(new Set(loaded.profiles.map((p) => p.name)).size).toBe(20);
  });

  it('keeps every profile when two separate module instances (like two processes) write', async () => {
    // Fresh module instances do not share the in-process mutex, so only the lock file
    // keeps them apart, as it must between two ksctl processes.
    vi.resetModules();
    const first = await import('../../src/client/profiles/store.js');
    vi.resetModules();
    const second = await import('../../src/client/profiles/store.js');
    expect(first.updateProfiles).not.toBe(second.updateProfiles);
    const spec = specs()[0]!;
    await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        (i % 2 === 0 ? first : second).updateProfiles(spec, addOne(i)),
      ),
    );
    expect((await loadProfiles(spec)).profiles).toHaveLength(16);
  });
});

describe('lock file', () => {
  it('waits while another process holds the lock, then proceeds', async () => {
    const spec = specs()[0]!;
    const lock = `${spec.path}.lock`;
    await writeFile(lock, 'another process\n');
    let done = false;
    let startedWaiting: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (startedWaiting = resolve));
    const update = updateProfiles(spec, addOne(1), { onWait: () => startedWaiting() }).then(() => {
      done = true;
    });
    // It says it waits: from then on nothing is written until the lock is gone.
    await Promise.race([waiting, update]);
    expect(done).toBe(false);
    expect((await loadProfiles(spec)).profiles).toHaveLength(0);
    await rm(lock);
    await update;
    expect((await loadProfiles(spec)).profiles).toHaveLength(1);
    await expect(stat(lock)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('takes over a stale lock left by a crashed process', async () => {
    const spec = specs()[0]!;
    const lock = `${spec.path}.lock`;
    await writeFile(lock, 'crashed process\n');
    const longAgo = new Date(Date.now() - 60_000);
    await utimes(lock, longAgo, longAgo);
    await updateProfiles(spec, addOne(1));
    expect((await loadProfiles(spec)).profiles).toHaveLength(1);
    expect(await readdir(dir)).toEqual(['p.pt']);
  });

  it('gives up with a ConflictError naming the lock file', async () => {
    const target = path.join(dir, 'held.pt');
    await writeFile(`${target}.lock`, 'another process\n');
    const error = await withProfileFileLock(target, async () => 'ran', { timeoutMs: 100 }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.message).toContain(`${target}.lock`);
    expect(error.hint).toContain('delete');
  });
});

describe('a writer killed before its rename (issue 34)', () => {
  it('leaves a temp file that the next write removes; a running writer keeps its own', async () => {
    const spec: PersistorSpec = { kind: 'plaintext', path: path.join(dir, 'profiles.pt') };
    await saveProfiles(spec, SET);
    // A process that has ended, as one killed with -9 during `enroll --count`.
    const { spawn } = await import('node:child_process');
    const gone = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => gone.on('exit', resolve));
    const running = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)']);
    try {
      const stale = `.profiles.pt.${gone.pid}.0123456789ab.tmp`;
      const live = `.profiles.pt.${running.pid}.0123456789ab.tmp`;
      const other = `.other.pt.${gone.pid}.0123456789ab.tmp`;
      for (const name of [stale, live, other]) await writeFile(path.join(dir, name), 'half');
      await updateProfiles(spec, (set) => set);
      const left = await readdir(dir);
      expect(left).not.toContain(stale);
      expect(left).toContain(live);
      // Another file's temp files are its own writes' to clean.
      expect(left).toContain(other);
      expect((await loadProfiles(spec)).profiles).toHaveLength(2);
    } finally {
      running.kill();
    }
  });

  it('reads a file of zero bytes as no profile file, naming it', async () => {
    for (const kind of ['plaintext', 'password'] as const) {
      const spec: PersistorSpec = {
        kind,
        path: path.join(dir, `zero.${kind}`),
        password: 'secret-pw',
      };
      await writeFile(spec.path, '');
      const error = await loadProfiles(spec).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).message).toBe(
        `${spec.path} is empty (0 bytes): it is not a ${kind} profile file`,
      );
      await expect(updateProfiles(spec, (set) => set)).rejects.toBeInstanceOf(InputError);
      expect(await readFile(spec.path, 'utf8')).toBe('');
    }
  });
});

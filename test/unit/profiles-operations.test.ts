import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, InputError, NotFoundError, UsageError } from '../../src/common/errors.js';
import type { PersistorSpec, Profile } from '../../src/client/profiles/index.js';
import {
  addProfile,
  convertProfiles,
  deleteProfile,
  listProfiles,
  loadProfiles,
  REDACTED,
  showProfile,
  useProfile,
} from '../../src/client/profiles/index.js';
import { testProfile } from '../helpers/profiles.js';
import {
  IONIC_SAMPLE_PT as PT_FIXTURE,
  IONIC_SAMPLE_PW as PW_FIXTURE,
} from '../helpers/fixtures.js';

const ABCD = 'ABcd.4.9f521b6f-ac9e-48bc-a54a-2f1730288bf';
const EFGH = 'EfGh.1.54sdf8-sdfj-5802-sd80-248vwqucv9s73';
const ABCD_EI_KEY = '51b967286b50565894714770b09698b841927b93449998924823bb7615a969a5';

function profile(index: number, name = `profile-${index}`): Profile {
  return { ...testProfile(index, 'WXyz'), name, creationTimestamp: 1_763_780_000 };
}

let dir: string;
let pt: PersistorSpec;
let pw: PersistorSpec;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'ksctl-profiles-ops-'));
  pt = { kind: 'plaintext', path: path.join(dir, 'profiles.pt') };
  pw = { kind: 'password', path: path.join(dir, 'profiles.pw'), password: 'ionic123' };
  await copyFile(PT_FIXTURE, pt.path);
  await copyFile(PW_FIXTURE, pw.path);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('listProfiles', () => {
  it('lists the sample file with keyspace, ISO creation time and the active mark', async () => {
    expect(await listProfiles(pw)).toEqual([
      {
        name: 'ABcd-profile',
        deviceId: ABCD,
        server: 'https://api.ionic.com',
        keyspace: 'ABcd',
        created: '2018-04-13T17:21:51.000Z',
        active: true,
      },
      {
        name: 'EfGh-profile',
        deviceId: EFGH,
        server: 'https://api.ionic.com',
        keyspace: 'EfGh',
        created: '2018-04-13T17:21:51.000Z',
        active: false,
      },
    ]);
  });

  it('lists nothing when the file does not exist', async () => {
    expect(await listProfiles({ kind: 'plaintext', path: path.join(dir, 'none.pt') })).toEqual([]);
  });
});

describe('showProfile', () => {
  it('hides the keys unless secrets are asked for', async () => {
    const hidden = await showProfile(pt, 'ABcd-profile');
    expect(hidden.aesCdEiKey).toBe(REDACTED);
    expect(hidden.aesCdIdcKey).toBe(REDACTED);
    expect(JSON.stringify(hidden)).not.toMatch(/[0-9a-f]{64}/i);
    const shown = await showProfile(pt, ABCD, { showSecrets: true });
    expect(shown.aesCdEiKey).toBe(ABCD_EI_KEY);
    expect(shown).toMatchObject({ deviceId: ABCD, keyspace: 'ABcd', active: true });
  });

  it('says NotFoundError for an unknown profile, naming the file', async () => {
    const error = await showProfile(pt, 'nope').catch((e) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toContain('"nope"');
    expect(error.message).toContain(pt.path);
  });

  it('asks for the device id when a name is ambiguous, listing the candidates', async () => {
    await addProfile(pt, profile(1, 'twin'));
    await addProfile(pt, profile(2, 'twin'));
    const error = await showProfile(pt, 'twin').catch((e) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain(profile(1).deviceId);
    expect(error.message).toContain(profile(2).deviceId);
    expect(error.hint).toContain('device id');
    expect((await showProfile(pt, profile(2).deviceId)).name).toBe('twin');
  });
});

describe('useProfile and deleteProfile', () => {
  it('switches the active profile in the encrypted file', async () => {
    const row = await useProfile(pw, 'EfGh-profile');
    expect(row).toMatchObject({ deviceId: EFGH, active: true });
    expect((await loadProfiles(pw)).activeDeviceId).toBe(EFGH);
  });

  it('deleting the active profile leaves none active', async () => {
    const result = await deleteProfile(pt, ABCD);
    expect(result.deleted).toMatchObject({ deviceId: ABCD, active: true });
    expect(result.activeDeviceId).toBe('');
    const after = await loadProfiles(pt);
    expect(after.activeDeviceId).toBe('');
    expect(after.profiles.map((p) => p.deviceId)).toEqual([EFGH]);
  });

  it('deleting another profile keeps the active one', async () => {
    const result = await deleteProfile(pw, 'EfGh-profile');
    expect(result.activeDeviceId).toBe(ABCD);
    expect((await listProfiles(pw)).map((row) => row.name)).toEqual(['ABcd-profile']);
  });

  it('does not change the file when the profile is unknown', async () => {
    const before = await readFile(pw.path);
    await expect(deleteProfile(pw, 'nope')).rejects.toBeInstanceOf(NotFoundError);
    expect(await readFile(pw.path)).toEqual(before);
  });
});

describe('addProfile', () => {
  it('makes the first profile of a new file active, later ones only when asked', async () => {
    const spec: PersistorSpec = { kind: 'plaintext', path: path.join(dir, 'new', 'profiles.pt') };
    expect((await addProfile(spec, profile(1))).active).toBe(true);
    expect((await addProfile(spec, profile(2))).active).toBe(false);
    expect((await addProfile(spec, profile(3), { setActive: true })).active).toBe(true);
    expect((await loadProfiles(spec)).activeDeviceId).toBe(profile(3).deviceId);
  });

  it('refuses a second profile with the same device id', async () => {
    await addProfile(pt, profile(1));
    await expect(addProfile(pt, profile(1, 'again'))).rejects.toBeInstanceOf(ConflictError);
  });

  it('refuses a profile with a short key before touching the file', async () => {
    const before = await readFile(pt.path);
    await expect(addProfile(pt, { ...profile(1), aesCdIdcKey: randomBytes(31) })).rejects.toThrow(
      InputError,
    );
    expect(await readFile(pt.path)).toEqual(before);
  });
});

describe('convertProfiles', () => {
  it('converts password 1.0 to plaintext, aesgcm and password 1.1 and back', async () => {
    const aesgcm: PersistorSpec = {
      kind: 'aesgcm',
      path: path.join(dir, 'out.aesgcm'),
      aesgcmKey: randomBytes(32),
      aesgcmAdata: 'adata',
    };
    const plain: PersistorSpec = { kind: 'plaintext', path: path.join(dir, 'out.pt') };
    const pw11: PersistorSpec = {
      kind: 'password',
      path: path.join(dir, 'out.pw'),
      password: 'longer-pass',
    };
    expect(await convertProfiles(pw, aesgcm)).toEqual({
      count: 2,
      activeDeviceId: ABCD,
      target: aesgcm.path,
    });
    await convertProfiles(aesgcm, plain);
    await convertProfiles(plain, pw11);
    const original = await loadProfiles(pw);
    for (const spec of [aesgcm, plain, pw11]) {
      expect(await loadProfiles(spec)).toEqual(original);
    }
    expect((await readFile(pw11.path)).toString('latin1')).toMatch(/"version":"1\.1"\}\r\n\r\n/);
  });

  it('refuses to overwrite a non-empty target unless forced', async () => {
    const target: PersistorSpec = { kind: 'plaintext', path: path.join(dir, 'taken.pt') };
    await writeFile(target.path, 'something precious');
    const error = await convertProfiles(pw, target).catch((e) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.hint).toContain('--force');
    expect(await readFile(target.path, 'utf8')).toBe('something precious');
    expect((await convertProfiles(pw, target, { force: true })).count).toBe(2);
    expect((await loadProfiles(target)).profiles).toHaveLength(2);
  });

  it('overwrites an empty target without force', async () => {
    const target: PersistorSpec = { kind: 'plaintext', path: path.join(dir, 'empty.pt') };
    await writeFile(target.path, '');
    expect((await convertProfiles(pt, target)).count).toBe(2);
  });

  it('says there is nothing to convert when the source is missing', async () => {
    const source: PersistorSpec = { kind: 'plaintext', path: path.join(dir, 'none.pt') };
    await expect(convertProfiles(source, pt, { force: true })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('can write the SDK 1.0 password format on request', async () => {
    const target: PersistorSpec = {
      kind: 'password',
      path: path.join(dir, 'legacy.pw'),
      password: 'longer-pass',
      passwordVersion: '1.0',
    };
    await convertProfiles(pt, target);
    const bytes = await readFile(target.path);
    expect(bytes.includes('\r\n\r\n')).toBe(false);
    expect((await loadProfiles(target)).profiles).toHaveLength(2);
  });
});

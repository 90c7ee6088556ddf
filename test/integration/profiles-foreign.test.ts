/**
 * Profile files written by other programs: the vendor's sample persistor (IonicDev's
 * ionic-devreq-api-python writes profiles without `name` and `creationTimestamp`) and files with
 * members ksctl does not know. ksctl lists them, uses them by device id, enrolls into them and
 * writes them back without dropping anything it did not write.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { TokenPair } from '../../src/common/enrollment/wire.js';
import { decodeProfileFile, encodeProfileFile } from '../../src/client/profiles/index.js';
import type { PersistorSpec } from '../../src/client/profiles/types.js';
import { cliFor, tsvRows } from '../helpers/cli.js';
import { enrollingSuite } from './mock-enroll-fixtures.js';

const suite = enrollingSuite();

const cli = cliFor(() => suite.env());

const UNNAMED = 'ABcd.1.7d0c7c64-0f43-4b8e-9d43-6c2f1b0a9e01';
const NAMED = 'EfGh.1.0b6e2a53-8c1d-4f7e-a2b9-5e4d3c2b1a00';
const hex = (byte: string) => byte.repeat(32);

/**
 * Byte for byte what the vendor's sample plaintext persistor writes: Python's json.dump with its
 * default separators, each profile's members in the order it exports them (deviceId, server,
 * aesCdIdcKey, aesCdEiKey, then name only when it has one), lower-case hex, no creation time.
 */
const VENDOR_FILE =
  `{"activeDeviceId": "${UNNAMED}", "profiles": [` +
  `{"deviceId": "${UNNAMED}", "server": "https://api.ionic.com", "aesCdIdcKey": "${hex('1a')}", "aesCdEiKey": "${hex('2b')}"}, ` +
  `{"deviceId": "${NAMED}", "server": "https://api.ionic.com", "aesCdIdcKey": "${hex('3c')}", "aesCdEiKey": "${hex('4d')}", "name": "sample"}]}`;

/** A file another tool extended: members ksctl does not know, at the top and per profile. */
const EXTENDED = {
  activeDeviceId: UNNAMED,
  toolVersion: '9.9',
  settings: { theme: 'dark' },
  profiles: [
    {
      deviceId: UNNAMED,
      server: 'https://api.ionic.com',
      aesCdIdcKey: hex('1a'),
      aesCdEiKey: hex('2b'),
      label: { color: 'red' },
      tags: ['ci'],
    },
    {
      deviceId: NAMED,
      server: 'https://api.ionic.com',
      aesCdIdcKey: hex('3c'),
      aesCdEiKey: hex('4d'),
      name: 'sample',
      creationTimestamp: 1523640111,
      notes: 'kept',
    },
  ],
};

async function fileDocument(): Promise<{ profiles: Record<string, unknown>[] } & object> {
  return JSON.parse(await readFile(suite.profilesPath, 'utf8'));
}

describe("the vendor's sample persistor file", () => {
  beforeEach(() => writeFile(suite.profilesPath, VENDOR_FILE));

  it('is listed; a profile without a name goes by its device id', async () => {
    const result = await cli(['profiles', 'list']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(tsvRows(result.stdout)).toEqual([
      ['*', UNNAMED, UNNAMED, 'ABcd', 'https://api.ionic.com', ''],
      ['', 'sample', NAMED, 'EfGh', 'https://api.ionic.com', ''],
    ]);
    const json = JSON.parse((await cli(['profiles', 'list', '-o', 'json'])).stdout);
    expect(json[0]).toMatchObject({ name: null, created: null, deviceId: UNNAMED, active: true });
  });

  it('profiles show, use and delete work by device id and keep the file as the vendor reads it', async () => {
    const shown = await cli(['profiles', 'show', UNNAMED, '--show-secrets', '-o', 'json']);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ aesCdIdcKey: hex('1a'), name: null });

    const used = await cli(['profiles', 'use', NAMED]);
    expect(used.code).toBe(0);
    expect(used.stderr).toContain(`profile "sample" (${NAMED}) is now the active one`);
    const after = await fileDocument();
    expect(after).toMatchObject({ activeDeviceId: NAMED });
    // Still no name and no time where the vendor wrote none: nothing was invented.
    expect(after.profiles[0]).toEqual({
      deviceId: UNNAMED,
      server: 'https://api.ionic.com',
      aesCdIdcKey: hex('1a'),
      aesCdEiKey: hex('2b'),
    });

    const deleted = await cli(['profiles', 'delete', UNNAMED, '--yes']);
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toContain(`deleted profile ${UNNAMED}`);
    expect((await fileDocument()).profiles.map((p) => p.deviceId)).toEqual([NAMED]);
  });

  it('enroll adds a profile and leaves the others as they were', async () => {
    const before = JSON.parse(VENDOR_FILE);
    const pair = (await suite.mock.call('POST', '/_mock/tokens', { user: 'alice' }))
      .body as TokenPair;
    const result = await cli(['enroll', '--name', 'added'], {
      env: { KSCTL_STOKEN: pair.stoken, KSCTL_UIDAUTH: pair.uidauth },
    });
    expect(result.stderr).toContain('enrolled');
    expect(result.code).toBe(0);
    const after = await fileDocument();
    expect(after.profiles.slice(0, 2)).toEqual(before.profiles);
    expect(after.profiles[2]).toMatchObject({
      name: 'added',
      creationTimestamp: expect.any(Number),
    });
    // A new profile becomes the active one, as after any enrollment.
    expect(after).toMatchObject({ activeDeviceId: after.profiles[2]!.deviceId });
  });
});

describe('members ksctl does not know', () => {
  it('survive enroll, use and delete in a plaintext file', async () => {
    await writeFile(suite.profilesPath, JSON.stringify(EXTENDED, null, 2));
    const pair = (await suite.mock.call('POST', '/_mock/tokens', { user: 'alice' }))
      .body as TokenPair;
    const enrolled = await cli(['enroll', '--name', 'added'], {
      env: { KSCTL_STOKEN: pair.stoken, KSCTL_UIDAUTH: pair.uidauth },
    });
    expect(enrolled.code).toBe(0);
    expect((await cli(['profiles', 'use', NAMED])).code).toBe(0);
    const added = (await fileDocument()).profiles[2]!.deviceId as string;
    expect((await cli(['profiles', 'delete', added, '--yes'])).code).toBe(0);
    // Back to the two original profiles: everything the other tool wrote is still there.
    expect(await fileDocument()).toEqual({ ...EXTENDED, activeDeviceId: NAMED });
  });

  it('survive a convert to another format', async () => {
    await writeFile(suite.profilesPath, JSON.stringify(EXTENDED));
    await writeFile(join(suite.dir, 'pw'), 'convert-password\n');
    const target = join(suite.dir, 'converted.pw');
    const converted = await cli([
      'profiles',
      'convert',
      '--to-persistor',
      'password',
      '--to-path',
      target,
      '--to-password-file',
      join(suite.dir, 'pw'),
    ]);
    expect(converted.code).toBe(0);
    const spec: PersistorSpec = { kind: 'password', path: target, password: 'convert-password' };
    const set = decodeProfileFile(spec, await readFile(target)).set;
    expect(JSON.parse(encodeProfileFile({ kind: 'plaintext', path: '' }, set).toString())).toEqual(
      EXTENDED,
    );
  });

  it.each<[string, PersistorSpec, Record<string, string>, string[]]>([
    [
      'password',
      { kind: 'password', path: '', password: 'secret-pw' },
      { KSCTL_PERSISTOR: 'password', KSCTL_PERSISTOR_PASSWORD: 'secret-pw' },
      [],
    ],
    [
      'aesgcm',
      { kind: 'aesgcm', path: '', aesgcmKey: Buffer.alloc(32, 7), aesgcmAdata: 'ad' },
      { KSCTL_PERSISTOR: 'aesgcm' },
      ['--persistor-aesgcm-key-file', 'KEY', '--persistor-aesgcm-adata', 'ad'],
    ],
  ])('survive use and delete in a %s file', async (_kind, template, env, flags) => {
    const spec = { ...template, path: join(suite.dir, `profiles.${template.kind}`) };
    await writeFile(join(suite.dir, 'key'), Buffer.alloc(32, 7).toString('hex'));
    const args = flags.map((f) => (f === 'KEY' ? join(suite.dir, 'key') : f));
    const original = decodeProfileFile(
      { kind: 'plaintext', path: 'extended' },
      Buffer.from(JSON.stringify(EXTENDED)),
    ).set;
    await writeFile(spec.path, encodeProfileFile(spec, original));
    const run = (argv: string[]) =>
      cli([...argv, ...args], { env: { ...env, KSCTL_PERSISTOR_PATH: spec.path } });

    const listed = await run(['profiles', 'list']);
    expect(listed.code).toBe(0);
    expect(tsvRows(listed.stdout).map((row) => row[1])).toEqual([UNNAMED, 'sample']);
    expect((await run(['profiles', 'use', NAMED])).code).toBe(0);

    const decoded = decodeProfileFile(spec, await readFile(spec.path)).set;
    expect(decoded.extra).toEqual({ toolVersion: '9.9', settings: { theme: 'dark' } });
    expect(decoded.profiles.map((p) => p.extra)).toEqual([
      { label: { color: 'red' }, tags: ['ci'] },
      { notes: 'kept' },
    ]);
    expect(decoded.profiles[0]!.name).toBeUndefined();
    expect(decoded.profiles[0]!.creationTimestamp).toBeUndefined();
  });
});

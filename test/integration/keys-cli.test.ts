/**
 * `ksctl keys`, `ksctl profiles check` and `ksctl enroll --verify` in-process against the real
 * mock, with devices enrolled through ksctl (one pre-generated device key pair stands in for the
 * RSA-3072 generation). What a user sees: the keys and their attributes, a refused marking value
 * explained with the allowed values, and a profile with wrong keys failing with exit 4.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { serviceSignature } from '../../src/common/device/crypto.js';
import { loadProfiles, saveProfiles } from '../../src/client/profiles/index.js';
import { cliFor, tsvRows } from '../helpers/cli.js';
import { enrollingSuite } from './mock-enroll-fixtures.js';

const suite = enrollingSuite();

const cli = cliFor(() => suite.markingsEnv());

async function enrollOne(name = 'qa'): Promise<void> {
  const result = await cli(['enroll', '--mock-user', 'alice', '--name', name]);
  expect(result.code, result.stderr).toBe(0);
}

async function ok(argv: string[]) {
  const result = await cli(argv);
  expect(result.code, result.stderr).toBe(0);
  return result;
}

const noStack = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at /);

describe('ksctl keys', () => {
  it('creates, fetches and modifies keys; marking values are checked and defaults added', async () => {
    await enrollOne();
    await ok([
      'markings',
      'create',
      'classification',
      '--value',
      'public',
      '--value',
      'internal',
      '--default-value',
      'internal',
    ]);
    const refused = await cli(['keys', 'create', '--attr', 'classification=secret']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(
      'ref "ksctl": marking "classification" has no value "secret"; allowed: "internal", "public"',
    );
    expect(refused.stdout).toBe('');
    noStack(refused.stderr);

    const created = await ok([
      'keys',
      'create',
      '--ref',
      'docs',
      '--count',
      '2',
      '--attr',
      'project=apollo',
      '--protected-attr',
      'owner=alice',
      '-o',
      'json',
    ]);
    const keys = JSON.parse(created.stdout) as { id: string; ref: string; attributes: object }[];
    expect(keys).toHaveLength(2);
    for (const key of keys) {
      expect(key.id).toMatch(/^ABcd/);
      expect(key.ref).toBe('docs');
      // The default the service added shows, and the protected value is readable again.
      expect(key.attributes).toEqual({
        project: ['apollo'],
        'ionic-protected-owner': ['alice'],
        classification: ['internal'],
      });
      expect(key).not.toHaveProperty('key');
    }
    const id = keys[0]!.id;

    const fetched = await ok(['keys', 'fetch', id, '--show-secrets']);
    const [row] = tsvRows(fetched.stdout);
    expect(row![0]).toBe(id);
    expect(row![3]).toMatch(/^[0-9a-f]{64}$/);
    expect((await ok(['keys', 'fetch', id])).stdout).not.toContain(row![3]);

    await ok(['keys', 'modify', id, '--attr', 'classification=public', '--attr', 'stage=review']);
    const after = JSON.parse((await ok(['keys', 'fetch', id, '-o', 'json'])).stdout);
    expect(after[0].mutableAttributes).toEqual({ classification: ['public'], stage: ['review'] });
    const badModify = await cli(['keys', 'modify', id, '--attr', 'classification=nope']);
    expect(badModify.code).toBe(3);
    expect(badModify.stderr).toContain('has no value "nope"; allowed: "internal", "public"');
    // --clear removes, so it asks like any removal: off a terminal it needs --yes.
    const unasked = await cli(['keys', 'modify', id, '--clear']);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toContain(
      `remove every mutable attribute of key ${id} (classification=public; stage=review): confirmation needed`,
    );
    expect(
      JSON.parse((await ok(['keys', 'fetch', id, '-o', 'json'])).stdout)[0].mutableAttributes,
    ).toEqual({ classification: ['public'], stage: ['review'] });
    await ok(['keys', 'modify', id, '--clear', '--yes']);
    expect(
      JSON.parse((await ok(['keys', 'fetch', id, '-o', 'json'])).stdout)[0].mutableAttributes,
    ).toEqual({});

    // Some found, one not: the found ones print, the missing one is the error (exit 5).
    const partly = await cli(['keys', 'fetch', id, 'ABcdMissing']);
    expect(partly.code).toBe(5);
    expect(tsvRows(partly.stdout).map((r) => r[0])).toEqual([id]);
    expect(partly.stderr).toContain('key "ABcdMissing": no key has this id');
  });

  it('--mutable-attr gives new keys mutable attributes (v2.4), which modify then replaces', async () => {
    await enrollOne();
    const created = await ok(['keys', 'create', '--attr', 'a=1', '--mutable-attr', 'stage=draft']);
    const [row] = tsvRows(created.stdout);
    expect(row!.slice(1)).toEqual(['ksctl', 'a=1', 'stage=draft']);
    await ok(['keys', 'modify', row![0]!, '--attr', 'stage=final']);
    expect(tsvRows((await ok(['keys', 'fetch', row![0]!])).stdout)).toEqual([
      [row![0], 'a=1', 'stage=final'],
    ]);
    const old = await cli(['keys', 'create', '--mutable-attr', 's=1', '--api-version', '2.3']);
    expect(old.code).toBe(2);
    expect(old.stderr).toContain('--mutable-attr needs the v2.4 dialect');
  });

  it('at 80 columns the table keeps the MUTABLE column, its attributes wrapped inside the cell', async () => {
    await enrollOne();
    const mutable = [
      '--mutable-attr',
      'region=eu-west-1',
      '--mutable-attr',
      'region=us-east-2',
      '--mutable-attr',
      'owner=someone-with-a-rather-long-name',
      '--mutable-attr',
      'department=engineering-and-research',
    ];
    const created = await ok(['keys', 'create', '--attr', 'classification=restricted', ...mutable]);
    const [id] = tsvRows(created.stdout)[0]!;
    const shown = await cli(['keys', 'fetch', id!], { tty: true, columns: 80 });
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +ATTRIBUTES +MUTABLE$/);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    expect(lines.length).toBeGreaterThan(2);
    // Every attribute is there, none cut: the lines of the cell read as the whole text.
    const column = lines[0]!.indexOf('MUTABLE');
    const cell = lines.slice(1).map((line) => line.slice(column).trim());
    expect(cell.join(' ')).toBe(
      'region=eu-west-1,us-east-2; owner=someone-with-a-rather-long-name; department=engineering-and-research',
    );
    expect(shown.stderr).not.toContain('cut to fit');
  });

  it('--debug traces the device requests without a secret: no SEP key, no data key', async () => {
    await enrollOne();
    const [profile] = (await loadProfiles({ kind: 'plaintext', path: suite.profilesPath }))
      .profiles;
    const created = await ok(['--debug', 'keys', 'create', '-o', 'json']);
    expect(created.stderr).toContain('[debug] > POST ');
    const { id } = (JSON.parse(created.stdout) as { id: string }[])[0]!;
    const fetched = await ok(['--debug', 'keys', 'fetch', id, '--show-secrets', '-o', 'json']);
    const { key } = (JSON.parse(fetched.stdout) as { key: string }[])[0]!;
    for (const stderr of [created.stderr, fetched.stderr]) {
      for (const secret of [profile!.aesCdIdcKey, profile!.aesCdEiKey, Buffer.from(key, 'hex')]) {
        expect(stderr).not.toContain(secret.toString('hex'));
        expect(stderr).not.toContain(secret.toString('base64'));
      }
    }
  });

  it.each([
    [['keys', 'create', '--attr', 'novalue'], /--attr takes NAME=VALUE, not "novalue"/],
    [['keys', 'create', '--attr', 'ionic-protected-x=1'], /pass it with --protected-attr/],
    [['keys', 'create', '--count', '0'], /expected a whole number from 1 to 1000/],
    [['keys', 'modify', 'ABcdX'], /nothing to change/],
    [['keys', 'fetch'], /missing required argument/],
    [['keys', 'fetch', 'ABcdX', '--api-version', '2.5'], /--api-version.*must be 2\.3 or 2\.4/],
    [
      ['keys', 'modify', 'ABcdX', '--attr', 'a=b', '--api-version', '2.3'],
      /v2\.3 dialect has no key modify/,
    ],
  ])('%j is a usage error (exit 2)', async (argv, message) => {
    const result = await cli(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('without any profile says how to get one (exit 5)', async () => {
    const result = await cli(['keys', 'create']);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain(`there is no profile file at ${suite.profilesPath}`);
    expect(result.stderr).toContain('ksctl enroll');
  });
});

describe('a modify that meets a change made meanwhile', () => {
  it('is refused (exit 6), names what changed and how to go on; --force replaces it', async () => {
    await enrollOne();
    const created = await ok(['keys', 'create', '-o', 'json']);
    const { id } = (JSON.parse(created.stdout) as { id: string }[])[0]!;
    await ok(['keys', 'modify', id, '--attr', 'stage=draft']);
    // Another device changes the key between ksctl's fetch and its modify: the second time
    // the modify looks the key up, the change lands first.
    const keys = suite.mock.server.state.keys;
    const get = keys.get.bind(keys);
    let lookups = 0;
    keys.get = (keyId: string) => {
      if (keyId === id && ++lookups === 2) {
        const key = get(keyId)!;
        const mattrs = JSON.stringify({ stage: ['published'] });
        keys.modify(keyId, {
          mattrs,
          msig: serviceSignature(Buffer.from(key.key, 'hex'), mattrs),
          modifiedAt: Date.now(),
        });
      }
      return get(keyId);
    };
    try {
      const stale = await cli(['keys', 'modify', id, '--attr', 'stage=review']);
      expect(stale.code).toBe(6);
      expect(stale.stderr).toContain(
        `key ${id} changed since ksctl fetched it: its mutable attributes are now stage=published (were stage=draft); nothing was changed`,
      );
      expect(stale.stderr).toContain(`\`ksctl keys fetch ${id}\` shows it as it is now`);
      expect(stale.stderr).toContain('--force');
      noStack(stale.stderr);
    } finally {
      keys.get = get;
    }
    const now = JSON.parse((await ok(['keys', 'fetch', id, '-o', 'json'])).stdout);
    expect(now[0].mutableAttributes).toEqual({ stage: ['published'] });
    await ok(['keys', 'modify', id, '--attr', 'stage=review', '--force']);
    const forced = JSON.parse((await ok(['keys', 'fetch', id, '-o', 'json'])).stdout);
    expect(forced[0].mutableAttributes).toEqual({ stage: ['review'] });
  });
});

describe('proving a profile', () => {
  it('profiles check creates a key and fetches it back', async () => {
    await enrollOne('box');
    const result = await ok(['profiles', 'check', 'box', '-o', 'json']);
    const shown = JSON.parse(result.stdout);
    expect(shown).toMatchObject({ name: 'box', ok: true, keyId: expect.stringMatching(/^ABcd/) });
    expect(result.stderr).toContain('profile "box" works');
    const listed = (await suite.mock.call('GET', '/_mock/keys')).body as { id: string }[];
    expect(listed.map((k) => k.id)).toEqual([shown.keyId]);
  });

  it('speaks v2.4 by default and v2.3 when asked; a key of one dialect is fetched in the other', async () => {
    await enrollOne('box');
    const v23 = await ok(['profiles', 'check', '--api-version', '2.3', '-o', 'json']);
    expect(JSON.parse(v23.stdout)).toMatchObject({ apiVersion: '2.3', ok: true });
    expect(v23.stderr).toContain('with v2.3');
    const created = await ok([
      'keys',
      'create',
      '--api-version',
      '2.3',
      '--attr',
      'a=1',
      '-o',
      'json',
    ]);
    const { id } = (JSON.parse(created.stdout) as { id: string }[])[0]!;
    const again = JSON.parse(
      (await ok(['keys', 'fetch', id, '--show-secrets', '-o', 'json'])).stdout,
    );
    const old = JSON.parse(
      (await ok(['keys', 'fetch', id, '--show-secrets', '--api-version', '2.3', '-o', 'json']))
        .stdout,
    );
    expect(again).toEqual(old);
    expect(again[0].attributes).toEqual({ a: ['1'] });
    const paths = (await suite.mock.journal()).map((r) => r.path);
    // check: create (4001), create, fetch; keys create: create, fetch; keys fetch: fetch.
    expect(paths.filter((p) => p.startsWith('/v2.3/keys/'))).toHaveLength(6);
    expect(paths.filter((p) => p.startsWith('/v2.4/keys/'))).toHaveLength(1);
  });

  it('names a profile without a name (as the vendor persistors write them) by its device id', async () => {
    await enrollOne('box');
    const set = await loadProfiles({ kind: 'plaintext', path: suite.profilesPath });
    delete set.profiles[0]!.name;
    await saveProfiles({ kind: 'plaintext', path: suite.profilesPath }, set);
    const deviceId = set.profiles[0]!.deviceId;
    const result = await ok(['profiles', 'check', deviceId, '-o', 'json']);
    expect(result.stderr).toContain(`profile ${deviceId} works`);
    expect(result.stderr).not.toContain('undefined');
    expect(JSON.parse(result.stdout)).toMatchObject({ name: null, deviceId, ok: true });
  });

  it.each([
    ['SEP.CD:KS', 'aesCdEiKey', /SEP\.CD:KS/],
    ['SEP.CD:IDC', 'aesCdIdcKey', /SEP\.CD:IDC/],
  ] as const)(
    'a profile with a wrong %s key fails with exit 4 and says so',
    async (_k, field, message) => {
      await enrollOne('box');
      const set = await loadProfiles({ kind: 'plaintext', path: suite.profilesPath });
      set.profiles[0]![field] = Buffer.alloc(32, 1);
      await saveProfiles({ kind: 'plaintext', path: suite.profilesPath }, set);
      const result = await cli(['profiles', 'check']);
      expect(result.code).toBe(4);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toContain('enroll again');
      noStack(result.stderr);
    },
  );

  it('a profile the service does not know (the mock was reset) fails with exit 4', async () => {
    await enrollOne('box');
    await suite.mock.reset();
    const result = await cli(['profiles', 'check']);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('the service knows no device with this id');
    // On a terminal of 80 columns, the device's long conversation id goes on a line of its own.
    const narrow = await cli(['profiles', 'check'], { tty: true, columns: 80 });
    expect(narrow.stderr).toMatch(/^conversation id:\n {2}CID\|ABcd\.1\.[^\n]+\|2\.4/m);
    for (const line of narrow.stderr.trimEnd().split('\n')) {
      expect(stringWidth(line)).toBeLessThanOrEqual(80);
    }
  });

  it('enroll --count verifies every new profile by default; --no-verify skips it', async () => {
    const verified = await ok(['enroll', '--count', '2', '--mock-user', 'alice']);
    expect(verified.stderr).toContain('verified 2: each created a key and fetched it back');
    expect(((await suite.mock.call('GET', '/_mock/keys')).body as unknown[]).length).toBe(2);
    const skipped = await ok(['enroll', '--count', '2', '--mock-user', 'alice', '--no-verify']);
    expect(skipped.stderr).not.toContain('verified 2');
    expect(((await suite.mock.call('GET', '/_mock/keys')).body as unknown[]).length).toBe(2);
  });

  it('enroll --verify checks a single device; a failed check says the profile was stored', async () => {
    const result = await ok(['enroll', '--mock-user', 'alice', '--verify']);
    expect(result.stderr).toMatch(/verified: created key ABcd\w+ with the new profile/);
    await suite.mock.setFaults([{ path: '/v2.4/keys/create', status: 500 }]);
    const failed = await cli(['enroll', '--count', '1', '--mock-user', 'alice']);
    expect(failed.code).toBe(7);
    expect(failed.stderr).toContain('the profile was stored, but the check failed');
    expect(
      (await loadProfiles({ kind: 'plaintext', path: suite.profilesPath })).profiles,
    ).toHaveLength(2);
  });
});

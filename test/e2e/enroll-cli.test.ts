/**
 * Enrollment with the real binary and the real RSA-3072 key generation, against a spawned
 * `ksctl mock serve`: the `mock` context it writes is all the configuration needed. The stored
 * file is then read the way the Ionic SDKs do (plaintext JSON, keys as hex) and through
 * `ksctl profiles`. Needs a build (`npm test` builds first).
 */
import { createDecipheriv, pbkdf2Sync } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tsvRows } from '../helpers/cli.js';
import { mockServeSuite } from '../helpers/spawn.js';

const suite = mockServeSuite();
const { ksctl } = suite;

describe('ksctl enroll against ksctl mock serve', () => {
  it('signs in to the portal, enrolls, and stores a profile the Ionic SDK readers accept', async () => {
    const result = await ksctl(
      ['--debug', 'enroll', '--username', 'alice', '--password-file', '-', '--name', 'qa-box'],
      {},
      'alice-password\n',
    );
    expect(result.stderr).toContain('enrolled ABcd.1');
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('alice-password');

    // Plaintext persistor: exactly the SDK's JSON shape, keys as 64 hex characters.
    const file = join(suite.home, '.ionicsecurity', 'profiles.pt');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, 'utf8'));
    expect(Object.keys(stored).sort()).toEqual(['activeDeviceId', 'profiles']);
    const [profile] = stored.profiles;
    expect(Object.keys(profile).sort()).toEqual([
      'aesCdEiKey',
      'aesCdIdcKey',
      'creationTimestamp',
      'deviceId',
      'name',
      'server',
    ]);
    expect(profile).toMatchObject({
      name: 'qa-box',
      server: suite.served.info.apiUrl,
      deviceId: stored.activeDeviceId,
      aesCdEiKey: expect.stringMatching(/^[0-9A-Fa-f]{64}$/),
      aesCdIdcKey: expect.stringMatching(/^[0-9A-Fa-f]{64}$/),
      creationTimestamp: expect.any(Number),
    });
    for (const key of [profile.aesCdEiKey, profile.aesCdIdcKey]) {
      expect(result.stderr.toLowerCase()).not.toContain(key.toLowerCase());
    }

    const listed = await ksctl(['profiles', 'list']);
    expect(tsvRows(listed.stdout).map((r) => r.slice(0, 3))).toEqual([
      ['*', 'qa-box', profile.deviceId],
    ]);
  });

  it('enrolls test devices in bulk into a password file that decrypts as the SDKs decrypt it', async () => {
    const path = join(suite.home, 'bulk.pw');
    const result = await ksctl(
      [
        'enroll',
        '--count',
        '2',
        '--concurrency',
        '2',
        '--mock-user',
        'alice',
        '--persistor-path',
        path,
      ],
      { KSCTL_PERSISTOR_PASSWORD: 'bulk-password' },
    );
    expect(result.stderr).toContain('enrolled 2 of 2 devices');
    expect(result.code).toBe(0);

    // Format 1.1: header, CRLF CRLF, then IV ‖ ciphertext ‖ tag under PBKDF2-SHA256(2000).
    const bytes = await readFile(path);
    const split = bytes.indexOf('\r\n\r\n');
    const header = JSON.parse(bytes.subarray(0, split).toString('utf8'));
    expect(header).toMatchObject({
      fileTypeId: 'ionic-device-profiles',
      format: 'password',
      version: '1.1',
    });
    const body = bytes.subarray(split + 4);
    const key = pbkdf2Sync(
      'bulk-password',
      Buffer.from(header.extra.salt, 'base64'),
      2000,
      32,
      'sha256',
    );
    const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, 16));
    decipher.setAAD(Buffer.from('Ionic Security Inc'));
    decipher.setAuthTag(body.subarray(body.length - 16));
    const inner = JSON.parse(
      Buffer.concat([
        decipher.update(body.subarray(16, body.length - 16)),
        decipher.final(),
      ]).toString('utf8'),
    );
    expect(inner.profiles.map((p: { name: string }) => p.name).sort()).toEqual([
      'test-device-1',
      'test-device-2',
    ]);
  });

  it('a replayed pair is exit 6 with the cause, the hint and the conversation id', async () => {
    const minted = await ksctl(['mock', 'tokens', '--user', 'alice', '-o', 'json']);
    const pair = JSON.parse(minted.stdout) as { stoken: string; uidauth: string };
    const env = { KSCTL_STOKEN: pair.stoken, KSCTL_UIDAUTH: pair.uidauth };
    expect(
      (await ksctl(['enroll', '--persistor-path', join(suite.home, 'replay.pt')], env)).code,
    ).toBe(0);
    const again = await ksctl(
      ['enroll', '--persistor-path', join(suite.home, 'replay.pt'), '--name', 'again'],
      env,
    );
    expect(again.code).toBe(6);
    expect(again.stderr).toMatch(
      /^error: this STOKEN and UIDAUTH pair has already enrolled a device; each pair enrolls once \(40902\)\nhint: .+\nconversation id: [0-9a-f-]{36}\n$/,
    );
  });

  // The key pairs take the longest (issue 26): their prime searches start before the network
  // chunk and the rest of enrollment load, which then load while the searches run, from few
  // files (each costs about a millisecond to read and compile: scripts/bundle.js).
  it.each([
    ['one device', ['--username', 'alice', '--password-file', '-'], 'alice-password\n', 6],
    ['--count 2', ['--count', '2', '--mock-user', 'alice'], undefined, 8],
  ])(
    '%s: the prime searches start before the network code loads',
    async (_, args, input, files) => {
      const preload = join(suite.home, 'first-search.cjs');
      const record = join(suite.home, `first-search-${args[0]}.json`);
      await writeFile(
        preload,
        `const crypto = require('node:crypto');
const checkPrime = crypto.checkPrime;
let first;
crypto.checkPrime = function (...args) {
  first ??= Object.keys(require.cache);
  return checkPrime.apply(this, args);
};
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ first, all: Object.keys(require.cache) })));\n`,
      );
      const persistor = join(suite.home, `early-${args[0]}.pt`);
      const result = await ksctl(
        ['enroll', ...args, '--persistor-path', persistor],
        { NODE_OPTIONS: `--require ${preload}` },
        input,
      );
      expect(result.code).toBe(0);
      const loaded = JSON.parse(await readFile(record, 'utf8')) as {
        first?: string[];
        all: string[];
      };
      const chunks = (list: string[] = []) =>
        list.filter((file) => /[\\/]dist[\\/]bundle[\\/]/.test(file)).map((file) => basename(file));
      expect(chunks(loaded.first)).toContain('main.cjs');
      expect(chunks(loaded.first).filter((file) => /^(net|enroll)/.test(file))).toEqual([]);
      expect(chunks(loaded.all).length).toBeLessThanOrEqual(files);
    },
  );
});

import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { AuthError, InputError, UsageError } from '../../src/common/errors.js';
import {
  decodeAesGcmFile,
  encodeAesGcmFile,
  parseAesGcmKeyHex,
} from '../../src/client/profiles/aesgcm-format.js';
import { decodeProfileFile, encodeProfileFile } from '../../src/client/profiles/codec.js';
import { defaultPersistorPath } from '../../src/client/profiles/default-paths.js';
import {
  decodePasswordFile,
  encodePasswordFile,
} from '../../src/client/profiles/password-format.js';
import {
  decodePlaintextFile,
  encodePlaintextFile,
} from '../../src/client/profiles/plaintext-format.js';
import type { Profile, ProfileSet } from '../../src/client/profiles/types.js';
import { testProfile } from '../helpers/profiles.js';
import {
  IONIC_SAMPLE_PT as PT_FIXTURE,
  IONIC_SAMPLE_PW as PW_FIXTURE,
} from '../helpers/fixtures.js';

const FIXTURE_ACTIVE = 'ABcd.4.9f521b6f-ac9e-48bc-a54a-2f1730288bf';

const profile = (index: number): Profile => testProfile(index);

const SET: ProfileSet = { activeDeviceId: profile(1).deviceId, profiles: [profile(0), profile(1)] };
const AES_KEY = randomBytes(32);
const ADATA = 'ksctl test adata';

function expectSameProfiles(actual: ProfileSet, expected: ProfileSet): void {
  expect(actual.activeDeviceId).toBe(expected.activeDeviceId);
  expect(actual.profiles).toEqual(expected.profiles);
}

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('published Ionic SDK sample files', () => {
  it('reads the plaintext fixture (upper-case key hex, pretty-printed)', async () => {
    const set = decodePlaintextFile(await readFile(PT_FIXTURE), PT_FIXTURE);
    expect(set.activeDeviceId).toBe(FIXTURE_ACTIVE);
    expect(set.profiles.map((p) => p.name)).toEqual(['ABcd-profile', 'EfGh-profile']);
    expect(set.profiles[0]?.aesCdEiKey.toString('hex')).toBe(
      '51b967286b50565894714770b09698b841927b93449998924823bb7615a969a5',
    );
    expect(set.profiles[0]?.creationTimestamp).toBe(1523640111);
  });

  it('reads the password 1.0 fixture with ionic123, and it holds the same profiles', async () => {
    const decoded = decodePasswordFile(await readFile(PW_FIXTURE), 'ionic123', PW_FIXTURE);
    expect(decoded.version).toBe('1.0');
    const plaintext = decodePlaintextFile(await readFile(PT_FIXTURE), PT_FIXTURE);
    expectSameProfiles(decoded.set, plaintext);
  });

  it('says the password is wrong, without echoing it', async () => {
    const bytes = await readFile(PW_FIXTURE);
    const error = thrown(() => decodePasswordFile(bytes, 'not-the-password', PW_FIXTURE));
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).message).toContain('password is wrong');
    expect((error as AuthError).message).toContain(PW_FIXTURE);
    expect((error as AuthError).message).not.toContain('not-the-password');
    expect((error as AuthError).hint).toBeTruthy();
  });
});

describe('plaintext format', () => {
  it('writes compact JSON, keys sorted, key hex in lower case', () => {
    const text = encodePlaintextFile(SET).toString('utf8');
    expect(text).not.toMatch(/\s/);
    expect(text.startsWith('{"activeDeviceId":')).toBe(true);
    const first = JSON.parse(text).profiles[0];
    expect(Object.keys(first)).toEqual([
      'aesCdEiKey',
      'aesCdIdcKey',
      'creationTimestamp',
      'deviceId',
      'name',
      'server',
    ]);
    expect(first.aesCdEiKey).toMatch(/^[0-9a-f]{64}$/);
  });

  it('round-trips', () => {
    expectSameProfiles(decodePlaintextFile(encodePlaintextFile(SET), 'x.pt'), SET);
  });

  it('rejects text that is not JSON, naming the file and not quoting it', () => {
    const error = thrown(() =>
      decodePlaintextFile(Buffer.from('{"profiles": [SECRETSTUFF'), '/tmp/bad.pt'),
    );
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toContain('/tmp/bad.pt');
    expect((error as Error).message).toContain('not JSON');
    expect((error as Error).message).not.toContain('SECRETSTUFF');
  });

  it('rejects a key that is not 32 bytes of hex, naming the field', () => {
    const document = JSON.parse(encodePlaintextFile(SET).toString('utf8'));
    document.profiles[1].aesCdIdcKey = 'abcd';
    const error = thrown(() =>
      decodePlaintextFile(Buffer.from(JSON.stringify(document)), 'short.pt'),
    ) as InputError;
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toContain('profiles[1].aesCdIdcKey');
    expect(error.details[0]?.path).toBe('profiles[1].aesCdIdcKey');
  });

  it('rejects a document without a profiles array', () => {
    expect(() => decodePlaintextFile(Buffer.from('{"activeDeviceId":""}'), 'x.pt')).toThrow(
      /profiles must be an array/,
    );
  });

  it('treats a missing activeDeviceId as none active, as the SDKs do', () => {
    const set = decodePlaintextFile(Buffer.from('{"profiles":[]}'), 'x.pt');
    expect(set).toEqual({ activeDeviceId: '', profiles: [] });
  });
});

describe('password format', () => {
  it('round-trips 1.1 (the default) and 1.0', () => {
    const v11 = encodePasswordFile(SET, 'secret-pass');
    const v10 = encodePasswordFile(SET, 'secret-pass', '1.0');
    expect(decodePasswordFile(v11, 'secret-pass', 'a.pw').version).toBe('1.1');
    expect(decodePasswordFile(v10, 'secret-pass', 'b.pw').version).toBe('1.0');
    expectSameProfiles(decodePasswordFile(v11, 'secret-pass', 'a.pw').set, SET);
    expectSameProfiles(decodePasswordFile(v10, 'secret-pass', 'b.pw').set, SET);
  });

  it('writes the 1.1 header the SDKs expect, with a fresh 32-byte salt each time', () => {
    const salts = [1, 2].map(() => {
      const bytes = encodePasswordFile(SET, 'secret-pass');
      const end = bytes.indexOf('\r\n\r\n');
      const header = bytes.subarray(0, end).toString('utf8');
      expect(header).toMatch(
        /^\{"extra":\{"salt":"[A-Za-z0-9+/]{43}="\},"fileTypeId":"ionic-device-profiles","format":"password","version":"1.1"\}$/,
      );
      const salt = JSON.parse(header).extra.salt as string;
      expect(Buffer.from(salt, 'base64')).toHaveLength(32);
      return salt;
    });
    expect(salts[0]).not.toBe(salts[1]);
  });

  it('writes 1.0 as IV || ciphertext || tag, with no header', () => {
    const bytes = encodePasswordFile(SET, 'secret-pass', '1.0');
    const json = encodePlaintextFile(SET);
    expect(bytes.length).toBe(16 + json.length + 16);
  });

  it('refuses passwords shorter than 6 characters, for writing and reading', () => {
    expect(() => encodePasswordFile(SET, '12345')).toThrow(InputError);
    const bytes = encodePasswordFile(SET, '123456');
    expect(() => decodePasswordFile(bytes, '12345', 'x.pw')).toThrow(InputError);
    expect(decodePasswordFile(bytes, '123456', 'x.pw').set.profiles).toHaveLength(2);
  });

  it('says AuthError for a wrong password on a 1.1 file', () => {
    const bytes = encodePasswordFile(SET, 'secret-pass');
    expect(() => decodePasswordFile(bytes, 'other-pass', 'x.pw')).toThrow(AuthError);
  });

  it('says a truncated file is too short rather than a wrong password', () => {
    const error = thrown(() => decodePasswordFile(Buffer.alloc(20), 'secret-pass', 'cut.pw'));
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(/cut\.pw.*too short/);
  });

  it('says "plaintext file" when a plaintext file is read as a password file', () => {
    const error = thrown(() =>
      decodePasswordFile(encodePlaintextFile(SET), 'secret-pass', 'profiles.pt'),
    );
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toContain('plaintext profile file');
  });

  it('rejects a 1.1 header for another format', () => {
    const bytes = encodePasswordFile(SET, 'secret-pass');
    const tampered = Buffer.from(
      bytes.toString('latin1').replace('"format":"password"', '"format":"aesgcm"'),
      'latin1',
    );
    expect(() => decodePasswordFile(tampered, 'secret-pass', 'x.pw')).toThrow(/format is "aesgcm"/);
  });

  it('does not mistake a 1.0 body containing CRLFCRLF for a header', () => {
    const bytes = encodePasswordFile(SET, 'secret-pass', '1.0');
    // A random IV may start with "{" and hold the delimiter; that alone must not make a header.
    const withDelimiter = Buffer.from(bytes);
    withDelimiter.write('{', 0, 'latin1');
    withDelimiter.write('\r\n\r\n', 4, 'latin1');
    const error = thrown(() => decodePasswordFile(withDelimiter, 'secret-pass', 'x.pw'));
    expect(error).toBeInstanceOf(AuthError); // treated as 1.0 whose IV changed, not as a header
  });
});

describe('aesgcm format', () => {
  it('round-trips with the caller key and additional data', () => {
    const bytes = encodeAesGcmFile(SET, AES_KEY, ADATA);
    expectSameProfiles(decodeAesGcmFile(bytes, AES_KEY, ADATA, 'x.aesgcm'), SET);
  });

  it('says AuthError for a wrong key and for wrong additional data', () => {
    const bytes = encodeAesGcmFile(SET, AES_KEY, ADATA);
    const wrongKey = thrown(() => decodeAesGcmFile(bytes, randomBytes(32), ADATA, 'x.aesgcm'));
    expect(wrongKey).toBeInstanceOf(AuthError);
    expect((wrongKey as Error).message).toContain('x.aesgcm');
    expect(() => decodeAesGcmFile(bytes, AES_KEY, 'other', 'x.aesgcm')).toThrow(AuthError);
  });

  it('parses a 64-hex key in either case and rejects anything else', () => {
    const hex = AES_KEY.toString('hex');
    expect(parseAesGcmKeyHex(hex.toUpperCase())).toEqual(AES_KEY);
    expect(parseAesGcmKeyHex(`${hex}\n`)).toEqual(AES_KEY);
    expect(() => parseAesGcmKeyHex(hex.slice(2))).toThrow(InputError);
    expect(() => parseAesGcmKeyHex(`${hex.slice(2)}zz`)).toThrow(InputError);
  });
});

describe('persistor specs', () => {
  it('encodes and decodes by kind', () => {
    for (const spec of [
      { kind: 'plaintext', path: 'a.pt' },
      { kind: 'password', path: 'a.pw', password: 'secret-pass' },
      { kind: 'aesgcm', path: 'a.aesgcm', aesgcmKey: AES_KEY, aesgcmAdata: ADATA },
    ] as const) {
      expectSameProfiles(decodeProfileFile(spec, encodeProfileFile(spec, SET)).set, SET);
    }
  });

  it('asks for a missing secret with a usage error', () => {
    expect(() => encodeProfileFile({ kind: 'password', path: 'a.pw' }, SET)).toThrow(UsageError);
    expect(() =>
      decodeProfileFile({ kind: 'aesgcm', path: 'a.aesgcm', aesgcmKey: AES_KEY }, Buffer.alloc(40)),
    ).toThrow(UsageError);
  });

  it('knows the Ionic tools default paths', () => {
    expect(defaultPersistorPath('plaintext', '/home/ann', 'linux')).toBe(
      '/home/ann/.ionicsecurity/profiles.pt',
    );
    expect(defaultPersistorPath('password', '/Users/ann', 'darwin')).toBe(
      '/Users/ann/.ionicsecurity/profiles.pw',
    );
    expect(defaultPersistorPath('aesgcm', '/home/ann', 'linux')).toBe(
      '/home/ann/.ionicsecurity/profiles.aesgcm',
    );
    expect(defaultPersistorPath('password', 'C:\\Users\\ann', 'win32')).toBe(
      'C:\\Users\\ann\\.ionicsecurity\\profiles.pw',
    );
  });
});

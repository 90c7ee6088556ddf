import { generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RegisterResponse } from '../../src/common/enrollment/wire.js';
import { decodeBase64Strict } from '../../src/common/encoding/base64.js';
import {
  aesCtrEncrypt,
  encodeSpkiBase64,
  oaepEncrypt,
  parseServerPublicKey,
} from '../../src/common/enrollment/crypto.js';
import {
  buildRegistration,
  type DeviceKeyPair,
  isKeyspace,
  keyspaceOfDeviceId,
  makeAuth,
  type RegistrationSession,
  recoverKeys,
} from '../../src/client/enroll/protocol.js';
import { generateDeviceKeyPair } from '../../src/client/enroll/device-keys.js';
import { openRegistration, sealResponse } from '../../src/mock/model/enrollment/service-side.js';
import { InputError, InternalError, ServiceError } from '../../src/common/errors.js';

const STOKEN = 'I.c2VjcmV0LXN0b2tlbg';
const UIDAUTH = ',IeyJ1aWQiOiJhbGljZSJ9.c2lnbmF0dXJl';
const CID = 'Basic 2f1c7a52-93c4-4d4e-9d8e-0a1b2c3d4e5f';

let server: { publicKey: KeyObject; privateKey: KeyObject };
let device: DeviceKeyPair;

let ticksDuringKeygen = 0;

/** Counts event-loop turns until the returned function is called, and returns the count. */
function countTicks(): () => number {
  let ticks = 0;
  let running = true;
  const tick = (): void => {
    ticks += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return () => {
    running = false;
    return ticks;
  };
}

beforeAll(async () => {
  const stop = countTicks();
  [server, device] = await Promise.all([generateDeviceKeyPair(), generateDeviceKeyPair()]);
  ticksDuringKeygen = stop();
});

function authText(auth: string): string {
  return Buffer.from(auth, 'base64').toString('utf8');
}

describe('makeAuth', () => {
  it('is Base64 of STOKEN followed by UIDAUTH', () => {
    expect(authText(makeAuth(STOKEN, UIDAUTH))).toBe(STOKEN + UIDAUTH);
  });

  it('sends exactly one comma whether UIDAUTH came with its comma or without', () => {
    expect(makeAuth(STOKEN, UIDAUTH.slice(1))).toBe(makeAuth(STOKEN, UIDAUTH));
    expect(authText(makeAuth(STOKEN, UIDAUTH.slice(1)))).toMatch(/^I\.[^,]+,I[^,]+$/);
  });

  it('ignores the trailing newline of a value read from a file', () => {
    expect(makeAuth(`${STOKEN}\n`, `${UIDAUTH}\r\n`)).toBe(makeAuth(STOKEN, UIDAUTH));
  });

  it.each([
    ['a STOKEN without I.', 'c2VjcmV0', UIDAUTH, /STOKEN must begin with "I\."/],
    ['a bare I. STOKEN', 'I.', UIDAUTH, /STOKEN must begin/],
    ['a STOKEN with a comma', `${STOKEN},x`, UIDAUTH, /STOKEN must not contain a comma/],
    ['a UIDAUTH without I', STOKEN, 'eyJ1aWQiOiJhbGljZSJ9', /UIDAUTH must begin with ",I"/],
    ['a UIDAUTH with two commas', STOKEN, `,${UIDAUTH}`, /UIDAUTH must begin/],
    ['an empty UIDAUTH', STOKEN, ',I', /UIDAUTH must begin/],
  ])('rejects %s with a hint, never echoing the values', (_label, stoken, uidauth, message) => {
    let caught: unknown;
    try {
      makeAuth(stoken, uidauth);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InputError);
    const error = caught as InputError;
    expect(error.message).toMatch(message);
    expect(error.hint).toContain('ksctl mock tokens --user NAME');
    for (const secret of ['c2VjcmV0', 'eyJ1aWQiOiJhbGljZSJ9']) {
      expect(error.message).not.toContain(secret);
      expect(error.hint).not.toContain(secret);
    }
  });
});

describe('keyspaces and device ids', () => {
  it('accepts 4 letters or digits only', () => {
    expect(['ABcd', '0a9Z'].map(isKeyspace)).toEqual([true, true]);
    expect(['ABc', 'ABcde', 'AB-d', 'ABć1', '', 1234].map(isKeyspace)).toEqual(
      Array(6).fill(false),
    );
  });

  it('reads the keyspace before the first dot of a device id', () => {
    expect(keyspaceOfDeviceId('ABcd.1.2f1c7a52-93c4-4d4e-9d8e-0a1b2c3d4e5f')).toBe('ABcd');
    expect(keyspaceOfDeviceId('ABcd')).toBeUndefined();
    expect(keyspaceOfDeviceId('.ABcd.1')).toBeUndefined();
    expect(keyspaceOfDeviceId('ABcde.1.x')).toBeUndefined();
  });
});

describe('parseServerPublicKey', () => {
  it('reads Base64 DER SPKI text wrapped in CR/LF lines', () => {
    const text = `${encodeSpkiBase64(server.publicKey).replace(/.{64}/g, '$&\r\n')}\r\n`;
    const key = parseServerPublicKey(text);
    expect(key.equals(server.publicKey)).toBe(true);
  });

  it.each([
    ['HTML', '<html>login</html>'],
    ['Base64 that is not a key', Buffer.from('hello').toString('base64')],
    ['an EC key', encodeSpkiBase64(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey)],
  ])('rejects %s as a service error', (_label, text) => {
    expect(() => parseServerPublicKey(text)).toThrow(ServiceError);
  });
});

describe('generateDeviceKeyPair', () => {
  it('makes RSA-3072 keys without blocking the event loop', () => {
    expect(device.publicKey.asymmetricKeyDetails?.modulusLength).toBe(3072);
    expect(device.privateKey.type).toBe('private');
    expect(ticksDuringKeygen).toBeGreaterThan(1);
  });
});

describe('buildRegistration', () => {
  const input = () => ({
    keyspace: 'ABcd',
    stoken: STOKEN,
    uidauth: UIDAUTH,
    serverPublicKey: server.publicKey,
  });

  it('forms {k, p, s, g} with the sizes of the contract', () => {
    const { request, session } = buildRegistration(input(), device);
    expect(request.k).toBe('ABcd');
    expect(decodeBase64Strict(request.s)?.length).toBe(384);
    expect(decodeBase64Strict(request.g)?.length).toBe(384);
    expect(decodeBase64Strict(request.p)?.length).toBeGreaterThan(16 + 400);
    expect(session.aesKey.length).toBe(32);
    expect(session.devicePrivateKey).toBe(device.privateKey);
  });

  it('takes the key server public key as fetched text too', () => {
    const { request } = buildRegistration(
      { ...input(), serverPublicKey: `${encodeSpkiBase64(server.publicKey)}\n` },
      device,
    );
    expect(openRegistration(request, 'ABcd', server.privateKey).ok).toBe(true);
  });

  it('uses a fresh AES key and IV every time', () => {
    const a = buildRegistration(input(), device);
    const b = buildRegistration(input(), device);
    expect(a.session.aesKey.equals(b.session.aesKey)).toBe(false);
    expect(a.request.p.slice(0, 22)).not.toBe(b.request.p.slice(0, 22));
  });

  it('opens on the service side with the same token pair', () => {
    const { request } = buildRegistration(input(), device);
    const opened = openRegistration(JSON.stringify(request), 'ABcd', server.privateKey);
    expect(opened).toMatchObject({ ok: true, stoken: STOKEN, uidauth: UIDAUTH });
    if (!opened.ok) return;
    expect(opened.devicePublicKey.equals(device.publicKey)).toBe(true);
    expect(opened.payload.TKRespPubKDERB64).toBe(encodeSpkiBase64(device.publicKey));
  });

  it('checks the keyspace and the tokens before any crypto', () => {
    expect(() => buildRegistration({ ...input(), keyspace: 'AB' }, device)).toThrow(InputError);
    expect(() => buildRegistration({ ...input(), stoken: 'x' }, device)).toThrow(InputError);
  });

  it('refuses a device key of another size', () => {
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
    expect(() => buildRegistration(input(), small)).toThrow(InternalError);
  });
});

describe('recoverKeys', () => {
  let session: RegistrationSession;
  let answer: RegisterResponse;
  const cdEi = randomBytes(32);
  const cdIdc = randomBytes(32);

  beforeAll(() => {
    const built = buildRegistration(
      { keyspace: 'ABcd', stoken: STOKEN, uidauth: UIDAUTH, serverPublicKey: server.publicKey },
      device,
    );
    session = built.session;
    const opened = openRegistration(built.request, 'ABcd', server.privateKey);
    if (!opened.ok) throw new Error(`registration did not open: ${opened.code}`);
    answer = sealResponse({
      deviceId: 'ABcd.1.2f1c7a52-93c4-4d4e-9d8e-0a1b2c3d4e5f',
      devicePublicKey: opened.devicePublicKey,
      aesKey: opened.aesKey,
      keys: { cdEi, cdIdc },
    });
  });

  it('gets back the keys the service sealed', () => {
    expect(recoverKeys(answer, session)).toEqual({
      deviceId: 'ABcd.1.2f1c7a52-93c4-4d4e-9d8e-0a1b2c3d4e5f',
      aesCdEiKey: cdEi,
      aesCdIdcKey: cdIdc,
    });
  });

  const sealedFor = (key: KeyObject, bytes: number) =>
    oaepEncrypt(key, randomBytes(bytes)).toString('base64');

  it.each<[string, (a: RegisterResponse) => unknown, RegExp]>([
    ['a non-object', () => 'ok', /not a JSON object/],
    ['an array', (a) => [a], /not a JSON object/],
    ['a missing deviceID', (a) => ({ ...a, deviceID: undefined }), /deviceID/],
    ['an empty deviceID', (a) => ({ ...a, deviceID: '' }), /deviceID/],
    ['a numeric SEPAESK', (a) => ({ ...a, SEPAESK: 42 }), /SEPAESK is missing or not a string/],
    ['a missing SEPAESK-IDC', (a) => ({ ...a, 'SEPAESK-IDC': undefined }), /SEPAESK-IDC is/],
    ['a SEPAESK that is not Base64', (a) => ({ ...a, SEPAESK: 'no way!' }), /SEPAESK is not/],
    [
      'a SEPAESK holding a 16-byte key',
      () => ({
        ...answer,
        SEPAESK: aesCtrEncrypt(session.aesKey, randomBytes(16)).toString('base64'),
      }),
      /SEPAESK does not hold/,
    ],
    ['a SEPAESK-IDC that is not Base64', (a) => ({ ...a, 'SEPAESK-IDC': '%%' }), /not Base64/],
    [
      'a SEPAESK-IDC for another key',
      (a) => ({ ...a, 'SEPAESK-IDC': sealedFor(server.publicKey, 32) }),
      /does not decrypt/,
    ],
    [
      'a SEPAESK-IDC holding a 16-byte key',
      (a) => ({ ...a, 'SEPAESK-IDC': sealedFor(device.publicKey, 16) }),
      /SEPAESK-IDC does not hold/,
    ],
  ])('reports %s as a malformed answer', (_label, damage, message) => {
    let caught: unknown;
    try {
      recoverKeys(damage(answer), session, CID);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ServiceError);
    const error = caught as ServiceError;
    expect(error.message).toMatch(/^the enrollment service's answer was malformed: /);
    expect(error.message).toMatch(message);
    expect(error.conversationId).toBe(CID);
    expect(error.message).not.toContain(session.aesKey.toString('base64'));
  });
});

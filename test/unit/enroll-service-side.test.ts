import { generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RegisterRequest } from '../../src/common/enrollment/wire.js';
import { makeAuth } from '../../src/common/enrollment/auth.js';
import {
  aesCtrEncrypt,
  encodeSpkiBase64,
  oaepEncrypt,
  signPackage,
} from '../../src/common/enrollment/crypto.js';
import { generateDeviceKeyPair } from '../../src/client/enroll/device-keys.js';
import {
  openRegistration,
  validateConversationId,
} from '../../src/mock/model/enrollment/service-side.js';

const STOKEN = 'I.c2VjcmV0LXN0b2tlbg';
const UIDAUTH = ',IeyJ1aWQiOiJhbGljZSJ9.c2lnbmF0dXJl';
const KEYSPACE = 'ABcd';

let server: { publicKey: KeyObject; privateKey: KeyObject };
let device: { publicKey: KeyObject; privateKey: KeyObject };
let other: { publicKey: KeyObject; privateKey: KeyObject };

beforeAll(async () => {
  [server, device] = await Promise.all([generateDeviceKeyPair(), generateDeviceKeyPair()]);
  other = generateKeyPairSync('rsa', { modulusLength: 2048 });
});

interface Craft {
  /** Members of the encrypted payload; `payloadText` wins when given. */
  members?: Record<string, unknown>;
  payloadText?: string;
  /** The key `s` carries; the payload is encrypted with `aesKey` regardless. */
  sealedKey?: Buffer;
  aesKey?: Buffer;
  signer?: KeyObject;
  k?: string;
}

/** A register request built step by step, so each step can be got wrong on purpose. */
function craft(options: Craft = {}): RegisterRequest {
  const aesKey = options.aesKey ?? randomBytes(32);
  const members = options.members ?? {
    TKRespPubKDERB64: encodeSpkiBase64(device.publicKey),
    AUTH: makeAuth(STOKEN, UIDAUTH),
  };
  const payload = Buffer.from(options.payloadText ?? JSON.stringify(members), 'utf8');
  const p = aesCtrEncrypt(aesKey, payload).toString('base64');
  return {
    k: options.k ?? KEYSPACE,
    p,
    s: oaepEncrypt(server.publicKey, options.sealedKey ?? aesKey).toString('base64'),
    g: signPackage(options.signer ?? device.privateKey, p).toString('base64'),
  };
}

function open(body: unknown, pathKeyspace = KEYSPACE) {
  return openRegistration(body, pathKeyspace, server.privateKey);
}

function codeOf(body: unknown, pathKeyspace = KEYSPACE): number | 'ok' {
  const result = open(body, pathKeyspace);
  return result.ok ? 'ok' : result.code;
}

const authOf = (token: string) => Buffer.from(token, 'utf8').toString('base64');
const devicePub = () => encodeSpkiBase64(device.publicKey);
const b64 = (bytes: number) => randomBytes(bytes).toString('base64');

describe('openRegistration', () => {
  it('opens a good request given as raw text, bytes or parsed JSON', () => {
    const request = craft();
    for (const body of [JSON.stringify(request), Buffer.from(JSON.stringify(request)), request]) {
      const result = open(body);
      expect(result).toMatchObject({ ok: true, stoken: STOKEN, uidauth: UIDAUTH });
      if (!result.ok) continue;
      expect(result.devicePublicKey.equals(device.publicKey)).toBe(true);
      expect(result.payload).toEqual({
        TKRespPubKDERB64: devicePub(),
        AUTH: makeAuth(STOKEN, UIDAUTH),
      });
      expect(result.aesKey.length).toBe(32);
    }
  });

  it('accepts the payload member spelled tkRespPubKDERB64', () => {
    const result = open(
      craft({ members: { tkRespPubKDERB64: devicePub(), AUTH: makeAuth(STOKEN, UIDAUTH) } }),
    );
    expect(result.ok && result.payload.TKRespPubKDERB64).toBe(devicePub());
  });

  it('accepts two commas between STOKEN and UIDAUTH and hands back one', () => {
    const auth = authOf(`${STOKEN},${UIDAUTH}`);
    const result = open(craft({ members: { TKRespPubKDERB64: devicePub(), AUTH: auth } }));
    expect(result).toMatchObject({ ok: true, stoken: STOKEN, uidauth: UIDAUTH });
  });

  describe('40001: the body is not a request', () => {
    it.each<[string, () => unknown]>([
      ['text that is not JSON', () => '{"k": '],
      ['bytes that are not UTF-8', () => Buffer.from([0x7b, 0xff, 0x7d])],
      ['a JSON array', () => JSON.stringify([craft()])],
      ['JSON null', () => 'null'],
      ['a parsed number', () => 42],
      ['a missing g', () => ({ ...craft(), g: undefined })],
      ['a numeric p', () => ({ ...craft(), p: 12 })],
      ['a null k', () => JSON.stringify({ ...craft(), k: null })],
    ])('%s', (_label, body) => {
      expect(codeOf(body())).toBe(40001);
    });
  });

  it.each([
    ['k of 3 characters', 'ABc', KEYSPACE],
    ['k with a dash', 'AB-d', KEYSPACE],
    ['k for another keyspace', 'XYzw', KEYSPACE],
    ['k differing in case', 'abcd', KEYSPACE],
    ['a malformed path keyspace', 'ABcd!', 'ABcd!'],
  ])('40004: %s', (_label, k, path) => {
    expect(codeOf(craft({ k }), path)).toBe(40004);
  });

  it.each([
    ['41703', 's not Base64', { s: 'not base64!' }, 41703],
    ['41703', 's with a line break', { s: `${b64(192)}\n${b64(192)}` }, 41703],
    ['41704', 'p not Base64', { p: '@@@@' }, 41704],
    ['41704', 'p of only an IV', { p: b64(16) }, 41704],
    ['41706', 'g not Base64', { g: 'abc' }, 41706],
    ['40007', 'g of 256 bytes', { g: b64(256) }, 40007],
    ['40007', 'g empty', { g: '' }, 40007],
    ['40102', 's that is not OAEP for the server key', { s: b64(384) }, 40102],
  ])('%s: %s', (_code, _label, damage, code) => {
    expect(codeOf({ ...craft(), ...damage })).toBe(code);
  });

  it('40102: s holding a 16-byte key', () => {
    expect(codeOf(craft({ sealedKey: randomBytes(16) }))).toBe(40102);
  });

  it('40104: p encrypted with another key than s carries', () => {
    expect(codeOf(craft({ sealedKey: randomBytes(32) }))).toBe(40104);
  });

  it.each([
    ['not JSON', 'TKRespPubKDERB64'],
    ['a JSON array', '[]'],
    ['a JSON string', '"AUTH"'],
  ])('40104: a payload that is %s', (_label, payloadText) => {
    expect(codeOf(craft({ payloadText }))).toBe(40104);
  });

  it.each<[string, () => Record<string, unknown>]>([
    ['missing', () => ({})],
    ['not a string', () => ({ TKRespPubKDERB64: 7 })],
    ['not Base64', () => ({ TKRespPubKDERB64: '-_-_' })],
    ['not a key', () => ({ TKRespPubKDERB64: b64(300) })],
    ['a 2048-bit key', () => ({ TKRespPubKDERB64: encodeSpkiBase64(other.publicKey) })],
    [
      'an EC key',
      () => ({
        TKRespPubKDERB64: encodeSpkiBase64(
          generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey,
        ),
      }),
    ],
  ])('40002: TKRespPubKDERB64 %s', (_label, members) => {
    expect(codeOf(craft({ members: { ...members(), AUTH: makeAuth(STOKEN, UIDAUTH) } }))).toBe(
      40002,
    );
  });

  // Any other RSA-3072 key serves as the stranger's; the server's saves a key generation.
  it('40103: g signed with another key than the payload names', () => {
    expect(codeOf(craft({ signer: server.privateKey }))).toBe(40103);
  });

  it('40103: g signed over another p', () => {
    const request = craft();
    expect(codeOf({ ...request, g: craft().g })).toBe(40103);
  });

  it.each<[string, unknown]>([
    ['AUTH missing', undefined],
    ['AUTH not a string', 12],
    ['AUTH not Base64', 'I.abc,Idef'],
    ['AUTH without a comma', authOf('I.abcIdef')],
    ['AUTH without the I. prefix', authOf('X.abc,Idef')],
    ['AUTH with an empty STOKEN', authOf('I.,Idef')],
    ['AUTH with an empty UIDAUTH', authOf('I.abc,I')],
    ['AUTH with three commas', authOf('I.abc,,,Idef')],
    ['AUTH that is not UTF-8', Buffer.from([0x49, 0x2e, 0xff, 0x2c, 0x49]).toString('base64')],
  ])('40008: %s', (_label, auth) => {
    const members = { TKRespPubKDERB64: devicePub(), AUTH: auth };
    expect(codeOf(craft({ members }))).toBe(40008);
  });

  describe('checks in order', () => {
    it('reads the keyspace before decoding anything', () => {
      expect(codeOf({ ...craft({ k: 'XYzw' }), s: '!', p: '!', g: '!' })).toBe(40004);
    });

    it('decodes s, p and g before any private-key step', () => {
      expect(codeOf({ ...craft({ sealedKey: randomBytes(8) }), g: b64(10) })).toBe(40007);
      expect(codeOf({ ...craft(), s: b64(384), p: '!' })).toBe(41704);
    });

    it('verifies the signature before reading AUTH', () => {
      const members = { TKRespPubKDERB64: devicePub(), AUTH: 'garbage' };
      expect(codeOf(craft({ members, signer: server.privateKey }))).toBe(40103);
    });
  });
});

describe('validateConversationId', () => {
  const uuid = '2f1c7a52-93c4-4d4e-9d8e-0a1b2c3d4e5f';

  it.each([`Basic ${uuid}`, uuid, uuid.toUpperCase()])('accepts %s and echoes it', (header) => {
    expect(validateConversationId(header)).toEqual({ ok: true, conversationId: header });
  });

  it.each<[string, string | string[] | undefined]>([
    ['an absent header', undefined],
    ['an empty header', ''],
    ['another scheme', `Bearer ${uuid}`],
    ['a lowercase scheme without the space', `basic${uuid}`],
    ['a truncated uuid', `Basic ${uuid.slice(1)}`],
    ['text', 'Basic hello'],
    ['a repeated header', [uuid, uuid]],
  ])('rejects %s with 40009', (_label, header) => {
    expect(validateConversationId(header)).toEqual({ ok: false, code: 40009 });
  });
});

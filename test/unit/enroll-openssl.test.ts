/**
 * Cross-checks the enrollment crypto against the `openssl` command, an independent
 * implementation: what ksctl sends, openssl can open; what openssl seals, ksctl can open.
 */
import { execFile } from 'node:child_process';
import { createPrivateKey, type KeyObject, privateDecrypt, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisterRequest } from '../../src/common/enrollment/wire.js';
import { encodeSpkiBase64, parseServerPublicKey } from '../../src/common/enrollment/crypto.js';
import {
  buildRegistration,
  type DeviceKeyPair,
  makeAuth,
  type RegistrationSession,
  recoverKeys,
} from '../../src/client/enroll/protocol.js';
import { generateDeviceKeyPair } from '../../src/client/enroll/device-keys.js';
import { openRegistration, sealResponse } from '../../src/mock/model/enrollment/service-side.js';
import { loadKeyServerKey } from '../../src/mock/model/enrollment/key-server-key.js';
import { requireProgram } from '../helpers/programs.js';

const run = promisify(execFile);
const STOKEN = 'I.c2VjcmV0LXN0b2tlbg';
const UIDAUTH = ',IeyJ1aWQiOiJhbGljZSJ9.c2lnbmF0dXJl';
const OAEP_SHA1 = ['-pkeyopt', 'rsa_padding_mode:oaep', '-pkeyopt', 'rsa_oaep_md:sha1'];
const PSS_32 = ['-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:32'];

let dir: string;
let serverPrivateKey: KeyObject;
let device: DeviceKeyPair;

async function openssl(...args: string[]): Promise<string> {
  const { stdout } = await run('openssl', args, { cwd: dir });
  return stdout;
}

const inDir = (name: string) => join(dir, name);
const write = (name: string, data: Buffer | string) => writeFile(inDir(name), data);
const read = (name: string) => readFile(inDir(name));

const hasOpenssl = requireProgram('openssl', 'apt-get install openssl');

beforeAll(async () => {
  if (!hasOpenssl) return;
  dir = await mkdtemp(join(tmpdir(), 'ksctl-enroll-openssl-'));
  // The key server key comes from openssl, the device key from ksctl: each side reads the other's.
  const [, deviceKeys] = await Promise.all([
    openssl(
      'genpkey',
      '-algorithm',
      'RSA',
      '-pkeyopt',
      'rsa_keygen_bits:3072',
      '-out',
      'server.pem',
    ),
    generateDeviceKeyPair(),
  ]);
  device = deviceKeys;
  serverPrivateKey = createPrivateKey(await read('server.pem'));
  await write('device.pem', device.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  await write('devpub.pem', device.publicKey.export({ type: 'spki', format: 'pem' }));
});

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('the device key ksctl generates', () => {
  it("passes openssl's RSA key check (primes, modulus, exponents and CRT values agree)", async () => {
    const checked = await run('openssl', ['pkey', '-in', 'device.pem', '-check', '-noout'], {
      cwd: dir,
    });
    expect(`${checked.stdout}${checked.stderr}`).toMatch(/key is valid|key ok/i);
    const text = await openssl('pkey', '-in', 'device.pem', '-text', '-noout');
    expect(text).toContain('Private-Key: (3072 bit, 2 primes)');
    expect(text).toContain('publicExponent: 65537 (0x10001)');
  });

  it("and the mock's key server key, of three primes, pass openssl's checks too", async () => {
    const key = await loadKeyServerKey();
    await write('ks.pem', key.export({ type: 'pkcs8', format: 'pem' }));
    const checked = await run('openssl', ['pkey', '-in', 'ks.pem', '-check', '-noout'], {
      cwd: dir,
    });
    expect(`${checked.stdout}${checked.stderr}`).toMatch(/key is valid|key ok/i);
    expect(await openssl('pkey', '-in', 'ks.pem', '-text', '-noout')).toContain(
      'Private-Key: (3072 bit, 3 primes)',
    );
    // What openssl seals with the public half, ksctl opens with the private one.
    await openssl('pkey', '-in', 'ks.pem', '-pubout', '-out', 'ks-pub.pem');
    await write('k.bin', Buffer.alloc(32, 7));
    await openssl(
      'pkeyutl',
      '-encrypt',
      '-pubin',
      '-inkey',
      'ks-pub.pem',
      ...OAEP_SHA1,
      '-in',
      'k.bin',
      '-out',
      'k.ct',
    );
    expect(privateDecrypt({ key, oaepHash: 'sha1' }, await read('k.ct'))).toEqual(
      Buffer.alloc(32, 7),
    );
  });
});

describe('a request built by ksctl, opened by openssl', () => {
  let request: RegisterRequest;
  let session: RegistrationSession;

  beforeAll(async () => {
    if (!hasOpenssl) return;
    await openssl('pkey', '-in', 'server.pem', '-pubout', '-outform', 'DER', '-out', 'server.der');
    // As the key server serves it: Base64 text, here in 64-character CRLF lines.
    const served = (await read('server.der')).toString('base64').replace(/.{64}/g, '$&\r\n');
    const serverPublicKey = parseServerPublicKey(served);
    ({ request, session } = buildRegistration(
      { keyspace: 'ABcd', stoken: STOKEN, uidauth: UIDAUTH.slice(1), serverPublicKey },
      device,
    ));
  });

  it('s decrypts with the key server private key (OAEP, SHA-1) to K', async () => {
    await write('s.bin', Buffer.from(request.s, 'base64'));
    await openssl(
      'pkeyutl',
      '-decrypt',
      '-inkey',
      'server.pem',
      ...OAEP_SHA1,
      '-in',
      's.bin',
      '-out',
      'k.bin',
    );
    expect((await read('k.bin')).equals(session.aesKey)).toBe(true);
  });

  it('p decrypts with K and its IV (AES-256-CTR) to the payload JSON', async () => {
    const sealed = Buffer.from(request.p, 'base64');
    await write('p.ct', sealed.subarray(16));
    const key = session.aesKey.toString('hex');
    const iv = sealed.subarray(0, 16).toString('hex');
    await openssl(
      'enc',
      '-d',
      '-aes-256-ctr',
      '-K',
      key,
      '-iv',
      iv,
      '-in',
      'p.ct',
      '-out',
      'p.json',
    );
    const payload = JSON.parse((await read('p.json')).toString('utf8'));
    expect(Object.keys(payload)).toEqual(['TKRespPubKDERB64', 'AUTH']);
    expect(Buffer.from(payload.AUTH, 'base64').toString('utf8')).toBe(STOKEN + UIDAUTH);

    await openssl('pkey', '-pubin', '-in', 'devpub.pem', '-outform', 'DER', '-out', 'devpub.der');
    expect(payload.TKRespPubKDERB64).toBe((await read('devpub.der')).toString('base64'));
  });

  it('g verifies over the ASCII text of p (PSS, SHA-256, salt 32)', async () => {
    await write('p.txt', request.p);
    await write('g.bin', Buffer.from(request.g, 'base64'));
    const verify = ['dgst', '-sha256', ...PSS_32, '-verify', 'devpub.pem', '-signature', 'g.bin'];
    expect(await openssl(...verify, 'p.txt')).toContain('Verified OK');

    await write('p-other.txt', `${request.p.slice(0, -4)}AAAA`);
    await expect(openssl(...verify, 'p-other.txt')).rejects.toThrow();
  });
});

describe('a request built by openssl, opened by ksctl', () => {
  it('opens, with the signature, session key and payload all made by openssl', async () => {
    const aesKey = randomBytes(32);
    const iv = randomBytes(16);
    const payload = {
      TKRespPubKDERB64: encodeSpkiBase64(device.publicKey),
      AUTH: makeAuth(STOKEN, UIDAUTH),
    };
    await write('o.json', JSON.stringify(payload));
    await write('o-k.bin', aesKey);
    await openssl(
      'enc',
      '-aes-256-ctr',
      '-K',
      aesKey.toString('hex'),
      '-iv',
      iv.toString('hex'),
      '-in',
      'o.json',
      '-out',
      'o.ct',
    );
    const p = Buffer.concat([iv, await read('o.ct')]).toString('base64');
    await write('o-p.txt', p);
    await openssl('pkey', '-in', 'server.pem', '-pubout', '-out', 'server-pub.pem');
    await openssl(
      'pkeyutl',
      '-encrypt',
      '-pubin',
      '-inkey',
      'server-pub.pem',
      ...OAEP_SHA1,
      '-in',
      'o-k.bin',
      '-out',
      'o-s.bin',
    );
    await openssl(
      'dgst',
      '-sha256',
      ...PSS_32,
      '-sign',
      'device.pem',
      '-out',
      'o-g.bin',
      'o-p.txt',
    );

    const request = {
      k: 'ABcd',
      p,
      s: (await read('o-s.bin')).toString('base64'),
      g: (await read('o-g.bin')).toString('base64'),
    };
    const opened = openRegistration(JSON.stringify(request), 'ABcd', serverPrivateKey);
    expect(opened).toMatchObject({ ok: true, stoken: STOKEN, uidauth: UIDAUTH });
    expect(opened.ok && opened.aesKey.equals(aesKey)).toBe(true);
  });
});

describe('an answer sealed by openssl, recovered by ksctl', () => {
  it('recoverKeys gets back SEP.CD:KS and SEP.CD:IDC', async () => {
    const session: RegistrationSession = {
      aesKey: randomBytes(32),
      devicePrivateKey: device.privateKey,
    };
    const cdEi = randomBytes(32);
    const cdIdc = randomBytes(32);
    const iv = randomBytes(16);
    await write('cdei.bin', cdEi);
    await write('cdidc.bin', cdIdc);
    await openssl(
      'enc',
      '-aes-256-ctr',
      '-K',
      session.aesKey.toString('hex'),
      '-iv',
      iv.toString('hex'),
      '-in',
      'cdei.bin',
      '-out',
      'cdei.ct',
    );
    await openssl(
      'pkeyutl',
      '-encrypt',
      '-pubin',
      '-inkey',
      'devpub.pem',
      ...OAEP_SHA1,
      '-in',
      'cdidc.bin',
      '-out',
      'cdidc.ct',
    );

    const answer = {
      deviceID: 'ABcd.1.2f1c7a52-93c4-4d4e-9d8e-0a1b2c3d4e5f',
      SEPAESK: Buffer.concat([iv, await read('cdei.ct')]).toString('base64'),
      'SEPAESK-IDC': (await read('cdidc.ct')).toString('base64'),
    };
    const keys = recoverKeys(answer, session);
    expect(keys.aesCdEiKey.equals(cdEi)).toBe(true);
    expect(keys.aesCdIdcKey.equals(cdIdc)).toBe(true);
  });
});

describe('an answer sealed by ksctl, opened by openssl', () => {
  it('SEPAESK and SEPAESK-IDC decrypt to the keys sealed', async () => {
    const aesKey = randomBytes(32);
    const cdEi = randomBytes(32);
    const cdIdc = randomBytes(32);
    const answer = sealResponse({
      deviceId: 'ABcd.1.2f1c7a52-93c4-4d4e-9d8e-0a1b2c3d4e5f',
      devicePublicKey: device.publicKey,
      aesKey,
      keys: { cdEi, cdIdc },
    });

    const sepAesK = Buffer.from(answer.SEPAESK, 'base64');
    expect(sepAesK.length).toBe(48);
    await write('sep.ct', sepAesK.subarray(16));
    await openssl(
      'enc',
      '-d',
      '-aes-256-ctr',
      '-K',
      aesKey.toString('hex'),
      '-iv',
      sepAesK.subarray(0, 16).toString('hex'),
      '-in',
      'sep.ct',
      '-out',
      'sep.bin',
    );
    expect((await read('sep.bin')).equals(cdEi)).toBe(true);

    await write('idc.ct', Buffer.from(answer['SEPAESK-IDC'], 'base64'));
    await openssl(
      'pkeyutl',
      '-decrypt',
      '-inkey',
      'device.pem',
      ...OAEP_SHA1,
      '-in',
      'idc.ct',
      '-out',
      'idc.bin',
    );
    expect((await read('idc.bin')).equals(cdIdc)).toBe(true);
  });
});

/**
 * Shared by the mock-enroll integration tests: RSA-3072 keys generated once per test file (each
 * takes seconds here), a mock started with the pre-generated key server key, and small HTTP and
 * request-crafting helpers.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { RegisterRequest, TokenPair } from '../../src/common/enrollment/wire.js';
import { makeAuth } from '../../src/common/enrollment/auth.js';
import {
  aesCtrEncrypt,
  encodeSpkiBase64,
  oaepEncrypt,
  signPackage,
} from '../../src/common/enrollment/crypto.js';
import type { DeviceKeyPair } from '../../src/client/enroll/protocol.js';
import { deviceKeySource, generateDeviceKeyPair } from '../../src/client/enroll/device-keys.js';
import type { MockServer } from '../../src/mock/server/server.js';
import { type MockServerOptions } from '../../src/mock/server/server.js';
import { afterAll, beforeAll } from 'vitest';
import { DEV_TOKEN, startCheckedServer, type TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';
import { started } from '../helpers/suite.js';

let keys: Promise<{ server: DeviceKeyPair; device: DeviceKeyPair }> | undefined;

/** The key server's and one device's key pairs; a device key may enroll many times. */
export function testKeys(): Promise<{ server: DeviceKeyPair; device: DeviceKeyPair }> {
  keys ??= Promise.all([generateDeviceKeyPair(), generateDeviceKeyPair()]).then(
    ([server, device]) => ({ server, device }),
  );
  return keys;
}

/**
 * The hooks of a suite that enrolls through the CLI: every device gets the one test device key
 * (no RSA-3072 generation per enrollment), a test mock runs with the matching key server key,
 * and it is reset before each test, which also gets a fresh directory. The returned object's
 * fields are set once the suite starts.
 */
export function enrollingSuite(): {
  readonly mock: TestMock;
  readonly device: DeviceKeyPair;
  /** This test's own directory (config dir and home), removed after the suite. */
  readonly dir: string;
  /** This test's profile file: profiles.pt in its directory. */
  readonly profilesPath: string;
  /** The environment of `ksctl enroll` against this mock: a throwaway config dir and home. */
  env(dir?: string, persistorPath?: string): Record<string, string>;
  /** The same, with the mock's markings API and dev token, for the commands beyond enroll. */
  markingsEnv(): Record<string, string>;
} {
  let device: DeviceKeyPair | undefined;
  const original = { ...deviceKeySource };
  beforeAll(async () => {
    const keys = await testKeys();
    device = keys.device;
    deviceKeySource.generate = async () => keys.device;
    deviceKeySource.supply = () => ({ take: async () => keys.device, stop: () => undefined });
  });
  afterAll(() => {
    Object.assign(deviceKeySource, original);
  });
  const suite = mockSuite(async () => ({
    keyServerKey: (await testKeys()).server.privateKey,
    dirPerTest: true,
  }));
  return {
    get mock() {
      return suite.mock;
    },
    get device() {
      return started(device);
    },
    get dir() {
      return suite.configDir;
    },
    get profilesPath() {
      return join(suite.configDir, 'profiles.pt');
    },
    env(envDir?: string, persistorPath?: string) {
      return {
        KSCTL_CONFIG_DIR: envDir ?? this.dir,
        KSCTL_HOME: envDir ?? this.dir,
        KSCTL_KEYSPACE: 'ABcd',
        KSCTL_API_URL: this.mock.info.apiUrl,
        KSCTL_ENROLLMENT_URL: this.mock.info.enrollmentUrl,
        KSCTL_PERSISTOR_PATH: persistorPath ?? this.profilesPath,
      };
    },
    markingsEnv() {
      return { ...this.env(), KSCTL_BASE_URL: this.mock.baseUrl, KSCTL_TOKEN: DEV_TOKEN };
    },
  };
}

export async function startMock(options: MockServerOptions = {}): Promise<MockServer> {
  const { server } = await testKeys();
  return startCheckedServer({ port: 0, keyServerKey: server.privateKey, ...options });
}

export interface Answer {
  status: number;
  /** The reason phrase as sent. */
  reason: string;
  headers: Headers;
  text: string;
  body: unknown;
}

export interface CallOptions {
  json?: unknown;
  /** Sent as is (for bodies that are not JSON). */
  raw?: string;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  /** Adds the dev token. */
  admin?: boolean;
}

export async function call(
  mock: MockServer,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  } else if (options.form !== undefined) {
    body = new URLSearchParams(options.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else if (options.raw !== undefined) body = options.raw;
  if (options.admin) headers.authorization = `Bearer ${mock.info.token}`;
  const url = path.startsWith('http') ? path : `${mock.info.url}${path}`;
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return {
    status: response.status,
    reason: response.statusText,
    headers: response.headers,
    text,
    body: parsed,
  };
}

export const newCid = () => `Basic ${randomUUID()}`;

/** POST /v2.3/register/{keyspace} with a fresh conversation id unless one is given. */
export function register(
  mock: MockServer,
  body: RegisterRequest | string,
  options: { keyspace?: string; cid?: string | null } = {},
): Promise<Answer> {
  const cid = options.cid === undefined ? newCid() : options.cid;
  return call(mock, 'POST', `/v2.3/register/${options.keyspace ?? 'ABcd'}`, {
    ...(typeof body === 'string' ? { raw: body } : { json: body }),
    headers: cid === null ? {} : { 'x-conversation-id': cid },
  });
}

export async function mintTokens(
  mock: MockServer,
  request: { user?: string; keyspace?: string; ttlSeconds?: number; omitUid?: boolean },
): Promise<TokenPair> {
  const answer = await call(mock, 'POST', '/_mock/tokens', { json: request, admin: true });
  if (answer.status !== 200) throw new Error(`minting tokens failed: ${answer.text}`);
  return answer.body as TokenPair;
}

export interface Craft {
  tokens?: TokenPair;
  /** Members of the encrypted payload; replace the default ones. */
  members?: Record<string, unknown>;
  /** The key `s` carries; the payload is encrypted with the real one regardless. */
  sealedKey?: Buffer;
  /** Sign this text instead of `p`. */
  signedText?: string;
  k?: string;
}

/** A register request built step by step, so that any one step can be got wrong on purpose. */
export async function craft(options: Craft = {}): Promise<RegisterRequest> {
  const { server, device } = await testKeys();
  const aesKey = randomBytes(32);
  const tokens = options.tokens ?? { stoken: 'I.c3Rva2Vu', uidauth: ',Ibm90LXNpZ25lZA.c2ln' };
  const members = options.members ?? {
    TKRespPubKDERB64: encodeSpkiBase64(device.publicKey),
    AUTH: makeAuth(tokens.stoken, tokens.uidauth),
  };
  const p = aesCtrEncrypt(aesKey, Buffer.from(JSON.stringify(members), 'utf8')).toString('base64');
  return {
    k: options.k ?? 'ABcd',
    p,
    s: oaepEncrypt(server.publicKey, options.sealedKey ?? aesKey).toString('base64'),
    g: signPackage(device.privateKey, options.signedText ?? p).toString('base64'),
  };
}

/**
 * The mock's enrollment side over real HTTP, driven the way ksctl and QA use it: key naming
 * lookup, portal sign-in (password and e-mail), key server public key, registration with the
 * client-side protocol, and the admin endpoints.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type KnsAnswer,
  PORTAL_HEADERS,
  type TokenPair,
} from '../../src/common/enrollment/wire.js';
import { CauseCode } from '../../src/common/enrollment/causes.js';
import { encodeSpkiBase64 } from '../../src/common/enrollment/crypto.js';
import { buildRegistration, recoverKeys } from '../../src/client/enroll/protocol.js';
import type { OutboxMessage } from '../../src/mock/model/enrollment/store.js';
import { MockServer } from '../../src/mock/server/server.js';
import {
  type Answer,
  call,
  craft,
  mintTokens,
  newCid,
  register,
  startMock,
  testKeys,
} from './mock-enroll-fixtures.js';
import { startCheckedServer } from '../helpers/mock.js';

let mock: MockServer;

beforeAll(async () => {
  mock = await startMock();
});

afterAll(() => mock?.close());

const codeOf = (answer: Answer) => (answer.body as { error?: { code?: number } }).error?.code;

async function enroll(server: MockServer, tokens: TokenPair, cid = newCid()) {
  const { device } = await testKeys();
  const publicKey = (await call(server, 'GET', '/enrollment/keyspace/ABcd/pubkey')).text;
  const built = buildRegistration(
    { keyspace: 'ABcd', ...tokens, serverPublicKey: publicKey },
    device,
  );
  const answer = await register(server, built.request, { cid });
  return { answer, session: built.session };
}

describe('full enrollment', () => {
  it('finds everything from the keyspace, signs in, enrolls and recovers both SEP keys', async () => {
    const kns = await call(mock, 'GET', '/v2.4/kns/keyspaces/ABcd');
    expect(kns.status).toBe(200);
    const { info } = mock;
    expect(kns.body).toEqual({
      keyspace: 'ABcd',
      fqdn: new URL(info.apiUrl).hostname,
      ttlSeconds: expect.any(Number),
      answers: {
        enroll: [`${info.enrollmentUrl}/keyspace/ABcd/register`],
        tenantid: ['dev'],
        url: [info.apiUrl],
      },
    });
    const { answers } = kns.body as KnsAnswer;

    const portal = await call(mock, 'POST', answers.enroll[0]!, {
      form: { username: 'alice', password: 'alice-password' },
    });
    expect(portal.status).toBe(200);
    const h = (name: string) => portal.headers.get(name);
    expect(h(PORTAL_HEADERS.stoken)).toMatch(/^I\.[\w-]+$/);
    expect(h(PORTAL_HEADERS.uidauth)).toMatch(/^,I[\w-]+\.[\w-]+$/);
    expect(h(PORTAL_HEADERS.apiUrl)).toBe(info.apiUrl);
    expect(h(PORTAL_HEADERS.pubkeyUrl)).toBe(`${info.enrollmentUrl}/keyspace/ABcd/pubkey`);
    expect(h(PORTAL_HEADERS.keyspace)).toBe('ABcd');
    // The headers of later vendor SDKs: the API URL again, and the key inline.
    expect(h(PORTAL_HEADERS.apiUrls)).toBe(info.apiUrl);
    expect(h(PORTAL_HEADERS.pubkey)).toBe(encodeSpkiBase64((await testKeys()).server.publicKey));

    const pubkey = await call(mock, 'GET', h(PORTAL_HEADERS.pubkeyUrl)!);
    expect(pubkey.status).toBe(200);
    expect(pubkey.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(pubkey.text).toBe(encodeSpkiBase64((await testKeys()).server.publicKey));

    const { device } = await testKeys();
    const { request, session } = buildRegistration(
      {
        keyspace: 'ABcd',
        stoken: h(PORTAL_HEADERS.stoken)!,
        uidauth: h(PORTAL_HEADERS.uidauth)!,
        serverPublicKey: pubkey.text,
      },
      device,
    );
    const cid = newCid();
    const answer = await call(mock, 'POST', `${h(PORTAL_HEADERS.apiUrl)}/v2.3/register/ABcd`, {
      json: request,
      headers: { 'x-conversation-id': cid },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    const keys = recoverKeys(answer.body, session, cid);
    expect(keys.deviceId).toMatch(/^ABcd\.\d+\.[0-9a-f-]{36}$/);
    const stored = mock.state.enrollment.keysOf(keys.deviceId)!;
    expect(keys.aesCdEiKey.equals(stored.cdEi)).toBe(true);
    expect(keys.aesCdIdcKey.equals(stored.cdIdc)).toBe(true);
    expect(keys.aesCdEiKey.equals(keys.aesCdIdcKey)).toBe(false);

    const devices = await call(mock, 'GET', '/_mock/devices', { admin: true });
    expect(devices.body).toContainEqual({
      deviceId: keys.deviceId,
      keyspace: 'ABcd',
      tenant: 'dev',
      user: 'alice',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // The keys never leave the mock except sealed in the register answer.
    const hex = keys.aesCdEiKey.toString('hex');
    expect(devices.text).not.toContain(hex);
    expect(devices.text).not.toContain(keys.aesCdEiKey.toString('base64'));
  });

  it('accepts a bare UUID as X-Conversation-ID, as the Ionic SDKs send it', async () => {
    const { answer } = await enroll(
      mock,
      await mintTokens(mock, { user: 'alice' }),
      newCid().slice(6),
    );
    expect(answer.status).toBe(200);
  });

  it('enrolls with one comma or two between STOKEN and UIDAUTH', async () => {
    const tokens = await mintTokens(mock, { user: 'alice' });
    const { device } = await testKeys();
    const spki = encodeSpkiBase64(device.publicKey);
    const auth = Buffer.from(`${tokens.stoken},${tokens.uidauth}`).toString('base64');
    const answer = await register(
      mock,
      await craft({ members: { TKRespPubKDERB64: spki, AUTH: auth } }),
    );
    expect(answer.status).toBe(200);
  });

  it('accepts the payload member spelled tkRespPubKDERB64', async () => {
    const tokens = await mintTokens(mock, { user: 'alice' });
    const { device } = await testKeys();
    const members = {
      tkRespPubKDERB64: encodeSpkiBase64(device.publicKey),
      AUTH: Buffer.from(tokens.stoken + tokens.uidauth).toString('base64'),
    };
    expect((await register(mock, await craft({ members }))).status).toBe(200);
  });
});

describe('replay races', () => {
  it('20 identical requests at once: exactly one enrolls, the rest are replays', async () => {
    const request = await craft({ tokens: await mintTokens(mock, { user: 'alice' }) });
    const answers = await Promise.all(Array.from({ length: 20 }, () => register(mock, request)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status !== 200)) {
      expect([CauseCode.replayDetected, CauseCode.replay]).toContain(codeOf(answer));
    }
  });

  it('20 different packages with one token pair at once: exactly one enrolls, the rest 40902', async () => {
    const tokens = await mintTokens(mock, { user: 'alice' });
    const requests = await Promise.all(Array.from({ length: 20 }, () => craft({ tokens })));
    const before = mock.state.enrollment.devices().length;
    const answers = await Promise.all(requests.map((r) => register(mock, r)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => codeOf(a) === CauseCode.replay)).toHaveLength(19);
    expect(mock.state.enrollment.devices().length).toBe(before + 1);
  });

  it('a pair whose enrollment failed is not used up', async () => {
    const tokens = await mintTokens(mock, { user: 'bob' });
    expect(codeOf(await register(mock, await craft({ tokens })))).toBe(CauseCode.userDisabled);
    await call(mock, 'PUT', '/_mock/users/bob', { json: { enabled: true }, admin: true });
    try {
      expect((await register(mock, await craft({ tokens }))).status).toBe(200);
    } finally {
      await call(mock, 'PUT', '/_mock/users/bob', { json: { enabled: false }, admin: true });
    }
  });
});

describe('users', () => {
  it('bob signs in (disabled users still get tokens) but cannot enroll: 40101', async () => {
    const portal = await call(mock, 'POST', '/enrollment/keyspace/ABcd/register', {
      form: { username: 'bob', password: 'bob-password' },
    });
    expect(portal.status).toBe(200);
    const tokens = {
      stoken: portal.headers.get(PORTAL_HEADERS.stoken)!,
      uidauth: portal.headers.get(PORTAL_HEADERS.uidauth)!,
    };
    const { answer } = await enroll(mock, tokens);
    expect(answer.status).toBe(401);
    expect(codeOf(answer)).toBe(CauseCode.userDisabled);
  });

  it('tokens minted for an unknown user: 40901 "Not Found"', async () => {
    const { answer } = await enroll(mock, await mintTokens(mock, { user: 'carol' }));
    expect([answer.status, answer.reason, codeOf(answer)]).toEqual([409, 'Not Found', 40901]);
  });

  it('with just-in-time users on, an unknown user is created and enrolled', async () => {
    const jit = await startMock({ seed: { justInTimeUsers: true } });
    try {
      const { answer } = await enroll(jit, await mintTokens(jit, { user: 'carol' }));
      expect(answer.status).toBe(200);
      expect(jit.state.users.get('carol')).toMatchObject({ enabled: true, tenant: 'dev' });
      const devices = await call(jit, 'GET', '/_mock/devices', { admin: true });
      expect(devices.body).toEqual([expect.objectContaining({ user: 'carol' })]);
    } finally {
      await jit.close();
    }
  });
});

describe('portal', () => {
  const portal = (form: Record<string, string>, keyspace = 'ABcd') =>
    call(mock, 'POST', `/enrollment/keyspace/${keyspace}/register`, { form });

  it('answers a wrong password and an unknown user alike: 401', async () => {
    const wrong = await portal({ username: 'alice', password: 'nope' });
    const unknown = await portal({ username: 'mallory', password: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get(PORTAL_HEADERS.stoken)).toBeNull();
    expect(unknown.status).toBe(401);
    expect((unknown.body as { error: object }).error).toMatchObject({
      message: (wrong.body as { error: { message: string } }).error.message,
    });
  });

  it('e-mail sign-in: no STOKEN in the answer, the code goes to the outbox and enrolls', async () => {
    const answer = await portal({ email: 'alice@example.com' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get(PORTAL_HEADERS.stoken)).toBeNull();
    const uidauth = answer.headers.get(PORTAL_HEADERS.uidauth)!;
    expect(uidauth).toMatch(/^,I/);
    expect(answer.headers.get(PORTAL_HEADERS.keyspace)).toBe('ABcd');

    const outbox = (await call(mock, 'GET', '/_mock/outbox', { admin: true }))
      .body as OutboxMessage[];
    const message = outbox.at(-1)!;
    expect(message).toEqual({
      to: 'alice@example.com',
      keyspace: 'ABcd',
      code: expect.stringMatching(/^I\./),
      time: expect.any(String),
    });
    const { answer: enrolled } = await enroll(mock, { stoken: message.code, uidauth });
    expect(enrolled.status).toBe(200);
  });

  it('an unknown address gets the same answer, and nothing is sent', async () => {
    const before = (await call(mock, 'GET', '/_mock/outbox', { admin: true })).body as unknown[];
    const answer = await portal({ email: 'nobody@example.com' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get(PORTAL_HEADERS.uidauth)).toMatch(/^,I/);
    expect(answer.headers.get(PORTAL_HEADERS.stoken)).toBeNull();
    const after = (await call(mock, 'GET', '/_mock/outbox', { admin: true })).body as unknown[];
    expect(after).toHaveLength(before.length);
  });

  it('needs a user name and password or an e-mail address: 400', async () => {
    expect((await portal({})).status).toBe(400);
  });

  it('unknown keyspaces: 404 with the enrollment error body, for the portal, pubkey and lookup', async () => {
    for (const [method, path] of [
      ['POST', '/enrollment/keyspace/ZZzz/register'],
      ['GET', '/enrollment/keyspace/ZZzz/pubkey'],
      ['GET', '/v2.4/kns/keyspaces/ZZzz'],
    ] as const) {
      const cid = newCid();
      const answer = await call(mock, method, path, {
        ...(method === 'POST' ? { form: { username: 'alice', password: 'alice-password' } } : {}),
        headers: { 'x-conversation-id': cid },
      });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({
        error: { cid, code: CauseCode.keyspaceNotFound, message: 'Keyspace or tenant not found' },
      });
    }
  });
});

describe('admin endpoints', () => {
  it('need the dev token', async () => {
    for (const [method, path] of [
      ['POST', '/_mock/tokens'],
      ['GET', '/_mock/outbox'],
      ['GET', '/_mock/devices'],
      ['PUT', '/_mock/users/x'],
      ['PUT', '/_mock/keyspaces/WXyz'],
    ] as const) {
      const body = method === 'GET' ? {} : { json: {} };
      expect((await call(mock, method, path, body)).status).toBe(401);
    }
  });

  it('reject invalid token requests with 400 or 404', async () => {
    const mint = (json: unknown) => call(mock, 'POST', '/_mock/tokens', { json, admin: true });
    expect((await mint({})).status).toBe(400);
    expect((await mint({ user: 'alice', ttlSeconds: -1 })).status).toBe(400);
    expect((await mint({ user: 'alice', color: 'red' })).status).toBe(400);
    expect((await mint({ user: 'alice', keyspace: 'ZZzz' })).status).toBe(404);
  });

  it('reset keeps the key server key pair but voids tokens, devices and the outbox', async () => {
    const server = await startMock();
    try {
      const pubkey = async () =>
        (await call(server, 'GET', '/enrollment/keyspace/ABcd/pubkey')).text;
      const before = await pubkey();
      const tokens = await mintTokens(server, { user: 'alice' });
      expect(
        (await enroll(server, await mintTokens(server, { user: 'alice' }))).answer.status,
      ).toBe(200);
      await call(server, 'POST', '/enrollment/keyspace/ABcd/register', {
        form: { email: 'alice@example.com' },
      });
      expect((await call(server, 'POST', '/_mock/reset', { admin: true })).status).toBe(200);

      expect(await pubkey()).toBe(before);
      expect(codeOf((await enroll(server, tokens)).answer)).toBe(CauseCode.tokenIncorrect);
      expect((await call(server, 'GET', '/_mock/devices', { admin: true })).body).toEqual([]);
      expect((await call(server, 'GET', '/_mock/outbox', { admin: true })).body).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('key server key option', () => {
  it('takes a PEM private key', async () => {
    const { server: keys } = await testKeys();
    const pem = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const server = await startCheckedServer({ port: 0, keyServerKey: pem });
    try {
      const answer = await call(server, 'GET', '/enrollment/keyspace/ABcd/pubkey');
      expect(answer.text).toBe(encodeSpkiBase64(keys.publicKey));
    } finally {
      await server.close();
    }
  });

  it('refuses a key that is not a PEM private key, without quoting it', async () => {
    await expect(
      MockServer.start({ port: 0, keyServerKey: 'secret-but-not-a-key' }),
    ).rejects.toThrow(/^the key server key is not a PEM private key$/);
  });
});

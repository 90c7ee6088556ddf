/**
 * Every row of the enrollment cause table (docs/design.md 2.3) from the real mock over HTTP: natural
 * causes from requests that really have the fault, the rest from fault rules. Each answer must
 * carry the cause's status, exact reason phrase, code and message, and echo the request's cid.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisterRequest } from '../../src/common/enrollment/wire.js';
import { CauseCode, causeByCode, ENROLLMENT_CAUSES } from '../../src/common/enrollment/causes.js';
import type { MockServer } from '../../src/mock/server/server.js';
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

let mock: MockServer;

beforeAll(async () => {
  mock = await startMock();
  // A second keyspace (for tokens of another keyspace) and two that cannot enroll.
  for (const [id, settings] of [
    ['EFgh', {}],
    ['NoEn', { enrollment: false }],
    ['Offl', { online: false }],
  ] as const) {
    const answer = await call(mock, 'PUT', `/_mock/keyspaces/${id}`, {
      json: settings,
      admin: true,
    });
    expect(answer.status).toBe(201);
  }
});

afterAll(() => mock?.close());

const alice = () => mintTokens(mock, { user: 'alice' });
const valid = async () => craft({ tokens: await alice() });

/** Sends the request a row builds, with a fresh cid, and checks the answer against the table. */
async function expectCause(code: number, answer: Answer, cid: string): Promise<void> {
  const cause = causeByCode(code)!;
  expect({ status: answer.status, reason: answer.reason }).toEqual({
    status: cause.status,
    reason: cause.reasonPhrase,
  });
  expect(answer.body).toEqual({ error: { cid, code, message: cause.message } });
}

interface Row {
  code: number;
  how: string;
  /** Returns the answer to check; `cid` is what the row sent. */
  run: () => Promise<{ answer: Answer; cid: string }>;
}

/** A register request to a keyspace, with a fresh cid. */
async function send(body: RegisterRequest | string, keyspace = 'ABcd') {
  const cid = newCid();
  return { answer: await register(mock, body, { keyspace, cid }), cid };
}

/** A fault rule for one request to the register endpoint, then a valid request. */
async function fault(code: number) {
  const rules = [{ path: '/v2.3/register/ABcd', code, times: 1 }];
  const set = await call(mock, 'PUT', '/_mock/faults', { json: rules, admin: true });
  expect(set.status).toBe(200);
  return send(await valid());
}

/** Replaces a method of an object for one request, as a failure inside the mock would. */
async function breaking<T extends object>(target: T, method: keyof T, run: () => Promise<Answer>) {
  const original = target[method];
  target[method] = (() => {
    throw new Error('broken on purpose');
  }) as T[keyof T];
  try {
    return await run();
  } finally {
    target[method] = original;
  }
}

const FAULTS = [
  CauseCode.internalRequestFailed,
  CauseCode.tenantSettingsUnresolved,
  CauseCode.keyServerRoutingFailed,
  CauseCode.keyServerAnswerIncomplete,
  CauseCode.keyPairUndecodable,
  CauseCode.attributesResignFailed,
  CauseCode.keyServerKeyUnresolved,
  CauseCode.tenantEnrollmentSettingsUnresolved,
  CauseCode.justInTimeEnrollmentFailed,
  CauseCode.responseNotFormed,
  CauseCode.enterpriseManagerUnreachable,
  CauseCode.upstreamUnreachable,
];

const ROWS: Row[] = [
  { code: 40001, how: 'a body that is not JSON', run: () => send('{"k": "ABcd",') },
  {
    code: 40001,
    how: 'a member missing',
    run: async () => send(JSON.stringify({ ...(await valid()), g: undefined })),
  },
  {
    code: 40002,
    how: 'a device key that is not an SPKI',
    run: async () => {
      const tokens = await alice();
      return send(await craft({ members: { TKRespPubKDERB64: 'AAAA', AUTH: 'x' }, tokens }));
    },
  },
  {
    code: 40004,
    how: 'k differs from the path',
    run: async () => send(await craft({ k: 'EFgh' })),
  },
  { code: 40004, how: 'a malformed path keyspace', run: async () => send(await valid(), 'AB-d') },
  {
    code: 40005,
    how: 'the same package twice',
    run: async () => {
      const request = await valid();
      expect((await register(mock, request)).status).toBe(200);
      return send(request);
    },
  },
  {
    code: 40007,
    how: 'a signature of the wrong size',
    run: async () => send({ ...(await valid()), g: randomBytes(10).toString('base64') }),
  },
  {
    code: 40008,
    how: 'an AUTH that is not STOKEN + UIDAUTH',
    run: async () => {
      const { device } = await testKeys();
      const spki = device.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
      return send(await craft({ members: { TKRespPubKDERB64: spki, AUTH: 'bm90LWEtdG9rZW4=' } }));
    },
  },
  {
    code: 40009,
    how: 'a malformed X-Conversation-ID',
    run: async () => {
      const cid = 'Basic not-a-uuid';
      return { answer: await register(mock, await valid(), { cid }), cid };
    },
  },
  {
    code: 40009,
    how: 'no X-Conversation-ID (the cid generated for the answer is echoed)',
    run: async () => {
      const answer = await register(mock, await valid(), { cid: null });
      return { answer, cid: answer.headers.get('x-conversation-id')! };
    },
  },
  {
    code: 40101,
    how: 'a disabled user',
    run: async () => send(await craft({ tokens: await mintTokens(mock, { user: 'bob' }) })),
  },
  {
    code: 40102,
    how: 's holding 16 bytes instead of a 32-byte key',
    run: async () => send(await craft({ tokens: await alice(), sealedKey: randomBytes(16) })),
  },
  {
    code: 40103,
    how: 'a signature over other text',
    run: async () => send(await craft({ tokens: await alice(), signedText: 'something else' })),
  },
  {
    code: 40104,
    how: 's holding another key than the one p was encrypted with',
    run: async () => send(await craft({ tokens: await alice(), sealedKey: randomBytes(32) })),
  },
  {
    code: 40105,
    how: 'tokens of another keyspace',
    run: async () =>
      send(await craft({ tokens: await mintTokens(mock, { user: 'alice', keyspace: 'EFgh' }) })),
  },
  {
    code: 40105,
    how: 'expired tokens',
    run: async () =>
      send(await craft({ tokens: await mintTokens(mock, { user: 'alice', ttlSeconds: 0 }) })),
  },
  {
    code: 40105,
    how: 'a UIDAUTH with the STOKEN of another pair',
    run: async () => {
      const [one, two] = [await alice(), await alice()];
      return send(await craft({ tokens: { stoken: two.stoken, uidauth: one.uidauth } }));
    },
  },
  {
    code: 40401,
    how: 'an unknown keyspace',
    run: async () => send(await craft({ k: 'ZZzz' }), 'ZZzz'),
  },
  {
    code: 40901,
    how: 'tokens for an unknown user',
    run: async () => send(await craft({ tokens: await mintTokens(mock, { user: 'nobody' }) })),
  },
  {
    code: 40902,
    how: 'a token pair that has already enrolled',
    run: async () => {
      const tokens = await alice();
      expect((await register(mock, await craft({ tokens }))).status).toBe(200);
      return send(await craft({ tokens }));
    },
  },
  { code: 41703, how: 's not Base64', run: async () => send({ ...(await valid()), s: 'no!' }) },
  { code: 41704, how: 'p not Base64', run: async () => send({ ...(await valid()), p: 'no!' }) },
  {
    code: 41704,
    how: 'p shorter than an IV and one byte',
    run: async () => send({ ...(await valid()), p: randomBytes(16).toString('base64') }),
  },
  { code: 41706, how: 'g not Base64', run: async () => send({ ...(await valid()), g: 'no!' }) },
  {
    code: 41707,
    how: 'a keyspace with enrollment disabled',
    run: async () => send(await craft({ k: 'NoEn' }), 'NoEn'),
  },
  {
    code: 45102,
    how: 'claims without uid',
    run: async () => send(await craft({ tokens: await mintTokens(mock, { omitUid: true }) })),
  },
  {
    code: 50002,
    how: 'the device cannot be stored',
    run: async () => {
      const request = await valid();
      const cid = newCid();
      const answer = await breaking(mock.state.enrollment, 'addDevice', () =>
        register(mock, request, { cid }),
      );
      return { answer, cid };
    },
  },
  {
    code: 50005,
    how: 'an unexpected exception in the handler',
    run: async () => {
      const request = await valid();
      const cid = newCid();
      const answer = await breaking(mock.state.users, 'get', () =>
        register(mock, request, { cid }),
      );
      return { answer, cid };
    },
  },
  {
    code: 50302,
    how: 'an offline keyspace',
    run: async () => send(await craft({ k: 'Offl' }), 'Offl'),
  },
  ...FAULTS.map((code) => ({ code, how: 'a fault rule', run: () => fault(code) })),
  { code: 50002, how: 'a fault rule', run: () => fault(50002) },
  { code: 50005, how: 'a fault rule', run: () => fault(50005) },
];

describe('enrollment causes from the mock', () => {
  it('covers every row of the cause table', () => {
    const covered = new Set(ROWS.map((row) => row.code));
    expect([...covered].sort()).toEqual(ENROLLMENT_CAUSES.map((cause) => cause.code).sort());
  });

  it.each(ROWS.map((row) => [row.code, row.how, row] as const))('%i: %s', async (code, _, row) => {
    const { answer, cid } = await row.run();
    await expectCause(code, answer, cid);
  });

  it('answers 503 causes from fault rules with Retry-After', async () => {
    const { answer } = await fault(CauseCode.upstreamUnreachable);
    expect(answer.headers.get('retry-after')).toBe('1');
  });

  it('answers a cause fault on any path it matches, not only the register endpoint', async () => {
    const rules = [{ path: '/v2.4/kns/*', code: CauseCode.keyServerKeyUnresolved, times: 1 }];
    await call(mock, 'PUT', '/_mock/faults', { json: rules, admin: true });
    const cid = newCid();
    const answer = await call(mock, 'GET', '/v2.4/kns/keyspaces/ABcd', {
      headers: { 'x-conversation-id': cid },
    });
    await expectCause(CauseCode.keyServerKeyUnresolved, answer, cid);
  });

  it('lets a request through once a one-time cause fault is spent', async () => {
    expect((await fault(CauseCode.keyServerRoutingFailed)).answer.status).toBe(417);
    expect((await register(mock, await valid())).status).toBe(200);
  });
});

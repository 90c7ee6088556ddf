/**
 * Issue 17: one device request must not hold the mock. A device with 20,000 keys used to send
 * one 16 KB fetch of 1,000 empty queries and get a 379 MB answer while `/_mock/health` waited for
 * 12-40 s. The bounds of REQUEST_BOUNDS refuse such a request before doing its work (40024); what
 * they let through stays small. Wall time is left to the bench (mock-hostile group); these tests
 * assert the work and the sizes.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DeviceErrorCode } from '../../src/common/device/causes.js';
import { openEnvelope } from '../../src/common/device/crypto.js';
import { KEY_PATH } from '../../src/common/device/wire.js';
import { REQUEST_BOUNDS } from '../../src/mock/routes/device/operations.js';
import type { StoredKey } from '../../src/mock/model/device/store.js';
import { healthChecksDuring } from '../helpers/give-way.js';
import type { TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';
import { addDevice, type DeviceProfile, sealedBody } from '../integration/device-keys-fixtures.js';

const HFP = { hfphash: 'f'.repeat(64), hfp: '{"fptype":"test"}' };
const KEYS = 20_000;

const suite = mockSuite();
let mock: TestMock;
let device: DeviceProfile;

beforeAll(() => {
  mock = suite.mock;
});
beforeEach(() => {
  device = addDevice(mock);
});

/** `count` keys of the device's tenant, put straight into the store (no crypto per key). */
function storeKeys(count: number, cattrs = '{"project":["apollo"]}'): void {
  const keys: StoredKey[] = Array.from({ length: count }, (_, i) => ({
    id: `ABcd${String(i).padStart(7, '0')}`,
    tenant: mock.info.tenantId,
    deviceId: device.deviceId,
    ref: 'r',
    key: '00'.repeat(32),
    cattrs,
    csig: 'c2ln',
    createdAt: 0,
  }));
  mock.server.state.keys.create(keys);
}

async function post(path: string, data: unknown) {
  const response = await fetch(mock.info.apiUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sealedBody(device, { meta: HFP, data })),
  });
  const text = await response.text();
  const body = JSON.parse(text) as {
    cid?: string;
    envelope?: string;
    error?: { code: number; message: string };
  };
  // Refusals after the envelope opened are sealed: their error is inside it.
  if (response.status !== 200 && body.envelope !== undefined) {
    const sealed = openEnvelope(device.aesCdIdcKey, body.cid!, body.envelope);
    if (sealed.ok) body.error = (sealed.content as { error?: typeof body.error }).error;
  }
  return { status: response.status, bytes: Buffer.byteLength(text), body };
}

function opened(body: { cid?: string; envelope?: string }) {
  const content = openEnvelope(device.aesCdIdcKey, body.cid!, body.envelope!);
  if (!content.ok) throw new Error(`the answer does not open: ${content.reason}`);
  return content.content as { data: { 'protection-keys': unknown[]; 'query-results': object } };
}

const queries = (count: number, query: object) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`q${i}`, query]));

describe('a fetch is refused before it does more work than one request may', () => {
  it('1,000 empty queries over 20,000 keys: 40024 in a small answer, and health answers', async () => {
    storeKeys(KEYS);
    const [answer, health] = await Promise.all([
      post(KEY_PATH.fetch, { 'protection-keys': [], 'protection-key-queries': queries(1000, {}) }),
      fetch(`${mock.info.url}/_mock/health`),
    ]);
    expect(health.status).toBe(200);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe(DeviceErrorCode.requestTooLarge);
    expect(answer.body.error?.message).toMatch(/1000 queries × 20000 keys.*at most 1000000/);
    expect(answer.bytes).toBeLessThan(1024);
  });

  it('queries that match nothing are bounded the same way: up to the bound they are answered', async () => {
    storeKeys(KEYS);
    const most = REQUEST_BOUNDS.queryChecks / KEYS;
    const nothing = { project: 'gemini' };
    const allowed = await post(KEY_PATH.fetch, {
      'protection-keys': [],
      'protection-key-queries': queries(most, nothing),
    });
    expect(allowed.status).toBe(200);
    expect(Object.keys(opened(allowed.body).data['query-results'])).toHaveLength(most);
    const refused = await post(KEY_PATH.fetch, {
      'protection-keys': [],
      'protection-key-queries': queries(most + 1, nothing),
    });
    expect(refused.body.error?.code).toBe(DeviceErrorCode.requestTooLarge);
  });

  it('an answer holds at most the bound of keys: exactly that many are answered, one more is refused', async () => {
    storeKeys(REQUEST_BOUNDS.answerKeys);
    const all = await post(KEY_PATH.fetch, {
      'protection-keys': [],
      'protection-key-queries': { all: { project: 'apollo', qty: REQUEST_BOUNDS.answerKeys + 1 } },
    });
    expect(all.status).toBe(200);
    expect(opened(all.body).data['protection-keys']).toHaveLength(REQUEST_BOUNDS.answerKeys);
    // The largest answer a fetch can give stays a few megabytes.
    expect(all.bytes).toBeLessThan(8 * 1024 * 1024);
    mock.server.state.keys.create([
      { ...mock.server.state.keys.get('ABcd0000000')!, id: 'ABcdextra01' },
    ]);
    const over = await post(KEY_PATH.fetch, {
      'protection-keys': [],
      'protection-key-queries': { all: { project: 'apollo', qty: REQUEST_BOUNDS.answerKeys + 1 } },
    });
    expect(over.status).toBe(400);
    expect(over.body.error?.message).toMatch(/more than 5000 keys/);
  });

  it('query results are bounded in ids, all queries together', async () => {
    storeKeys(1000);
    const many = REQUEST_BOUNDS.queryResultIds / 1000;
    const answer = await post(KEY_PATH.fetch, {
      'protection-keys': [],
      'protection-key-queries': queries(many + 1, {}),
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toMatch(/more than 100000 key ids in query results/);
  });
});

describe('a request at the bounds gives way to other clients', () => {
  it('the largest fetch answer (5,000 keys, 100,000 ids): health answers meanwhile', async () => {
    storeKeys(REQUEST_BOUNDS.answerKeys);
    const { answered, result: answer } = await healthChecksDuring(mock, KEY_PATH.fetch, () =>
      post(KEY_PATH.fetch, {
        'protection-keys': [],
        'protection-key-queries': queries(20, {
          project: 'apollo',
          qty: REQUEST_BOUNDS.answerKeys,
        }),
      }),
    );
    expect(answered).toBeGreaterThanOrEqual(3);
    expect(answer.status).toBe(200);
    const { data } = opened(answer.body);
    expect(data['protection-keys']).toHaveLength(REQUEST_BOUNDS.answerKeys);
    expect(Object.values(data['query-results'])).toHaveLength(20);
  });

  it("the mock's listing of 50,000 keys: health answers meanwhile", async () => {
    storeKeys(50_000);
    const { answered, result: listing } = await healthChecksDuring(
      mock,
      '/_mock/keys',
      async () => {
        const answer = await fetch(`${mock.info.url}/_mock/keys`, {
          headers: { authorization: `Bearer ${mock.info.token}` },
        });
        return (await answer.json()) as { id: string }[];
      },
    );
    expect(answered).toBeGreaterThanOrEqual(3);
    expect(listing).toHaveLength(50_000);
  });

  it('a create of 10,000 keys: health answers meanwhile, and every key is stored', async () => {
    const refs = Array.from({ length: 10 }, (_, i) => ({
      ref: `r${i}`,
      qty: 1000,
      cattrs: '{"project":["apollo"]}',
    }));
    const { answered, result: answer } = await healthChecksDuring(mock, KEY_PATH.create, () =>
      post(KEY_PATH.create, { 'protection-keys': refs }),
    );
    expect(answered).toBeGreaterThanOrEqual(3);
    expect(answer.status).toBe(200);
    const created = opened(answer.body).data['protection-keys'] as { id: string }[];
    expect(created).toHaveLength(10_000);
    expect(new Set(created.map((key) => key.id)).size).toBe(10_000);
    expect(created.every((key) => mock.server.state.keys.has(key.id))).toBe(true);
  });
});

describe('what a device may send is bounded before the mock builds it', () => {
  it('a content of more values than any request has is refused whole, sealed (40024)', async () => {
    const junk = Array.from({ length: 25 }, () => Array.from({ length: 10_000 }, () => 0));
    const answer = await post(KEY_PATH.fetch, { 'protection-keys': [], junk });
    expect(answer.status).toBe(400);
    expect(answer.body.envelope).toBeDefined();
    expect(answer.body.error?.code).toBe(DeviceErrorCode.requestTooLarge);
    expect(answer.body.error?.message).toMatch(/more than 200000 values/);
  });

  it('a body over 4 MiB is refused with 413 before it is parsed; 4 MiB is answered', async () => {
    // Long ids, none a key: each is answered with its item error.
    const ids = (length: number) =>
      Array.from({ length: 1000 }, (_, i) => `${i}`.padEnd(length, 'x'));
    const largest = await post(KEY_PATH.fetch, { 'protection-keys': ids(3000) });
    expect(largest.status).toBe(200);
    const over = await post(KEY_PATH.fetch, { 'protection-keys': ids(3200) });
    expect(over.status).toBe(413);
    expect(over.body.error?.message).toMatch(/larger than 4194304 bytes/);
  });
});

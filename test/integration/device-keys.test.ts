/**
 * Device requests against the in-process mock (docs/design.md 2.4), through ksctl's own client:
 * key create, fetch and modify, the fingerprint exchange, markings as key attributes, and every
 * failure of the device cause table (src/common/device/causes.ts), each where a user would meet it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api/client.js';
import { DEVICE_CAUSES, DeviceErrorCode } from '../../src/common/device/causes.js';
import { makeCid } from '../../src/common/device/cid.js';
import {
  aad,
  openEnvelope,
  protectValues,
  signAttributes,
} from '../../src/common/device/crypto.js';
import { DeviceClient } from '../../src/client/device/client.js';
import type { KsctlError } from '../../src/common/errors.js';
import { KEY_PATH, type MockKeyListing } from '../../src/common/device/wire.js';
import type { TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';
import {
  addDevice,
  type DeviceProfile,
  deviceHttp,
  postRaw,
  sealedBody,
} from './device-keys-fixtures.js';

const suite = mockSuite();
let mock: TestMock;
const http = deviceHttp();

beforeAll(() => {
  mock = suite.mock;
});
afterAll(() => http.close());

const HFP = { hfphash: 'f'.repeat(64), hfp: '{"fptype":"test"}' };
const codesSeen = new Set<number>();
afterAll(() => {
  // Every row of the table was met by some test of this file.
  expect(DEVICE_CAUSES.map((c) => c.code).filter((c) => !codesSeen.has(c))).toEqual([]);
});

function client(device: DeviceProfile) {
  return new DeviceClient(device, http);
}

async function openAnswer(
  device: DeviceProfile,
  answer: { body: { cid?: string; envelope?: string } },
) {
  const opened = openEnvelope(device.aesCdIdcKey, answer.body.cid!, answer.body.envelope!);
  if (!opened.ok) throw new Error(`answer does not open: ${opened.reason}`);
  return opened.content as {
    data: Record<string, unknown>;
    error?: Record<string, { code: number; message: string }>;
  };
}

function seenIn(error: unknown): number | undefined {
  const code = (error as { serviceCode?: number }).serviceCode;
  if (code !== undefined) codesSeen.add(code);
  return code;
}

describe('key round trip', () => {
  it('creates keys with plain and protected attributes and fetches them back', async () => {
    const device = addDevice(mock);
    const c = client(device);
    const created = await c.create([
      {
        ref: 'docs',
        count: 2,
        attributes: { project: ['apollo'] },
        protectedAttributes: { 'ionic-protected-owner': ['alice'] },
      },
    ]);
    expect(created.refused).toEqual([]);
    expect(created.keys).toHaveLength(2);
    for (const key of created.keys) {
      expect(key.id.startsWith('ABcd')).toBe(true);
      expect(key.key).toHaveLength(32);
    }
    const fetched = await c.fetch(created.keys.map((k) => k.id));
    expect(fetched.keys.map((k) => k.key.toString('hex'))).toEqual(
      created.keys.map((k) => k.key.toString('hex')),
    );
    expect(fetched.keys[0]!.attributes).toEqual({
      project: ['apollo'],
      'ionic-protected-owner': ['alice'],
    });
    // The fingerprint was asked for once (4001), then known: 2 + 1 requests.
    const journal = await mock.journal();
    expect(journal.map((r) => r.path)).toEqual([KEY_PATH.create, KEY_PATH.create, KEY_PATH.fetch]);
    codesSeen.add(DeviceErrorCode.fingerprintUnknown);
    // The journal and the admin listing hold no key material and no envelope.
    const listed = (await mock.call('GET', '/_mock/keys')).body as MockKeyListing[];
    expect(listed.map((k) => k.id).sort()).toEqual(created.keys.map((k) => k.id).sort());
    const text = JSON.stringify(listed) + JSON.stringify(await mock.journal());
    for (const key of created.keys) expect(text).not.toContain(key.key.toString('hex'));
    expect(text).not.toContain('envelope');
    expect(listed[0]).toMatchObject({ deviceId: device.deviceId, tenant: 'dev', ref: 'docs' });
    expect(listed[0]).not.toHaveProperty('key');
  });

  it('modifies mutable attributes, guarded by the signatures last fetched', async () => {
    const c = client(addDevice(mock));
    const [key] = (await c.create([{ ref: 'r', count: 1, attributes: {} }])).keys;
    const [fetched] = (await c.fetch([key!.id])).keys;
    // The create answer's signatures are the ones a fetch gives: either guards a modify.
    expect([key!.csig, key!.msig]).toEqual([fetched!.csig, fetched!.msig]);
    const modified = await c.modify([{ key: fetched!, attributes: { stage: ['review'] } }]);
    expect(modified.refused).toEqual([]);
    const [after] = (await c.fetch([key!.id])).keys;
    expect(after!.mutableAttributes).toEqual({ stage: ['review'] });
    expect(modified.modified).toEqual([{ id: key!.id, csig: after!.csig, msig: after!.msig }]);
    // A second change from the same stale copy is refused: someone changed the key meanwhile.
    const stale = await c.modify([{ key: fetched!, attributes: { stage: ['done'] } }]);
    expect(stale.refused.map((r) => [r.item, seenIn(r.error)])).toEqual([
      [key!.id, DeviceErrorCode.signatureStale],
    ]);
    expect(stale.refused[0]!.error.exitCode).toBe(6);
    expect(stale.refused[0]!.message).toContain('prevmsig is not its msig');
    // Forced, the same stale copy replaces them.
    const forced = await c.modify([
      { key: fetched!, attributes: { stage: ['done'] }, force: true },
    ]);
    expect(forced.refused).toEqual([]);
    expect((await c.fetch([key!.id])).keys[0]!.mutableAttributes).toEqual({ stage: ['done'] });
  });

  it('answers unknown ids and keys of another tenant under error, not as an HTTP error', async () => {
    const other = client(addDevice(mock, 'other-tenant', 'XYzw'));
    const [foreign] = (await other.create([{ ref: 'r', count: 1, attributes: {} }])).keys;
    const c = client(addDevice(mock));
    const [own] = (await c.create([{ ref: 'r', count: 1, attributes: {} }])).keys;
    const answer = await c.fetch([own!.id, foreign!.id, 'ABcdMissing']);
    expect(answer.keys.map((k) => k.id)).toEqual([own!.id]);
    expect(answer.refused.map((r) => [r.item, seenIn(r.error), r.error.exitCode])).toEqual([
      [foreign!.id, DeviceErrorCode.keyOfOtherTenant, 5],
      ['ABcdMissing', DeviceErrorCode.keyNotFound, 5],
    ]);
  });

  it('finds keys by attribute through protection-key-queries', async () => {
    const device = addDevice(mock);
    const c = client(device);
    const [key] = (
      await c.create([{ ref: 'r', count: 1, attributes: { 'ionic-external-id': ['doc-7'] } }])
    ).keys;
    await c.create([{ ref: 'r', count: 1, attributes: { 'ionic-external-id': ['doc-8'] } }]);
    const body = sealedBody(device, {
      meta: HFP,
      data: {
        'protection-keys': [],
        'protection-key-queries': { qref0: { 'ionic-external-id': 'doc-7' } },
      },
    });
    const content = await openAnswer(device, await postRaw(mock, KEY_PATH.fetch, body));
    expect(content.data['query-results']).toEqual({ qref0: { ids: [key!.id] } });
    expect((content.data['protection-keys'] as { id: string }[]).map((k) => k.id)).toEqual([
      key!.id,
    ]);
  });
});

describe('markings are the attributes of keys', () => {
  async function classification() {
    const answer = await mock.call('POST', '/v2/dev/markings', {
      name: 'classification',
      defaultValue: 'internal',
      detail: { values: [{ name: 'public' }, { name: 'internal' }, { name: 'restricted' }] },
    });
    expect(answer.status).toBe(201);
  }

  it('refuses a value the marking does not have, naming the marking, the value and the allowed ones', async () => {
    await classification();
    const device = addDevice(mock);
    const c = client(device);
    const error = (await c
      .create([
        { ref: 'bad', count: 1, attributes: { classification: ['top-secret'] } },
        { ref: 'good', count: 1, attributes: { classification: ['restricted'] } },
      ])
      .catch((e: unknown) => e)) as KsctlError;
    expect(seenIn(error)).toBe(DeviceErrorCode.markingValueRefused);
    expect(error.exitCode).toBe(3);
    expect(error.message).toBe(
      'ref "bad": marking "classification" has no value "top-secret"; allowed: "internal", "public", "restricted"',
    );
    expect(error.conversationId).toMatch(new RegExp(`^CID\\|${device.deviceId}\\|`));
    // A create is whole: the good ref made no key either.
    expect(mock.server.state.keys.list()).toEqual([]);
  });

  it('adds the default of a marking the request leaves out, and the value shows on fetch', async () => {
    await classification();
    const c = client(addDevice(mock));
    const [key] = (await c.create([{ ref: 'r', count: 1, attributes: { project: ['x'] } }])).keys;
    const [fetched] = (await c.fetch([key!.id])).keys;
    expect(fetched!.attributes).toEqual({ project: ['x'], classification: ['internal'] });
  });

  it('enforces the values on modify too', async () => {
    await classification();
    const c = client(addDevice(mock));
    const [key] = (await c.create([{ ref: 'r', count: 1, attributes: {} }])).keys;
    const [fetched] = (await c.fetch([key!.id])).keys;
    const answer = await c.modify([{ key: fetched!, attributes: { classification: ['bogus'] } }]);
    expect(answer.refused.map((r) => seenIn(r.error))).toEqual([
      DeviceErrorCode.markingValueRefused,
    ]);
    expect(answer.refused[0]!.message).toContain('has no value "bogus"');
    expect((await c.fetch([key!.id])).keys[0]!.mutableAttributes).toEqual({});
  });
});

describe('failures inside the answer envelope', () => {
  it('4005: a csig made with another SEP.CD:KS key; the profile is wrong (exit 4)', async () => {
    const device = addDevice(mock);
    const wrong = client({ ...device, aesCdEiKey: Buffer.alloc(32, 7) });
    const error = (await wrong
      .create([{ ref: 'r', count: 1, attributes: {} }])
      .catch((e: unknown) => e)) as KsctlError;
    expect([seenIn(error), error.exitCode]).toEqual([DeviceErrorCode.signatureInvalid, 4]);
  });

  it('4006: a malformed item; 4008: a protected value sealed with another key', async () => {
    const device = addDevice(mock);
    const cid = makeCid(device.deviceId);
    const cattrs = JSON.stringify({
      'ionic-protected-x': [protectValues(Buffer.alloc(32, 1), 'ionic-protected-x', ['v'])],
    });
    const body = sealedBody(
      device,
      {
        meta: HFP,
        data: {
          'protection-keys': [
            { ref: 'zero', qty: 0 },
            {
              ref: 'sealed',
              qty: 1,
              cattrs,
              csig: signAttributes(device.aesCdEiKey, aad(cid, 'sealed'), cattrs),
            },
          ],
        },
      },
      { cid },
    );
    const content = await openAnswer(device, await postRaw(mock, KEY_PATH.create, body));
    // No SDK reads per-ref errors of a create: one top-level error names every ref refused.
    expect(content.data).toEqual({});
    const error = content.error as unknown as { code: number; message: string };
    expect(error.code).toBe(DeviceErrorCode.itemInvalid);
    expect(error.message).toMatch(
      /^2 refs refused, nothing created: ref "zero": qty .*\(4006\); ref "sealed": protected attribute .*\(4008\)$/,
    );
    codesSeen.add(DeviceErrorCode.itemInvalid).add(DeviceErrorCode.protectedUnreadable);
    expect(mock.server.state.keys.list()).toEqual([]);
  });
});

describe('bounds', () => {
  it('a create makes at most 10,000 keys over all its refs, or none', async () => {
    const device = addDevice(mock);
    const refs = Array.from({ length: 11 }, (_, i) => ({
      ref: `r${i}`,
      count: 1000,
      attributes: {},
    }));
    const error = (await client(device)
      .create(refs)
      .catch((e: unknown) => e)) as KsctlError;
    expect(seenIn(error)).toBe(DeviceErrorCode.itemInvalid);
    expect(error.message).toContain(
      'a create may make at most 10000 keys, not 11000: nothing created',
    );
    expect(mock.server.state.keys.list()).toEqual([]);
  });
});

describe('failures of the whole request: HTTP errors, or sealed once the device is proved', () => {
  const content = { meta: HFP, data: { 'protection-keys': [] } };
  const cases: [string, number, number, (d: DeviceProfile) => unknown][] = [
    ['a body that is not JSON', 400, DeviceErrorCode.requestInvalid, () => 'not json'],
    [
      'a body without envelope',
      400,
      DeviceErrorCode.requestInvalid,
      (d) => ({ cid: makeCid(d.deviceId) }),
    ],
    [
      'a cid of another form',
      400,
      DeviceErrorCode.cidMalformed,
      (d) => ({ cid: `CID|${d.deviceId}|now|x`, envelope: 'AAAA' }),
    ],
    [
      'an unknown device',
      401,
      DeviceErrorCode.deviceUnknown,
      () => sealedBody(addDeviceLess(), content),
    ],
    [
      'a cid 6 minutes old',
      401,
      DeviceErrorCode.clockSkew,
      (d) => sealedBody(d, content, { cid: makeCid(d.deviceId, '2.4', Date.now() - 6 * 60_000) }),
    ],
    [
      'a cid 6 minutes ahead',
      401,
      DeviceErrorCode.clockSkew,
      (d) => sealedBody(d, content, { cid: makeCid(d.deviceId, '2.4', Date.now() + 6 * 60_000) }),
    ],
    [
      'an envelope that is not Base64',
      400,
      DeviceErrorCode.envelopeUndecodable,
      (d) => ({ cid: makeCid(d.deviceId), envelope: 'not base64!' }),
    ],
    [
      'an envelope sealed with another key',
      401,
      DeviceErrorCode.envelopeNotAuthentic,
      (d) => sealedBody(d, content, { idcKey: Buffer.alloc(32, 9) }),
    ],
    [
      'an envelope without meta',
      400,
      DeviceErrorCode.envelopeContentInvalid,
      (d) => sealedBody(d, { data: {} }),
    ],
    [
      'protection-keys that are not a list',
      400,
      DeviceErrorCode.envelopeContentInvalid,
      (d) => sealedBody(d, { meta: HFP, data: { 'protection-keys': 'x' } }),
    ],
    [
      'the same ref twice',
      400,
      DeviceErrorCode.envelopeContentInvalid,
      (d) =>
        sealedBody(d, {
          meta: HFP,
          data: {
            'protection-keys': [
              { ref: 'a', qty: 1 },
              { ref: 'a', qty: 1 },
            ],
          },
        }),
    ],
  ];
  it.each(cases)('%s: %i %i', async (_what, status, code, body) => {
    const device = addDevice(mock);
    const sent = body(device) as { cid?: string };
    const answer = await postRaw(mock, KEY_PATH.create, sent);
    expect(answer.status).toBe(status);
    const cause = DEVICE_CAUSES.find((c) => c.code === code)!;
    if (cause.where === 'sealed') {
      // The device proved itself: its error comes sealed under the request's cid.
      expect(answer.body.cid).toBe(sent.cid);
      const content = await openAnswer(device, answer);
      expect(content.error).toEqual({ code, message: cause.message });
    } else {
      expect(answer.body.error?.code).toBe(code);
      expect(answer.body.error?.message).toBe(cause.message);
    }
    codesSeen.add(code);
  });

  it('40420: a device endpoint the mock lacks, sealed for the device; a plain 404 for others', async () => {
    const device = addDevice(mock);
    const body = sealedBody(device, content);
    const answer = await postRaw(mock, '/v2.4/assertions/create', body);
    expect([answer.status, answer.body.cid]).toEqual([404, body.cid]);
    expect((await openAnswer(device, answer)).error).toEqual({
      code: DeviceErrorCode.endpointNotServed,
      message: 'POST /v2.4/assertions/create: this service does not serve this device endpoint',
    });
    codesSeen.add(DeviceErrorCode.endpointNotServed);
    // Not a device's request (unknown device, or no envelope): the ordinary 404.
    const stranger = await postRaw(
      mock,
      '/v2.4/assertions/create',
      sealedBody(addDeviceLess(), content),
    );
    expect([stranger.status, stranger.body.envelope]).toEqual([404, undefined]);
    expect((await postRaw(mock, '/v2.4/nothing', { a: 1 })).status).toBe(404);
  });

  it('40920: the same cid twice, sealed under that cid', async () => {
    const device = addDevice(mock);
    const body = sealedBody(device, content);
    expect((await postRaw(mock, KEY_PATH.fetch, body)).status).toBe(200);
    const again = await postRaw(mock, KEY_PATH.fetch, body);
    expect([again.status, again.body.cid]).toEqual([409, body.cid]);
    expect((await openAnswer(device, again)).error).toMatchObject({
      code: DeviceErrorCode.cidReused,
    });
    codesSeen.add(DeviceErrorCode.cidReused);
  });

  it('ksctl turns an unknown device into "not authorized" naming the device (exit 4)', async () => {
    const error = await client({ ...addDeviceLess(), server: mock.info.apiUrl })
      .fetch(['ABcdX'])
      .catch((e: unknown) => e);
    expect(seenIn(error)).toBe(DeviceErrorCode.deviceUnknown);
    expect((error as { exitCode: number }).exitCode).toBe(4);
    expect((error as Error).message).toMatch(
      /^fetch keys with device ABcd\.1\.\S+: the service knows no device/,
    );
  });

  it('40024: a fetch that would compare more than 1,000,000 query terms is refused whole, sealed', async () => {
    const device = addDevice(mock);
    mock.server.state.keys.create(
      Array.from({ length: 1001 }, (_, i) => ({
        id: `ABcdbound${i}`,
        tenant: mock.info.tenantId,
        deviceId: device.deviceId,
        ref: 'r',
        key: '00'.repeat(32),
        cattrs: '{}',
        csig: 'c2ln',
        createdAt: 0,
      })),
    );
    const queries = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`q${i}`, {}]));
    const data = { 'protection-keys': [], 'protection-key-queries': queries };
    const answer = await postRaw(mock, KEY_PATH.fetch, sealedBody(device, { meta: HFP, data }));
    expect(answer.status).toBe(400);
    const error = (await openAnswer(device, answer)).error as unknown as {
      code: number;
      message: string;
    };
    expect(error.code).toBe(DeviceErrorCode.requestTooLarge);
    expect(error.message).toMatch(/1000 queries × 1001 keys/);
    codesSeen.add(error.code);
  });

  it('fault rules apply to the device endpoints', async () => {
    await mock.setFaults([{ path: '/v2.4/keys/*', status: 500, times: 1 }]);
    const error = await client(addDevice(mock))
      .fetch(['ABcdX'])
      .catch((e: unknown) => e);
    expect((error as { exitCode: number }).exitCode).toBe(7);
  });
});

/** A device the mock never enrolled. */
function addDeviceLess(): DeviceProfile {
  return {
    deviceId: `ABcd.1.${crypto.randomUUID()}`,
    server: 'unused',
    aesCdIdcKey: Buffer.alloc(32, 3),
    aesCdEiKey: Buffer.alloc(32, 4),
  };
}

describe('a device request that cannot connect', () => {
  const NOWHERE = 'http://127.0.0.1:9';

  it('names the address it tried, not a base URL', async () => {
    // Device requests go to absolute URLs: their client has no base URL.
    const client = new ApiClient({ auth: { kind: 'none' }, retries: 0 });
    const failed = await client.request('POST', `${NOWHERE}/v2.4/keys/create`).catch((e) => e);
    // A relative path is a bug of the caller's, named as such, before anything is sent.
    const relative = await client.request('GET', '/markings').catch((e: Error) => e);
    await client.close();
    expect(failed.message).toContain(`cannot reach the service at ${NOWHERE}`);
    expect(failed.hint).not.toContain('--base-url');
    expect((relative as Error).message).toContain(
      '/markings: this client has no base URL, it takes absolute URLs only',
    );
  });
});

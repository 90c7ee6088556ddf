/**
 * Fault rules with a device error code (docs/design.md 3.3): a matching device request of a
 * proved device answers with that error as the real path does, sealed under its cid where the
 * cause is sealed; a per-item code fails every item of the request. Driven through ksctl's device
 * client, raw requests and `ksctl keys`, against the in-process mock.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FaultRule } from '../../src/common/mock/wire.js';
import { DEVICE_CAUSES, DeviceErrorCode } from '../../src/common/device/causes.js';
import { makeCid } from '../../src/common/device/cid.js';
import { DeviceClient } from '../../src/client/device/client.js';
import { openEnvelope } from '../../src/common/device/crypto.js';
import { DEVICE_PATHS, KEY_PATH } from '../../src/common/device/wire.js';
import type { KsctlError } from '../../src/common/errors.js';
import { saveProfiles } from '../../src/client/profiles/index.js';
import { tsvRows } from '../helpers/cli.js';
import { mockSuite } from '../helpers/mock-suite.js';
import { SdkDevice, SdkProtocolError } from '../helpers/sdk-device.js';
import {
  addDevice,
  type DeviceProfile,
  deviceHttp,
  postRaw,
  type RawAnswer,
  sealedBody,
} from './device-keys-fixtures.js';

const suite = mockSuite();
const http = deviceHttp();
afterAll(() => http.close());

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const HFP = { hfphash: 'f'.repeat(64), hfp: '{"fptype":"test"}' };
const INJECTED = ' (injected by a fault rule)';

function causeOf(code: number) {
  return DEVICE_CAUSES.find((c) => c.code === code)!;
}

async function setFaults(rules: FaultRule[]): Promise<void> {
  const answer = await suite.mock.call('PUT', '/_mock/faults', rules);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
}

async function faultsInForce(): Promise<FaultRule[]> {
  return (await suite.mock.call('GET', '/_mock/faults')).body as FaultRule[];
}

function opened(device: DeviceProfile, answer: RawAnswer) {
  const content = openEnvelope(device.aesCdIdcKey, answer.body.cid!, answer.body.envelope!);
  if (!content.ok) throw new Error(`answer does not open: ${content.reason}`);
  return content.content as { data: Record<string, unknown>; error?: Record<string, unknown> };
}

/** A device with one key, made before any rule is set. */
async function deviceWithKey(): Promise<{ device: DeviceProfile; id: string }> {
  const device = addDevice(suite.mock);
  const created = await new DeviceClient(device, http).create([
    { ref: 'r', count: 1, attributes: {} },
  ]);
  return { device, id: created.keys[0]!.id };
}

describe('a request-level device error', () => {
  it('40024 on fetch, times=1: sealed under the request cid, 400; the next fetch works', async () => {
    const { device, id } = await deviceWithKey();
    await setFaults([{ path: KEY_PATH.fetch, code: DeviceErrorCode.requestTooLarge, times: 1 }]);
    const client = new DeviceClient(device, http);
    const error = (await client.fetch([id]).catch((e: unknown) => e)) as KsctlError;
    expect(error.serviceCode).toBe(DeviceErrorCode.requestTooLarge);
    expect(error.status).toBe(400);
    expect(error.exitCode).toBe(3);
    expect(error.message).toContain(`${causeOf(40024).message}${INJECTED} (40024)`);
    expect(await faultsInForce()).toEqual([]);
    expect((await client.fetch([id])).keys.map((k) => k.id)).toEqual([id]);
  });

  it.each(DEVICE_CAUSES.filter((c) => c.where !== 'item').map((c) => [c.code, c.where, c.status]))(
    '%i answers %s, %i, as the real path does',
    async (code) => {
      const cause = causeOf(code);
      const device = addDevice(suite.mock);
      await setFaults([{ path: '/v2.4/keys/*', code, times: 1 }]);
      const body = sealedBody(device, { meta: HFP, data: { 'protection-keys': [] } });
      const answer = await postRaw(suite.mock, KEY_PATH.fetch, body);
      expect(answer.status).toBe(cause.status);
      const wire = { code, message: cause.message + INJECTED };
      if (cause.where === 'sealed') {
        expect(answer.body.cid).toBe(body.cid);
        expect(opened(device, answer)).toEqual({ data: {}, error: wire });
      } else {
        expect(answer.body).toEqual({ error: { cid: body.cid, ...wire } });
      }
      expect(await faultsInForce()).toEqual([]);
    },
  );

  it('only a request that passes the checks spends the rule', async () => {
    await setFaults([{ code: DeviceErrorCode.clockSkew, times: 1 }]);
    const device = addDevice(suite.mock);
    const content = { meta: HFP, data: { 'protection-keys': [] } };
    // A device the mock never enrolled: the plain 40120 of the real path.
    const stranger = { ...device, deviceId: `ABcd.1.${crypto.randomUUID()}` };
    const unknown = await postRaw(suite.mock, KEY_PATH.fetch, sealedBody(stranger, content));
    expect([unknown.status, unknown.body.error?.code]).toEqual([401, 40120]);
    expect(unknown.body.error?.message).toBe(causeOf(40120).message);
    // A cid used before: the real 40920.
    const body = sealedBody(device, content, { cid: makeCid(device.deviceId) });
    await setFaults([]);
    expect((await postRaw(suite.mock, KEY_PATH.fetch, body)).status).toBe(200);
    await setFaults([{ code: DeviceErrorCode.clockSkew, times: 1 }]);
    const reused = await postRaw(suite.mock, KEY_PATH.fetch, body);
    expect([reused.status, opened(device, reused).error?.code]).toEqual([409, 40920]);
    expect(await faultsInForce()).toEqual([{ code: 40121, times: 1 }]);
    // A proved request meets it.
    const met = await postRaw(suite.mock, KEY_PATH.fetch, sealedBody(device, content));
    expect([met.status, opened(device, met).error?.code]).toEqual([401, 40121]);
    expect(await faultsInForce()).toEqual([]);
  });
});

describe('a per-item device error fails every item of the request', () => {
  it('4004 on fetch: every id under data.errorMap (v2.4) and the inner error (v2.3)', async () => {
    const { device, id } = await deviceWithKey();
    await setFaults([{ path: '/v2.*', code: DeviceErrorCode.keyNotFound }]);
    const wire = { code: 4004, message: causeOf(4004).message + INJECTED };
    const data = { 'protection-keys': [id, 'ABcdOther'], 'protection-key-queries': { q: {} } };
    const v24 = await postRaw(suite.mock, KEY_PATH.fetch, sealedBody(device, { meta: HFP, data }));
    expect(v24.status).toBe(200);
    expect(opened(device, v24)).toEqual({
      data: {
        'protection-keys': [],
        'query-results': { q: { ids: [] } },
        errorMap: { [id]: wire, ABcdOther: wire },
      },
    });
    const v23 = await postRaw(
      suite.mock,
      DEVICE_PATHS['2.3'].fetch!,
      sealedBody(
        device,
        { meta: HFP, data: { 'protection-keys': [id] } },
        {
          cid: makeCid(device.deviceId, '2.3'),
        },
      ),
    );
    expect(opened(device, v23)).toEqual({ data: { 'protection-keys': [] }, error: { [id]: wire } });
    // Creates have no key ids: the rule leaves them alone.
    const created = await new DeviceClient(device, http).create([
      { ref: 'r', count: 1, attributes: {} },
    ]);
    expect(created.keys).toHaveLength(1);
  });

  it('4006 on create: one error naming every ref, nothing created', async () => {
    const device = addDevice(suite.mock);
    const client = new DeviceClient(device, http);
    await setFaults([{ path: KEY_PATH.create, code: DeviceErrorCode.itemInvalid, times: 1 }]);
    const error = (await client
      .create([
        { ref: 'a', count: 1, attributes: {} },
        { ref: 'b', count: 2, attributes: {} },
      ])
      .catch((e: unknown) => e)) as KsctlError;
    expect(error.serviceCode).toBe(4006);
    expect(error.message).toContain(
      `: the service refused: 2 refs refused, nothing created: ref "a": ${causeOf(4006).message}${INJECTED} (4006); ref "b": ${causeOf(4006).message}${INJECTED} (4006)`,
    );
    // Each ref names its code; the message does not end with the code once more.
    expect(error.message).not.toMatch(/\(4006\) \(4006\)$/);
    expect((await suite.mock.call('GET', '/_mock/keys')).body).toEqual([]);
  });
});

describe('a client written from the vendor SDK page takes them as the real errors', () => {
  it('goes through a 4001 once, reads 4004 per key in both dialects, and opens a sealed 40121', async () => {
    const device = addDevice(suite.mock);
    const sep = { deviceId: device.deviceId, idc: device.aesCdIdcKey, ks: device.aesCdEiKey };
    const sdk = new SdkDevice(sep, suite.mock.info.apiUrl, { unpaddedNonce: true });
    const [key] = await sdk.create('2.4', 'r', 1, { a: ['1'] });
    await setFaults([
      { code: DeviceErrorCode.fingerprintUnknown, path: KEY_PATH.create, times: 1 },
    ]);
    const sent = sdk.cids.length;
    expect(await sdk.create('2.4', 'r', 1, {})).toHaveLength(1);
    expect(sdk.cids.length - sent).toBe(2);

    await setFaults([{ code: DeviceErrorCode.keyNotFound, path: '/v2.*' }]);
    for (const dialect of ['2.3', '2.4'] as const) {
      const fetched = await sdk.fetch(dialect, [key!.id]);
      expect(fetched.keys).toEqual([]);
      expect(fetched.errors).toEqual({
        [key!.id]: { code: 4004, message: causeOf(4004).message + INJECTED },
      });
    }

    await setFaults([{ code: DeviceErrorCode.clockSkew, path: KEY_PATH.fetch, times: 1 }]);
    const error = await sdk.fetch('2.4', [key!.id]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SdkProtocolError);
    expect((error as SdkProtocolError).code).toBe(40121);
    expect((await sdk.fetch('2.4', [key!.id])).keys.map((k) => k.id)).toEqual([key!.id]);
  });
});

describe('ksctl keys meets them as it meets the real errors', () => {
  async function cli(argv: string[]) {
    const device = addDevice(suite.mock);
    const path = join(suite.configDir, 'profiles.pt');
    await saveProfiles(
      { kind: 'plaintext', path },
      { activeDeviceId: device.deviceId, profiles: [{ ...device, name: 'qa' }] },
    );
    const env = { KSCTL_HOME: suite.configDir, KSCTL_PERSISTOR_PATH: path };
    const run = (args: string[]) => suite.ksctl(args, { env });
    return { run, first: await run(argv) };
  }

  it('4001 on create, times=1: the fingerprint is sent and the create goes through', async () => {
    const { run, first } = await cli(['keys', 'create', '-o', 'json']);
    expect(first.code, first.stderr).toBe(0);
    await setFaults([
      { path: KEY_PATH.create, code: DeviceErrorCode.fingerprintUnknown, times: 1 },
    ]);
    const before = (await suite.mock.journal()).length;
    const again = await run(['keys', 'create', '-o', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toHaveLength(1);
    // The 4001, the create sent again with the full fingerprint, the fetch of the new key.
    const paths = (await suite.mock.journal()).slice(before).map((r) => r.path);
    expect(paths).toEqual([KEY_PATH.create, KEY_PATH.create, KEY_PATH.fetch]);
    expect(await faultsInForce()).toEqual([]);
    // Unlimited, the retry meets it too: the service asked twice (exit 7).
    await setFaults([{ path: KEY_PATH.create, code: DeviceErrorCode.fingerprintUnknown }]);
    const twice = await run(['keys', 'create']);
    expect(twice.code).toBe(7);
    expect(twice.stderr).toContain(causeOf(4001).hint);
  });

  it('4004 on fetch: exit 5 naming the key, as for a key that does not exist', async () => {
    const { run, first } = await cli(['keys', 'create', '-o', 'json']);
    const { id } = (JSON.parse(first.stdout) as { id: string }[])[0]!;
    await setFaults([{ path: '/v2.4/keys/fetch', code: DeviceErrorCode.keyNotFound, times: 1 }]);
    const fetched = await run(['keys', 'fetch', id]);
    expect(fetched.code).toBe(5);
    expect(fetched.stdout).toBe('');
    expect(fetched.stderr).toContain(`key "${id}": ${causeOf(4004).message}${INJECTED}`);
    expect(tsvRows((await run(['keys', 'fetch', id])).stdout).map((r) => r[0])).toEqual([id]);
  });

  it('4202 on modify: exit 6, the stale-key explanation, the key unchanged', async () => {
    const { run, first } = await cli([
      'keys',
      'create',
      '--mutable-attr',
      'stage=draft',
      '-o',
      'json',
    ]);
    const { id } = (JSON.parse(first.stdout) as { id: string }[])[0]!;
    await setFaults([{ code: DeviceErrorCode.signatureStale, times: 1 }]);
    const modified = await run(['keys', 'modify', id, '--attr', 'stage=review']);
    expect(modified.code).toBe(6);
    expect(modified.stderr).toContain(
      `key ${id} changed since ksctl fetched it: its mutable attributes were set again (still stage=draft); nothing was changed`,
    );
    const now = JSON.parse((await run(['keys', 'fetch', id, '-o', 'json'])).stdout);
    expect(now[0].mutableAttributes).toEqual({ stage: ['draft'] });
  });

  it('4020 on create: exit 3 naming the ref, nothing created', async () => {
    const { first } = await cli(['keys', 'create', '--ref', 'docs']);
    expect(first.code).toBe(0);
    const keys = (await suite.mock.call('GET', '/_mock/keys')).body;
    await setFaults([{ code: DeviceErrorCode.markingValueRefused, path: KEY_PATH.create }]);
    const { first: refused } = await cli(['keys', 'create', '--ref', 'docs']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(`ref "docs": ${causeOf(4020).message}${INJECTED}`);
    expect((await suite.mock.call('GET', '/_mock/keys')).body).toEqual(keys);
  });
});

describe('rules that could never fire are refused', () => {
  const cases = [
    ['code=4001,status=500', 'code 4001 is a device error, which answers with its own status'],
    [
      'code=4001,path=/v2/dev/markings',
      'code 4001 is a device error, which fires only on the device endpoints (/v2.3/keys/create, /v2.3/keys/fetch, /v2.4/keys/create, /v2.4/keys/fetch, /v2.4/keys/modify, /v2.4/resources, /v2.4/messages); path "/v2/dev/markings" matches none of them',
    ],
  ];

  it.each(cases)('--fault %s: exit 2, nothing started', async (rule, problem) => {
    const result = await suite.ksctl(['mock', 'serve', '--port', '0', '--fault', rule]);
    expect(result.code).toBe(2);
    // The words, whatever lines the message is broken over.
    const said = result.stderr.replace(/\s+/g, ' ');
    expect(said).toMatch(new RegExp(`^error: --fault "${rule}": ${escape(problem)}`));
  });

  it.each(cases)('mock faults set %s: exit 2; PUT /_mock/faults: 400', async (rule, problem) => {
    const result = await suite.ksctl(['mock', 'faults', 'set', rule]);
    expect(result.code).toBe(2);
    expect(result.stderr.replace(/\s+/g, ' ')).toContain(problem);
    const [, code, key, value] = /^code=(\d+),(\w+)=(.+)$/.exec(rule)!;
    const raw = { code: Number(code), [key!]: key === 'status' ? Number(value) : value };
    const answer = await suite.mock.call('PUT', '/_mock/faults', [raw]);
    expect(answer.status).toBe(400);
    expect((answer.body as { error: { message: string } }).error.message).toContain(problem);
    expect(await faultsInForce()).toEqual([]);
  });

  it('a device code rule without a path leaves the markings API alone', async () => {
    await setFaults([{ code: DeviceErrorCode.fingerprintUnknown, times: 1 }]);
    const listed = await suite.ksctl(['markings', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(await faultsInForce()).toEqual([{ code: 4001, times: 1 }]);
  });
});

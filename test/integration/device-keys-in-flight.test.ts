/**
 * Device keys at load-test speed (issue 26): one device's client with several round trips in
 * flight at once, over the connections it keeps, creates and fetches back every key; the mock's
 * journal still shows each request with its body and device; and a client whose attempt runs out
 * of time, or whose caller gives up, still says so.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api/client.js';
import { openEnvelope } from '../../src/common/device/crypto.js';
import { DeviceClient } from '../../src/client/device/client.js';
import { parseCid } from '../../src/common/device/cid.js';
import type { KsctlError } from '../../src/common/errors.js';
import type { JournalEntryWithBodies, RequestJournal } from '../../src/common/mock/wire.js';
import { mockSuite } from '../helpers/mock-suite.js';
import { addDevice, deviceHttp } from './device-keys-fixtures.js';

const suite = mockSuite();
const http = deviceHttp();
afterAll(() => http.close());

const one = [{ ref: 'load', count: 1, attributes: { classification: ['low'] } }];

describe('one device, several round trips in flight', () => {
  it('creates and fetches back every key, in each dialect', async () => {
    for (const version of ['2.4', '2.3'] as const) {
      const client = new DeviceClient(addDevice(suite.mock), http, undefined, version);
      const trips = await Promise.all(
        Array.from({ length: 24 }, async () => {
          const created = await client.create(one);
          const fetched = await client.fetch([created.keys[0]!.id]);
          return { created: created.keys[0]!, fetched: fetched.keys[0]! };
        }),
      );
      expect(new Set(trips.map((t) => t.created.id)).size).toBe(24);
      for (const { created, fetched } of trips) {
        expect(fetched.id).toBe(created.id);
        expect(fetched.key.equals(created.key)).toBe(true);
        expect(fetched.attributes).toEqual({ classification: ['low'] });
      }
    }
  });

  it('the journal shows each request with its body, its cid and its device', async () => {
    const device = addDevice(suite.mock);
    const client = new DeviceClient(device, http);
    // The fingerprint made known first (its exchange is journaled too).
    await client.fetch([]);
    const before = suite.mock.server.state.journal.total;
    await Promise.all(Array.from({ length: 6 }, () => client.create(one)));
    const answer = await suite.mock.call(
      'GET',
      '/_mock/requests?bodies=true&path=/v2.4/keys/create',
    );
    const mine = (answer.body as RequestJournal).requests.filter(
      (r) => r.device === device.deviceId && r.id > before,
    ) as JournalEntryWithBodies[];
    expect(mine).toHaveLength(6);
    for (const entry of mine) {
      expect(entry.status).toBe(200);
      expect(entry.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Math.abs(Date.parse(entry.time) - Date.now())).toBeLessThan(60_000);
      const sent = JSON.parse(entry.request.body!) as { cid: string; envelope: string };
      // The body the client wrote is the JSON of {cid, envelope}, as JSON.stringify writes it.
      expect(entry.request.body).toBe(JSON.stringify({ cid: sent.cid, envelope: sent.envelope }));
      expect(sent.cid).toBe(entry.cid);
      expect(parseCid(sent.cid)?.deviceId).toBe(device.deviceId);
      const opened = openEnvelope(device.aesCdIdcKey, sent.cid, sent.envelope);
      expect(opened.ok && (opened.content as { data: unknown }).data).toMatchObject({
        'protection-keys': [{ ref: 'load', qty: 1 }],
      });
    }
  });
});

describe('a device request that gives up', () => {
  it('times out as "timed out", and a caller that aborts gets its own reason', async () => {
    const device = addDevice(suite.mock);
    suite.mock.server.state.faults.replace([]);
    const slow = await import('node:http').then(({ createServer }) =>
      createServer(() => {
        // Never answers.
      }),
    );
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const port = (slow.address() as { port: number }).port;
    const server = `http://127.0.0.1:${port}`;
    const quick = new ApiClient({ auth: { kind: 'none' }, retries: 0, timeoutMs: 100 });
    try {
      const timedOut = await new DeviceClient({ ...device, server }, quick)
        .create(one)
        .catch((error: unknown) => error as KsctlError);
      expect((timedOut as KsctlError).message).toMatch(/timed out/);

      const controller = new AbortController();
      const reason = new Error('the caller gave up');
      const pending = new DeviceClient({ ...device, server }, quick, controller.signal)
        .create(one)
        .catch((error: unknown) => error);
      setTimeout(() => controller.abort(reason), 20);
      expect(await pending).toBe(reason);
    } finally {
      await quick.close();
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});

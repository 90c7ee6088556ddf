/**
 * `ksctl mock faults|reset` against a running (in-process) mock, found through the `mock` context
 * or KSCTL_BASE_URL, and the mock's admin endpoints they use.
 */
import { describe, expect, it } from 'vitest';
import { mockCliSuite, mockEnv, tsvRows } from '../helpers/cli.js';
import { startMock } from '../helpers/mock.js';
import { addDevice, postRaw, sealedBody } from './device-keys-fixtures.js';

const suite = mockCliSuite({ seed: { markings: [{ name: 'seeded' }] } });
const { ksctl } = suite;

describe('ksctl mock faults', () => {
  it('set, list, fire, spend, clear', async () => {
    const set = await ksctl([
      'mock',
      'faults',
      'set',
      'status=503,method=GET,path=/v2/dev/markings*,times=2',
      '{"status":429,"probability":0.5}',
    ]);
    expect(set.code).toBe(0);
    expect(set.stderr).toBe('set 2 fault rules\n');
    expect(tsvRows(set.stdout)).toEqual([
      ['GET', '/v2/dev/markings*', '503', '', '1', '2'],
      ['*', '*', '429', '', '0.5', 'unlimited'],
    ]);
    await suite.mock.setFaults([
      { status: 500, method: 'GET', path: '/v2/dev/markings', times: 1 },
    ]);
    expect((await ksctl(['markings', 'list'])).code).toBe(7);
    expect((await ksctl(['markings', 'list'])).code).toBe(0);
    expect(JSON.parse((await ksctl(['mock', 'faults', 'list', '-o', 'json'])).stdout)).toEqual([]);
    await ksctl(['mock', 'faults', 'set', 'status=500']);
    const cleared = await ksctl(['mock', 'faults', 'clear']);
    expect(cleared.stderr).toBe('cleared the fault rules\n');
    expect((await ksctl(['markings', 'list'])).code).toBe(0);
  });

  it('an invalid rule is a usage error, refused before anything is sent (exit 2)', async () => {
    const result = await ksctl(['mock', 'faults', 'set', 'status=200']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /status must be an HTTP error status \(400-599\); nothing was sent/,
    );
    expect(await suite.mock.journal()).toEqual([]);
  });

  it('the admin endpoints need the dev token (403 for another principal, 401 without one)', async () => {
    const other = await startMock({ seed: { tokens: [{ token: 'all-scopes', scopes: ['*'] }] } });
    try {
      const env = { ...mockEnv(other, suite.configDir), KSCTL_TOKEN: 'all-scopes' };
      expect((await ksctl(['mock', 'faults', 'list'], { env })).code).toBe(4);
      expect(
        (await ksctl(['mock', 'faults', 'list'], { env: { ...env, KSCTL_TOKEN: undefined } })).code,
      ).toBe(4);
      expect((await ksctl(['markings', 'list'], { env })).code).toBe(0);
    } finally {
      await other.close();
    }
  });
});

describe('ksctl mock reset', () => {
  it('back to the seed; needs --yes off a terminal', async () => {
    await ksctl(['markings', 'create', 'temporary']);
    expect((await ksctl(['mock', 'reset'])).code).toBe(2);
    expect(tsvRows((await ksctl(['markings', 'list'])).stdout).map((r) => r[0])).toEqual([
      'seeded',
      'temporary',
    ]);
    const reset = await ksctl(['mock', 'reset', '--yes']);
    expect(reset).toMatchObject({ code: 0, stderr: 'the mock is back to its start-up state\n' });
    expect(tsvRows((await ksctl(['markings', 'list'])).stdout).map((r) => r[0])).toEqual([
      'seeded',
    ]);
  });
});

describe('ksctl mock messages', () => {
  it('lists what devices logged with /v2.4/messages, newest last', async () => {
    const empty = await ksctl(['mock', 'messages', '-o', 'json']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(JSON.parse(empty.stdout)).toEqual([]);
    const device = addDevice(suite.mock);
    const body = sealedBody(device, {
      meta: { hfphash: 'f'.repeat(64), hfp: '{}' },
      data: [{ data: { event: 'open', file: 'a.txt' }, message_type: 'ionic-file-open' }],
    });
    expect((await postRaw(suite.mock, '/v2.4/messages', body)).status).toBe(200);
    const listed = await ksctl(['mock', 'messages']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(tsvRows(listed.stdout)).toEqual([
      [expect.any(String), device.deviceId, 'ionic-file-open', '{"event":"open","file":"a.txt"}'],
    ]);
  });
});

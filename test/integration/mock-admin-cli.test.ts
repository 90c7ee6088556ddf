/**
 * `ksctl mock faults|reset|tokens|messages` against a running (in-process) mock, found through
 * the `mock` context or KSCTL_BASE_URL (which outrank it, as does --base-url), and the mock's
 * admin endpoints they use. A bad fault rule gets the same answer wherever it is given.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { mockEnv, tsvRows } from '../helpers/cli.js';
import { mockContextSuite, mockSuite } from '../helpers/mock-suite.js';
import { startMock, type TestMock } from '../helpers/mock.js';
import { addDevice, postRaw, sealedBody } from './device-keys-fixtures.js';

const suite = mockSuite({ seed: { markings: [{ name: 'seeded' }] } });
const { ksctl } = suite;

/** Nothing listens on port 1 of the loopback interface: connection refused. */
const DEAD_URL = 'http://127.0.0.1:1/v2/dev';

async function markingNames(target: TestMock): Promise<string[]> {
  const { body } = await target.call('GET', '/v2/dev/markings');
  return (body as { Resources: { name: string }[] }).Resources.map((m) => m.name);
}

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

describe('admin commands: --base-url and KSCTL_BASE_URL outrank the mock context', () => {
  const target = mockContextSuite();
  const other = mockSuite();

  beforeEach(async () => {
    expect((await target.mock.call('POST', '/v2/dev/markings', { name: 'kept' })).status).toBe(201);
  });

  it('mock reset --base-url <nothing there> exits 7 and leaves the context mock alone', async () => {
    const result = await target.ksctl(['mock', 'reset', '--yes', '--base-url', DEAD_URL]);
    expect(result.code).toBe(7);
    expect(result.stderr).toMatch(/cannot reach the service at http:\/\/127\.0\.0\.1:1/);
    expect(await markingNames(target.mock)).toEqual(['kept']);
  });

  it('mock tokens --base-url <nothing there> exits 7 and prints no tokens', async () => {
    const result = await target.ksctl([
      'mock',
      'tokens',
      '--user',
      'alice',
      '--base-url',
      DEAD_URL,
    ]);
    expect(result).toMatchObject({ code: 7, stdout: '' });
  });

  it('KSCTL_BASE_URL outranks the context too', async () => {
    const result = await target.ksctl(['mock', 'reset', '--yes'], {
      env: { KSCTL_BASE_URL: DEAD_URL },
    });
    expect(result.code).toBe(7);
    expect(await markingNames(target.mock)).toEqual(['kept']);
  });

  it('mock reset --base-url <another mock> resets that one', async () => {
    await other.mock.call('POST', '/v2/dev/markings', { name: 'gone' });
    const result = await target.ksctl(['mock', 'reset', '--yes', '--base-url', other.mock.baseUrl]);
    expect(result.code).toBe(0);
    expect(await markingNames(other.mock)).toEqual([]);
    expect(await markingNames(target.mock)).toEqual(['kept']);
  });

  it('without either, the mock context is used', async () => {
    expect((await target.ksctl(['mock', 'reset', '--yes'])).code).toBe(0);
    expect(await markingNames(target.mock)).toEqual([]);
  });
});

describe('fault rules: the same bad rule gets the same answer', () => {
  const target = mockContextSuite();
  const bad = 'status=503,path=';
  const problem = 'path must not be empty (leave it out to match every path)';

  it('mock faults set: a usage error (exit 2), nothing sent', async () => {
    const result = await target.ksctl(['mock', 'faults', 'set', bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: fault rule "${bad}": ${problem}; nothing was sent\n`);
    expect(await target.mock.journal()).toEqual([]);
    expect((await target.mock.call('GET', '/_mock/faults')).body).toEqual([]);
  });

  it('mock serve --fault: a usage error (exit 2), nothing started', async () => {
    const before = await target.mockContext();
    const result = await target.ksctl(['mock', 'serve', '--port', '0', '--fault', bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: --fault "${bad}": ${problem}\n`);
    expect(await target.mockContext()).toEqual(before);
  });

  it('in a seed file: invalid input (exit 3)', async () => {
    const seed = join(target.configDir, 'seed.yaml');
    await writeFile(seed, "faults:\n  - status: 503\n    path: ''\n");
    const result = await target.ksctl(['mock', 'serve', '--port', '0', '--seed', seed]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`seed faults[0]: ${problem}`);
  });

  it('a seed file key the mock does not know: exit 3 naming it, nothing started', async () => {
    const seed = join(target.configDir, 'seed.yaml');
    await writeFile(seed, 'markings:\n  - name: colour\n    vales: [red, green]\n');
    const before = await target.mockContext();
    const result = await target.ksctl(['mock', 'serve', '--port', '0', '--seed', seed]);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      `error: seed file ${seed}: markings[0]: unknown key "vales" in marking "colour" (did you mean "values"?)\n`,
    );
    expect(await target.mockContext()).toEqual(before);
  });

  it('in a PUT /_mock/faults body: 400', async () => {
    const answer = await target.mock.call('PUT', '/_mock/faults', [{ status: 503, path: '' }]);
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain(problem);
  });

  it.each([
    [
      'status=503,method=bogus',
      'method "bogus" is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
    ],
    [
      'code=12345',
      'code 12345 is neither a markings error code, an enrollment cause code nor a device error code',
    ],
    ['status=503,times=99999999999999999999', 'times must be at most 9007199254740991'],
  ])('mock faults set %s: exit 2, naming the bad part', async (rule, message) => {
    const result = await target.ksctl(['mock', 'faults', 'set', rule]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(tsvRows((await target.ksctl(['mock', 'faults', 'list'])).stdout)).toEqual([]);
  });
});

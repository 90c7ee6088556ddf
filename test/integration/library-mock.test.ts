/**
 * `startMock()` of `ksctl/mock` (issue 20): the mock server from code, with its admin endpoints as
 * methods, each mock with a state of its own.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MarkingsClient } from '../../src/client/lib/index.js';
import { type Mock, startMock } from '../../src/client/lib/mock.js';
import { libraryMocks, smallKeyServerKey } from '../helpers/library-mocks.js';
import { tempDirs } from '../helpers/temp.js';

const temp = tempDirs();
const mocks = libraryMocks();
const mock = mocks.start;

function client(m: Mock, retries = 0): MarkingsClient {
  return new MarkingsClient({ baseUrl: m.baseUrl, token: m.token, retries });
}

async function names(m: Mock): Promise<string[]> {
  const c = client(m);
  try {
    return (await c.list({ valueLimit: 0 }).toArray()).map((marking) => marking.name);
  } finally {
    await c.close();
  }
}

afterAll(async () => {
  await mocks.closeAll();
  await temp.removeAll();
});

describe('startMock', () => {
  it('listens on a free loopback port and says where, as `mock serve --json` does', async () => {
    const m = await mock({ devToken: 'ksdev.library' });
    expect(m.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(m.baseUrl).toBe(`${m.url}/v2/${m.tenantId}`);
    expect(m.apiUrl).toBe(m.url);
    expect(m.enrollmentUrl.startsWith(m.url)).toBe(true);
    expect(m.keyspace).toBe('ABcd');
    expect(m.token).toBe('ksdev.library');
    expect(m.users.map((u) => [u.name, u.enabled])).toEqual([
      ['alice', true],
      ['bob', false],
    ]);
    const health = await fetch(`${m.url}/_mock/health`);
    expect(await health.json()).toEqual({ status: 'ok' });
  });

  it('gives every mock its own state, token and port', async () => {
    const [a, b] = await Promise.all([mock(), mock()]);
    expect(a.url).not.toBe(b.url);
    expect(a.token).not.toBe(b.token);
    const c = client(a);
    await c.create({ name: 'only-in-a' });
    await c.close();
    expect(await names(a)).toEqual(['only-in-a']);
    expect(await names(b)).toEqual([]);
    a.faults.set([{ path: '/v2/*', status: 503 }]);
    expect(b.faults.list()).toEqual([]);
  });

  it('seeds from an object or a file, and reset() goes back to the seed', async () => {
    const dir = await temp.make();
    const file = join(dir, 'seed.yaml');
    await writeFile(file, 'markings:\n  - name: from-file\n    values: [a, b]\n');
    const fromFile = await mock({ seed: file });
    expect(await names(fromFile)).toEqual(['from-file']);

    const m = await mock({ seed: { markings: [{ name: 'seeded' }] } });
    const c = client(m);
    await c.create({ name: 'added' });
    expect(await names(m)).toEqual(['added', 'seeded']);
    const token = m.token;
    m.reset();
    expect(await names(m)).toEqual(['seeded']);
    expect(m.token).toBe(token);
    await c.close();
  });

  it('refuses bad options with typed errors before it listens', async () => {
    await expect(startMock({ seed: { marking: [] } as never })).rejects.toMatchObject({
      code: 'E_INPUT',
      message: 'the seed: unknown key "marking" (did you mean "markings"?)',
    });
    await expect(startMock({ seed: '/nonexistent/seed.yaml' })).rejects.toMatchObject({
      code: 'E_INPUT',
    });
    await expect(startMock({ latency: -1 })).rejects.toMatchObject({ code: 'E_USAGE' });
    await expect(startMock({ latency: { min: 20, max: 10 } })).rejects.toMatchObject({
      code: 'E_USAGE',
    });
    await expect(startMock({ port: 70000 })).rejects.toMatchObject({ code: 'E_USAGE' });
    const taken = Number(new URL((await mock()).url).port);
    await expect(startMock({ port: taken })).rejects.toMatchObject({
      code: 'E_USAGE',
      message: `port ${taken} on 127.0.0.1 is already in use`,
    });
    await expect(startMock({ faults: [{ status: 'x' } as never] })).rejects.toMatchObject({
      code: 'E_INPUT',
      message: expect.stringContaining('faults[0]'),
    });
  });

  it('faults: set answers the injected status, a bad rule changes nothing, clear ends them', async () => {
    const m = await mock();
    const c = client(m);
    m.faults.set([{ method: 'GET', path: '/v2/*', status: 503, times: 1 }]);
    await expect(c.get('anything')).rejects.toMatchObject({ code: 'E_SERVICE', status: 503 });
    expect(() => m.faults.set([{ path: 'no-slash' }])).toThrow(/must start with \//);
    m.faults.set([{ path: '/v2/*', status: 500 }]);
    expect(() => m.faults.set({} as never)).toThrow(/array/);
    expect(m.faults.list()).toEqual([{ path: '/v2/*', status: 500 }]);
    m.faults.clear();
    expect(m.faults.list()).toEqual([]);
    await expect(c.list().toArray()).resolves.toEqual([]);
    await c.close();
  });

  it('journals the requests it answered', async () => {
    const m = await mock();
    await names(m);
    const seen = m.requests().map((r) => `${r.method} ${r.path} ${r.status}`);
    expect(seen.some((line) => /^GET \/v2\/dev\/markings\?.* 200$/.test(line))).toBe(true);
  });

  it('gives the requests with their bodies, redacted, and describes one by id', async () => {
    const m = await mock();
    const c = client(m);
    await c.create({ name: 'from-code', detail: { description: 'kept' } });
    await c.close();
    const [created] = m.requests({ bodies: true, method: 'POST', side: 'markings' });
    expect(created!.status).toBe(201);
    expect(JSON.parse(created!.request.body)).toMatchObject({ name: 'from-code' });
    expect(created!.request.headers.authorization).toBe('Bearer [redacted]');
    expect(JSON.parse(created!.response.body)).toMatchObject({ name: 'from-code' });
    expect(JSON.stringify(m.requests({ bodies: true }))).not.toContain(m.token);
    // Without bodies, the entries as before, with their ids and sides.
    const plain = m.requests({ newestFirst: true, limit: 1 });
    expect(plain[0]).not.toHaveProperty('request');
    expect(plain[0]!.id).toBeGreaterThanOrEqual(created!.id);

    const detail = await m.describeRequest(created!.id);
    expect(detail!.ksctl).toContain('ksctl api POST /markings --input -');
    expect(detail!.curl).toContain('"Authorization: Bearer $KSCTL_TOKEN"');
    expect(JSON.stringify(detail)).not.toContain(m.token);
    await expect(m.describeRequest(1_000_000)).resolves.toBeUndefined();
    await expect(m.describeRequest(0)).rejects.toMatchObject({ code: 'E_USAGE' });
  });

  it('mints single-use token pairs, and says what is wrong with a request for one', async () => {
    const m = await mock();
    const pair = m.mintTokens('alice');
    expect(pair.stoken).toMatch(/^I\./);
    expect(pair.uidauth).toMatch(/^,I/);
    expect(m.mintTokens('alice').stoken).not.toBe(pair.stoken);
    expect(() => m.mintTokens('')).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    expect(() => m.mintTokens('alice', { keyspace: 'ZZzz' })).toThrow(
      expect.objectContaining({ code: 'E_NOT_FOUND' }),
    );
    expect(() => m.mintTokens('alice', { ttlSeconds: -1 })).toThrow(
      expect.objectContaining({ code: 'E_USAGE' }),
    );
    expect(m.devices()).toEqual([]);
    expect(m.keys()).toEqual([]);
  });

  it('keeps its state in a directory across a restart', async () => {
    const state = await temp.make();
    const first = await startMock({
      state,
      devToken: 'ksdev.kept',
      keyServerKey: smallKeyServerKey,
    });
    const c = client(first);
    await c.create({ name: 'kept' });
    await c.close();
    await first.close();
    await first.close();
    const second = await mock({ state, devToken: 'ksdev.kept' });
    expect(await names(second)).toEqual(['kept']);
  });
});

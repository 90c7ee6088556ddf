/**
 * Regression tests for bugs found in the markings side, each named after the bug.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { HttpMarkingsApi } from '../../src/markings/http-markings-api.js';
import { ConflictError, ServiceError } from '../../src/errors.js';
import { conversationIdOf, mockEnv, runCli } from '../helpers/cli.js';
import { startMock, type TestMock } from '../helpers/mock.js';
import { tempDirs } from '../helpers/temp.js';

let mock: TestMock;
let client: ApiClient;
let api: HttpMarkingsApi;

beforeAll(async () => {
  mock = await startMock();
  client = new ApiClient({ baseUrl: mock.baseUrl, auth: { kind: 'bearer', token: mock.token } });
  api = new HttpMarkingsApi(client);
});
afterAll(async () => {
  await client.close();
  await mock.close();
});
beforeEach(() => mock.reset());

async function names(): Promise<string[]> {
  const out: string[] = [];
  for await (const m of api.listMarkings({ valueLimit: 0 })) out.push(m.name);
  return out;
}

describe('mock: a rename in Create or Update Multiple dropped the name another item had just taken', () => {
  it('swapping two marking names keeps both findable by name, and names unique', async () => {
    const a = await api.createMarking({ name: 'a' });
    const b = await api.createMarking({ name: 'b' });
    await api.createOrUpdateMarkings([
      { id: a.id, name: 'b' },
      { id: b.id, name: 'a' },
    ]);
    expect((await api.resolveMarking('b')).id).toBe(a.id);
    expect((await api.resolveMarking('a')).id).toBe(b.id);
    await expect(api.createMarking({ name: 'b' })).rejects.toBeInstanceOf(ConflictError);
    expect(await names()).toEqual(['a', 'b']);
  });

  it('a new marking created before the item that frees its name stays findable', async () => {
    const old = await api.createMarking({ name: 'classification' });
    await api.createOrUpdateMarkings([
      { name: 'classification', public: true },
      { id: old.id, name: 'old-classification' },
    ]);
    expect((await api.resolveMarking('classification')).public).toBe(true);
    expect((await api.resolveMarking('old-classification')).id).toBe(old.id);
    await expect(api.createMarking({ name: 'classification' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(await names()).toEqual(['classification', 'old-classification']);
  });
});

describe('client: the per-request timeout was not enforced under a second, nor over a trickling body', () => {
  const dirs = tempDirs();
  afterAll(() => dirs.removeAll());

  it('--timeout 0.1 against a service that answers after 400 ms fails with exit 7', async () => {
    const slow = await startMock({ latency: { minMs: 400, maxMs: 400 } });
    try {
      const result = await runCli(['markings', 'list', '--timeout', '0.1'], {
        env: mockEnv(slow, await dirs.make()),
      });
      expect(result.code).toBe(7);
      expect(result.stderr).toMatch(/list markings: cannot reach the service at .*: timed out/);
    } finally {
      await slow.close();
    }
  });

  it('an answer whose body keeps trickling past the timeout is cut off', async () => {
    let bodyEnded = false;
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      let sent = 0;
      const timer = setInterval(() => {
        sent++;
        if (sent < 15) res.write(' ');
        else {
          clearInterval(timer);
          bodyEnded = true;
          res.end(']');
        }
      }, 40);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const slowClient = new ApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      auth: { kind: 'none' },
      timeoutMs: 200,
      retries: 0,
    });
    try {
      const error = await slowClient.request('GET', '/slow').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).message).toMatch(/timed out/);
      // The client gave up while the server was still sending the body.
      expect(bodyEnded).toBe(false);
    } finally {
      await slowClient.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('api: a marking or value not found by name printed no conversation id', () => {
  const dirs = tempDirs();
  afterAll(() => dirs.removeAll());

  it.each([
    [['markings', 'get', 'nope'], /marking "nope" not found/],
    [['markings', 'values', 'get', 'classification', 'nope'], /value "nope" not found/],
  ])('%j names the conversation of the lookup', async (argv, message) => {
    await api.createMarking({ name: 'classification' });
    const result = await runCli(argv, { env: mockEnv(mock, await dirs.make()) });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(message);
    const journal = await mock.journal();
    expect(conversationIdOf(result.stderr)).toBe(journal.at(-1)!.cid);
  });
});

describe('cli: values add stopped at a failing value without saying which values went in', () => {
  const dirs = tempDirs();
  it('names the values added before the failure and exits with the failure', async () => {
    await api.createMarking({ name: 'region', detail: { values: [{ name: 'us' }] } });
    const result = await runCli(['markings', 'values', 'add', 'region', 'eu', 'us', 'apac'], {
      env: mockEnv(mock, await dirs.make()),
    });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('added eu to marking region before the failure');
    const values = [];
    for await (const v of api.listValues((await api.resolveMarking('region')).id)) {
      values.push(v.name);
    }
    expect(values).toEqual(['eu', 'us']);
  });
});

describe('mock: two value entries matching one existing value (by name and by id) were both applied to it', () => {
  it('answers 400 naming both entries and changes nothing', async () => {
    const m = await api.createMarking({ name: 'tier', detail: { values: [{ name: 'gold' }] } });
    const gold = m.detail.values![0]!;
    const error = await api
      .updateMarking(m.id, {
        detail: { values: [{ name: 'gold' }, { id: gold.id, name: 'platinum' }] },
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400 });
    expect((error as { details: { path: string }[] }).details[0]!.path).toBe('detail.values[1]');
    const after = await api.getMarking(m.id);
    expect(after.detail.values!.map((v) => v.name)).toEqual(['gold']);
    expect(after._version).toBe(m._version);
  });
});

describe('mock: a new item clashing with a rename in the same request was said to exist already', () => {
  it('names the item whose new name it clashes with', async () => {
    const old = await api.createMarking({ name: 'old' });
    const error = await api
      .createOrUpdateMarkings([{ id: old.id, name: 'taken' }, { name: 'taken' }])
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 409 });
    expect((error as { details: { message: string }[] }).details[0]!.message).toBe(
      '"taken" is also the new name of item 0',
    );
    expect(await names()).toEqual(['old']);
  });
});

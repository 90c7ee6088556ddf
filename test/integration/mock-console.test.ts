/**
 * The console's server side (src/mock/routes/console/): the sign-in link and the session cookie, the
 * CSRF defence, the JSON API, the event stream and `console: false`. Sent with node:http, which
 * lets a test set Origin and Cookie as a browser would. The pages themselves are tested in a
 * browser elsewhere.
 */
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEV_TOKEN, startMock, type TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';
import { ROOT } from '../helpers/spawn.js';
import { mockEnv, runCli } from '../helpers/cli.js';
import { sleep } from '../../src/common/sleep.js';
import { DeviceClient } from '../../src/client/device/client.js';
import { addDevice, deviceHttp } from './device-keys-fixtures.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(
  url: string,
  method: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Raw> {
  return new Promise<Raw>((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The session cookie a sign-in answer sets, as a browser would send it back. */
function cookieOf(answer: Raw): string {
  const set = answer.headers['set-cookie'];
  expect(set).toBeDefined();
  return set![0]!.split(';')[0]!;
}

/** The session cookie's name on a mock: browsers keep cookies by host, not by port. */
const cookieName = (mock: TestMock): string => `ksctl_console_${new URL(mock.info.url).port}`;

interface Signed {
  cookie: string;
  csrf: string;
}

async function signIn(mock: TestMock): Promise<Signed> {
  const link = await send(`${mock.info.url}/_mock/console/links`, 'POST', {
    authorization: `Bearer ${DEV_TOKEN}`,
  });
  const { consoleUrl } = JSON.parse(link.body) as { consoleUrl: string };
  const cookie = cookieOf(await send(consoleUrl, 'GET'));
  const session = await send(`${mock.info.url}/_mock/console/api/session`, 'GET', { cookie });
  return { cookie, csrf: (JSON.parse(session.body) as { csrf: string }).csrf };
}

/** A console API call as the page makes it: cookie, CSRF token, its own origin, JSON. */
function api(mock: TestMock, who: Signed, method: string, path: string, body?: unknown) {
  return send(
    `${mock.info.url}/_mock/console/api/${path}`,
    method,
    {
      cookie: who.cookie,
      'x-ksctl-csrf': who.csrf,
      origin: mock.info.url,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body === undefined ? undefined : JSON.stringify(body),
  );
}

const READS = [
  'session',
  'overview',
  'stats',
  'markings',
  'devices',
  'devices/nope',
  'requests',
  'requests/1',
  'events',
  'faults',
  'outbox',
];
const CHANGES: [method: string, path: string, body: unknown][] = [
  ['POST', 'markings', { name: 'classification' }],
  ['PUT', 'markings/m1', { name: 'classification' }],
  ['DELETE', 'markings/m1', undefined],
  ['POST', 'faults', { status: 503 }],
  ['DELETE', 'faults/0', undefined],
  ['DELETE', 'faults', undefined],
  ['POST', 'tokens', { user: 'alice' }],
];

describe('the console', () => {
  const suite = mockSuite();
  let mock: TestMock;
  beforeAll(() => {
    mock = suite.mock;
  });

  it('signs a browser in once with the link in the mock info, with a strict HttpOnly cookie', async () => {
    expect(mock.info.consoleUrl).toMatch(
      new RegExp(`^${mock.info.url}/_mock/console/login\\?code=[\\w-]{22}$`),
    );
    const first = await send(mock.info.consoleUrl!, 'GET');
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/_mock/console/');
    const set = (first.headers['set-cookie'] as string[])[0]!;
    expect(set).toMatch(new RegExp(`^${cookieName(mock)}=[\\w-]{40,};`));
    expect(set.split('; ').slice(1).sort()).toEqual([
      'HttpOnly',
      'Path=/_mock/',
      'SameSite=Strict',
    ]);
    const overview = await send(`${mock.info.url}/_mock/console/api/overview`, 'GET', {
      cookie: cookieOf(first),
    });
    expect(overview.status).toBe(200);

    const again = await send(mock.info.consoleUrl!, 'GET');
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe('/_mock/console/?signin=expired');
    expect(again.headers['set-cookie']).toBeUndefined();
    const unknown = await send(`${mock.info.url}/_mock/console/login?code=guessed`, 'GET');
    expect(unknown.headers.location).toBe('/_mock/console/?signin=expired');
  });

  it('answers every API endpoint 401 without a session, and never names the dev token', async () => {
    for (const path of READS) {
      const answer = await send(`${mock.info.url}/_mock/console/api/${path}`, 'GET');
      expect({ path, status: answer.status }).toEqual({ path, status: 401 });
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 40100 } });
    }
    for (const [method, path, body] of CHANGES) {
      const answer = await send(
        `${mock.info.url}/_mock/console/api/${path}`,
        method,
        { 'content-type': 'application/json', cookie: `${cookieName(mock)}=forged` },
        JSON.stringify(body),
      );
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 401 });
    }
    const who = await signIn(mock);
    const overview = await api(mock, who, 'GET', 'overview');
    expect(overview.body).not.toContain(DEV_TOKEN);
  });

  it('refuses 403 a change without the CSRF header, with a wrong one or from another origin', async () => {
    const who = await signIn(mock);
    for (const [method, path, body] of CHANGES) {
      const url = `${mock.info.url}/_mock/console/api/${path}`;
      const json = { 'content-type': 'application/json', cookie: who.cookie };
      const text = body === undefined ? undefined : JSON.stringify(body);
      const without = await send(url, method, json, text);
      const wrong = await send(url, method, { ...json, 'x-ksctl-csrf': 'x'.repeat(43) }, text);
      const foreign = await send(
        url,
        method,
        { ...json, 'x-ksctl-csrf': who.csrf, origin: 'http://evil.example' },
        text,
      );
      expect({ method, path, statuses: [without.status, wrong.status, foreign.status] }).toEqual({
        method,
        path,
        statuses: [403, 403, 403],
      });
    }
    // Nothing happened.
    expect(mock.server.state.faults.list()).toEqual([]);
    expect((await api(mock, who, 'GET', 'markings')).body).toContain('"totalResults":0');
  });

  it('signs in with the dev token through the form, not with a wrong one or from another origin', async () => {
    const login = `${mock.info.url}/_mock/console/login`;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const wrong = await send(login, 'POST', form, 'token=ksdev.wrong');
    expect(wrong.status).toBe(303);
    expect(wrong.headers.location).toBe('/_mock/console/?signin=failed');
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const foreign = await send(
      login,
      'POST',
      { ...form, origin: 'http://evil.example' },
      `token=${DEV_TOKEN}`,
    );
    expect(foreign.status).toBe(403);
    expect(foreign.headers['set-cookie']).toBeUndefined();
    // An opaque origin is not the mock's either.
    const opaque = await send(login, 'POST', { ...form, origin: 'null' }, `token=${DEV_TOKEN}`);
    expect(opaque.status).toBe(403);
    expect(opaque.headers['set-cookie']).toBeUndefined();
    // A plain HTML form, posted by the browser without any script.
    const plain = await send(login, 'POST', form, `token=${encodeURIComponent(DEV_TOKEN)}`);
    expect(plain.status).toBe(303);
    expect(plain.headers.location).toBe('/_mock/console/');
    cookieOf(plain);
    const right = await send(
      login,
      'POST',
      { ...form, origin: mock.info.url },
      `token=${encodeURIComponent(DEV_TOKEN)}`,
    );
    expect(right.status).toBe(303);
    expect(right.headers.location).toBe('/_mock/console/');
    // What lets a browser name its origin when it posts the form: the page's referrer policy.
    expect(right.headers['referrer-policy']).toBe('same-origin');
    const cookie = cookieOf(right);
    expect(
      (await send(`${mock.info.url}/_mock/console/api/faults`, 'GET', { cookie })).status,
    ).toBe(200);
    const out = await send(`${mock.info.url}/_mock/console/logout`, 'POST', { cookie });
    expect(out.status).toBe(303);
    expect(
      (await send(`${mock.info.url}/_mock/console/api/faults`, 'GET', { cookie })).status,
    ).toBe(401);
  });

  it('makes fresh sign-in links only for the dev token', async () => {
    const links = `${mock.info.url}/_mock/console/links`;
    expect((await send(links, 'POST')).status).toBe(401);
    expect((await send(links, 'POST', { authorization: 'Bearer ksdev.wrong' })).status).toBe(401);
    const made = await send(links, 'POST', { authorization: `Bearer ${DEV_TOKEN}` });
    expect(made.status).toBe(201);
    const { consoleUrl } = JSON.parse(made.body) as { consoleUrl: string };
    expect(consoleUrl).not.toBe(mock.info.consoleUrl);
    expect((await send(consoleUrl, 'GET')).headers.location).toBe('/_mock/console/');
  });

  it('serves the page with a Content-Security-Policy, and the page has no inline script', async () => {
    const page = await send(`${mock.info.url}/_mock/console/`, 'GET');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    // Not no-referrer: under it a browser sends `Origin: null` with the sign-in form's POST.
    expect(page.headers['referrer-policy']).toBe('same-origin');
    // No cross-origin reading of the console, whatever the mock's CORS for the API.
    const api = await send(`${mock.info.url}/_mock/console/api/session`, 'GET', {
      origin: 'http://evil.example',
    });
    expect(api.headers['access-control-allow-origin']).toBeUndefined();

    const html = readFileSync(join(ROOT, 'console', 'index.html'), 'utf8');
    expect(page.body).toBe(html);
    for (const script of html.match(/<script\b[^>]*>[\s\S]*?<\/script>/gi) ?? []) {
      expect(script).toMatch(/^<script\b[^>]*\bsrc=/i);
      expect(script).toMatch(/>\s*<\/script>$/i);
    }
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/javascript:/i);
  });

  it('serves the files under assets/ with their types, and nothing outside them', async () => {
    const css = await send(`${mock.info.url}/_mock/console/assets/app.css`, 'GET');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    for (const path of [
      'assets/../index.html',
      'assets/%2e%2e/%2e%2e/package.json',
      'assets/..%2f..%2fpackage.json',
      'assets/.hidden.css',
      'assets/vendor/nope.js',
      // No vendored library is served: the charts are drawn by console/assets/charts.js.
      'assets/vendor/uPlot.iife.min.js',
      'assets/vendor/uPlot.min.css',
      'nope.html',
    ]) {
      const answer = await send(`${mock.info.url}/_mock/console/${path}`, 'GET');
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
    }
  });

  it('creates and edits markings through the API of the tenant, as `ksctl markings get` then shows them', async () => {
    const who = await signIn(mock);
    const created = await api(mock, who, 'POST', 'markings', {
      name: 'classification',
      detail: { values: [{ name: 'secret' }] },
    });
    expect(created.status).toBe(201);
    const { id } = JSON.parse(created.body) as { id: string };
    const edited = await api(mock, who, 'PUT', `markings/${id}`, {
      name: 'classification',
      detail: { description: 'edited in the console', values: [{ name: 'secret' }] },
    });
    expect(edited.status).toBe(200);
    const dir = await suite.makeDir();
    const shown = await runCli(['markings', 'get', 'classification', '-o', 'json'], {
      env: mockEnv(mock, dir),
    });
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual(JSON.parse(edited.body));
    expect(JSON.parse(shown.stdout)).toMatchObject({
      detail: { description: 'edited in the console' },
    });

    const listed = await api(mock, who, 'GET', 'markings?name__contains=class&valueLimit=0');
    expect(JSON.parse(listed.body)).toMatchObject({ totalResults: 1 });
    const bad = await api(mock, who, 'GET', 'markings?nope=1');
    const direct = await mock.call('GET', '/v2/dev/markings?nope=1');
    expect(bad.status).toBe(direct.status);
    expect((JSON.parse(bad.body) as { error: { message: string } }).error.message).toBe(
      (direct.body as { error: { message: string } }).error.message,
    );
  });

  it('adds, counts, removes and clears fault rules checked as --fault is', async () => {
    const who = await signIn(mock);
    const bad = await api(mock, who, 'POST', 'faults', { status: 200 });
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('status must be an HTTP error status (400-599)');
    const added = await api(mock, who, 'POST', 'faults', {
      status: 503,
      path: '/v2/dev/markings',
      times: 2,
    });
    expect(added.status).toBe(201);
    expect((await mock.call('GET', '/v2/dev/markings')).status).toBe(503);
    const listed = JSON.parse((await api(mock, who, 'GET', 'faults')).body) as unknown;
    expect(listed).toEqual({
      faults: [{ status: 503, path: '/v2/dev/markings', times: 1, hits: 1 }],
    });
    await api(mock, who, 'POST', 'faults', { status: 429 });
    expect((await api(mock, who, 'DELETE', 'faults/0')).status).toBe(200);
    expect(mock.server.state.faults.list()).toEqual([{ status: 429 }]);
    expect((await api(mock, who, 'DELETE', 'faults/5')).status).toBe(404);
    expect((await api(mock, who, 'DELETE', 'faults')).status).toBe(200);
    expect(mock.server.state.faults.list()).toEqual([]);
  });

  it('mints a token pair with the ksctl enroll line that uses it', async () => {
    const who = await signIn(mock);
    const answer = await api(mock, who, 'POST', 'tokens', { user: 'alice' });
    expect(answer.status).toBe(200);
    const pair = JSON.parse(answer.body) as { stoken: string; uidauth: string; enroll: string };
    expect(pair.enroll).toBe(
      `KSCTL_STOKEN='${pair.stoken}' KSCTL_UIDAUTH='${pair.uidauth}' ksctl enroll --keyspace ABcd --api-url ${mock.info.apiUrl} --enrollment-url ${mock.info.enrollmentUrl}`,
    );
    const missing = await api(mock, who, 'POST', 'tokens', {});
    expect(missing.status).toBe(400);
  });

  it('lists the journal newest first, filtered', async () => {
    const who = await signIn(mock);
    await mock.call('GET', '/v2/dev/markings');
    await mock.call('GET', '/v2/dev/markings/nope');
    const all = JSON.parse((await api(mock, who, 'GET', 'requests?path=/v2/')).body) as {
      total: number;
      requests: { path: string; status: number }[];
    };
    expect(all.requests.map((r) => r.path)).toEqual(['/v2/dev/markings/nope', '/v2/dev/markings']);
    const missing = JSON.parse((await api(mock, who, 'GET', 'requests?status=4xx&path=/v2/')).body);
    expect(missing).toMatchObject({ total: 1, requests: [{ status: 404 }] });
    expect((await api(mock, who, 'GET', 'requests?status=teapot')).status).toBe(400);
  });

  it('streams the API requests as batched server-sent events, not the console’s own', async () => {
    const who = await signIn(mock);
    const events: { event: string; data: unknown }[] = [];
    let text = '';
    let stop = () => undefined as void;
    const opened = new Promise<Record<string, string | string[] | undefined>>((resolve, reject) => {
      const req = request(
        `${mock.info.url}/_mock/console/api/events`,
        { headers: { cookie: who.cookie } },
        (res) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
            let end;
            while ((end = text.indexOf('\n\n')) >= 0) {
              const block = text.slice(0, end);
              text = text.slice(end + 2);
              const event = /^event: (.*)$/m.exec(block)?.[1];
              const data = /^data: (.*)$/m.exec(block)?.[1];
              if (event !== undefined) events.push({ event, data: JSON.parse(data!) as unknown });
            }
          });
          resolve(res.headers);
        },
      );
      req.on('error', reject);
      req.end();
      stop = () => req.destroy();
    });
    try {
      const headers = await opened;
      expect(headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(headers['content-security-policy']).toBeDefined();
      await Promise.all([
        mock.call('GET', '/v2/dev/markings'),
        mock.call('GET', '/v2/dev/markings/nope'),
        mock.call('GET', '/_mock/faults'),
        api(mock, who, 'GET', 'overview'),
        api(mock, who, 'GET', 'stats'),
      ]);
      for (let i = 0; i < 40 && events.length === 0; i++) await sleep(50);
      await sleep(300);
      const paths = events.flatMap((e) => (e.data as { path: string }[]).map((r) => r.path));
      expect(events.every((e) => e.event === 'requests')).toBe(true);
      expect(events.length).toBeLessThan(3);
      expect(paths.sort()).toEqual(['/_mock/faults', '/v2/dev/markings', '/v2/dev/markings/nope']);
    } finally {
      stop();
    }
  });

  it('lists the devices with their keys, protected attribute values opened, and requests', async () => {
    const device = addDevice(mock);
    const http = deviceHttp();
    try {
      const created = await new DeviceClient(device, http).create([
        {
          ref: 'docs',
          count: 1,
          attributes: { project: ['apollo'] },
          protectedAttributes: { 'ionic-protected-owner': ['alice'] },
        },
      ]);
      const [key] = created.keys;
      const who = await signIn(mock);
      const listed = JSON.parse((await api(mock, who, 'GET', 'devices')).body) as unknown;
      expect(listed).toEqual({
        devices: [
          {
            id: device.deviceId,
            user: 'alice',
            keyspace: 'ABcd',
            tenant: 'dev',
            enrolled: expect.any(String),
            lastSeen: expect.any(String),
            keys: 1,
          },
        ],
      });
      const one = await api(mock, who, 'GET', `devices/${encodeURIComponent(device.deviceId)}`);
      expect(JSON.parse(one.body)).toMatchObject({
        device: { id: device.deviceId, keys: 1 },
        keys: [
          {
            id: key!.id,
            ref: 'docs',
            attributes: { project: ['apollo'], 'ionic-protected-owner': ['alice'] },
            mutableAttributes: {},
            decrypted: ['ionic-protected-owner'],
            modified: null,
          },
        ],
        messages: [],
      });
      const requests = JSON.parse(
        (await api(mock, who, 'GET', `requests?device=${encodeURIComponent(device.deviceId)}`))
          .body,
      ) as { requests: { id: number; path: string; side: string; status: number }[] };
      expect(requests.requests.length).toBeGreaterThan(0);
      expect(requests.requests.every((r) => r.side === 'device')).toBe(true);
      // The keys/create request, its envelope opened on demand: the attribute in clear.
      const create = requests.requests.find(
        (r) => r.path === '/v2.4/keys/create' && r.status === 200,
      )!;
      const detail = await api(mock, who, 'GET', `requests/${create.id}`);
      expect(detail.status).toBe(200);
      expect(detail.body).toContain('"decrypted":true');
      expect(JSON.parse(detail.body)).toMatchObject({
        id: create.id,
        opened: { deviceId: device.deviceId },
        curl: expect.any(String),
      });
      expect((await api(mock, who, 'GET', 'requests/999999')).status).toBe(404);
      expect((await api(mock, who, 'GET', 'devices/nope')).status).toBe(404);
    } finally {
      await http.close();
    }
  });

  it('counts requests per second in the stats', async () => {
    const who = await signIn(mock);
    await mock.call('GET', '/v2/dev/markings');
    await mock.call('GET', '/v2/dev/markings/nope');
    const asked = Math.floor(Date.now() / 1000);
    const { seconds } = JSON.parse((await api(mock, who, 'GET', 'stats')).body) as {
      seconds: { t: number; markings: number; errors: Record<string, number>; p95: number }[];
    };
    expect(seconds).toHaveLength(600);
    const markings = seconds.reduce((sum, s) => sum + s.markings, 0);
    const notFound = seconds.reduce((sum, s) => sum + (s.errors['404'] ?? 0), 0);
    expect(markings).toBeGreaterThanOrEqual(2);
    expect(notFound).toBeGreaterThanOrEqual(1);
    // The last second is the one the stats were asked in (the clock may tick while they come).
    expect(seconds.at(-1)!.t).toBeGreaterThanOrEqual(asked);
    expect(seconds.at(-1)!.t).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });
});

describe('two mocks on one host', () => {
  it('keep their console sessions apart, though browsers share cookies across ports', async () => {
    const mocks = [await startMock(), await startMock()];
    try {
      // A browser's jar for the host: one value per cookie name, whatever the port.
      const jar = new Map<string, string>();
      for (const mock of mocks) {
        const [name, value] = cookieOf(await send(mock.info.consoleUrl!, 'GET')).split('=');
        jar.set(name!, value!);
      }
      expect(jar.size).toBe(2);
      const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
      for (const mock of mocks) {
        const answer = await send(`${mock.info.url}/_mock/console/api/session`, 'GET', { cookie });
        expect({ url: mock.info.url, status: answer.status }).toEqual({
          url: mock.info.url,
          status: 200,
        });
      }
      // Signing out of one leaves the other signed in.
      const out = await send(`${mocks[0]!.info.url}/_mock/console/logout`, 'POST', { cookie });
      expect(out.headers['set-cookie']).toEqual([
        `${cookieName(mocks[0]!)}=; HttpOnly; SameSite=Strict; Path=/_mock/; Max-Age=0`,
      ]);
      const statuses = await Promise.all(
        mocks.map(
          async (mock) =>
            (await send(`${mock.info.url}/_mock/console/api/session`, 'GET', { cookie })).status,
        ),
      );
      expect(statuses).toEqual([401, 200]);
    } finally {
      await Promise.all(mocks.map((mock) => mock.close()));
    }
  });
});

describe('closing the mock', () => {
  it('ends the event streams instead of waiting for them', async () => {
    const mock = await startMock({ closeGraceMs: 30_000 });
    const who = await signIn(mock);
    const ended = new Promise<void>((resolve, reject) => {
      const req = request(
        `${mock.info.url}/_mock/console/api/events`,
        { headers: { cookie: who.cookie } },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end();
    });
    await sleep(100);
    const started = performance.now();
    await mock.close();
    await ended;
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('the console turned off', () => {
  const suite = mockSuite({ console: false, resetEachTest: false });
  let mock: TestMock;
  beforeAll(() => {
    mock = suite.mock;
  });

  it('has no sign-in link and answers 404 everywhere under /_mock/console', async () => {
    expect(mock.info.consoleUrl).toBeUndefined();
    expect('consoleUrl' in mock.info).toBe(false);
    for (const [method, path] of [
      ['GET', '/_mock/console/'],
      ['GET', '/_mock/console/login?code=x'],
      ['POST', '/_mock/console/links'],
      ['GET', '/_mock/console/api/session'],
    ] as const) {
      const answer = await send(`${mock.info.url}${path}`, method, {
        authorization: `Bearer ${DEV_TOKEN}`,
      });
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
    }
  });
});

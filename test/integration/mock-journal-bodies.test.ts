/**
 * The request journal keeps what was sent and answered (issue 24): ids, sides, the device of a
 * device request, headers and the first 64 KiB of each body with its full size; and no secret
 * ever comes out of it, wherever a client put it: headers, the query, JSON and form bodies, the
 * portal's token headers, minted token pairs.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TokenPair } from '../../src/common/enrollment/wire.js';
import type {
  JournalEntry,
  JournalEntryWithBodies,
  RequestJournal,
} from '../../src/common/mock/wire.js';
import { makeCid } from '../../src/common/device/cid.js';
import type { TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite();
let mock: TestMock;

beforeAll(() => {
  mock = suite.mock;
});
const secret = () => `s3cr3t-${randomBytes(12).toString('hex')}`;

async function send(
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string } = {},
): Promise<Response> {
  const response = await fetch(mock.info.url + path, { method, ...init });
  await response.arrayBuffer();
  return response;
}

/** The journal without the test's own admin requests (resets, journal reads), unless asked. */
async function journal(query = 'bodies=true', admin = false): Promise<RequestJournal> {
  const answer = await mock.call('GET', `/_mock/requests?${query}`);
  expect(answer.status).toBe(200);
  const body = answer.body as RequestJournal;
  return admin ? body : { ...body, requests: body.requests.filter((r) => r.side !== 'admin') };
}

describe('the journal keeps both messages', () => {
  it('numbers entries, names their side, and keeps headers and bodies with their sizes', async () => {
    const body = JSON.stringify({
      name: 'journal-kept',
      detail: { description: 'what the app sent' },
    });
    await send('POST', '/v2/dev/markings', {
      headers: {
        authorization: `Bearer ${mock.token}`,
        'content-type': 'application/json',
        'x-app': 'probe',
      },
      body,
    });
    await send('GET', '/enrollment/keyspace/ABcd/pubkey');
    await send('POST', '/v2.4/keys/create', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ cid: makeCid('ABcd.1.nobody'), envelope: 'AAAA' }),
    });
    const { requests } = await journal();
    const [create, pubkey, device] = requests as JournalEntryWithBodies[];
    expect(requests).toHaveLength(3);
    expect(pubkey!.id).toBe(create!.id + 1);
    expect(device!.id).toBe(create!.id + 2);
    expect([create!.side, pubkey!.side, device!.side]).toEqual([
      'markings',
      'enrollment',
      'device',
    ]);
    expect(device!.device).toBe('ABcd.1.nobody');
    expect(create!.status).toBe(201);
    expect(create!.request).toMatchObject({
      body,
      encoding: 'utf8',
      bytes: Buffer.byteLength(body),
      truncated: false,
    });
    expect(create!.request.headers).toMatchObject({
      authorization: 'Bearer [redacted]',
      'x-app': 'probe',
    });
    const answer = JSON.parse(create!.response.body) as { name: string };
    expect(answer.name).toBe('journal-kept');
    expect(create!.response.bytes).toBe(create!.responseBytes);
    expect(create!.response.headers['content-type']).toBe('application/json');
    // Without bodies=true the answer is what it was, plus the new members.
    const plain = (await journal('')).requests[0]!;
    expect(Object.keys(plain).sort()).toEqual(
      [
        'cid',
        'durationMs',
        'id',
        'method',
        'path',
        'requestBytes',
        'responseBytes',
        'side',
        'status',
        'time',
      ].sort(),
    );
  });

  it('keeps the first 64 KiB of a large body and says how large it was', async () => {
    const big = JSON.stringify({ name: 'big', description: 'é'.repeat(100_000) });
    await send('POST', '/v2/dev/markings', {
      headers: { authorization: `Bearer ${mock.token}`, 'content-type': 'application/json' },
      body: big,
    });
    const [entry] = (await journal()).requests as JournalEntryWithBodies[];
    expect(entry!.request.bytes).toBe(Buffer.byteLength(big));
    expect(entry!.request.truncated).toBe(true);
    expect(entry!.request.encoding).toBe('utf8');
    // A character cut in two at 64 KiB is left out, not shown as a replacement character.
    expect(Buffer.byteLength(entry!.request.body)).toBeLessThanOrEqual(64 * 1024);
    expect(Buffer.byteLength(entry!.request.body)).toBeGreaterThan(64 * 1024 - 4);
    expect(entry!.request.body).not.toContain('\uFFFD');
  });

  it('keeps each answer as sent, ASCII or not, whole or cut at 64 KiB (issue 26)', async () => {
    const auth = { authorization: `Bearer ${mock.token}`, 'content-type': 'application/json' };
    for (let i = 0; i < 20; i++) {
      await send('POST', '/v2/dev/markings', {
        headers: auth,
        body: JSON.stringify({ name: `long-${i}`, detail: { description: 'd'.repeat(4000) } }),
      });
    }
    // ASCII and over 64 KiB: written as its text, with the head.
    const listing = await fetch(`${mock.baseUrl}/markings?limit=100`, { headers: auth });
    const listed = Buffer.from(await listing.arrayBuffer());
    expect(listed.length).toBeGreaterThan(64 * 1024);
    expect(listed.every((byte) => byte < 0x80)).toBe(true);
    expect(Number(listing.headers.get('content-length'))).toBe(listed.length);
    // Not ASCII: written as UTF-8 bytes.
    const other = await fetch(`${mock.baseUrl}/markings`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'café', detail: { description: 'é€😀' } }),
    });
    const otherBytes = Buffer.from(await other.arrayBuffer());
    expect(Number(other.headers.get('content-length'))).toBe(otherBytes.length);
    expect(JSON.parse(otherBytes.toString('utf8'))).toMatchObject({ name: 'café' });

    const requests = (await journal()).requests as JournalEntryWithBodies[];
    const [kept, created] = requests.slice(-2);
    expect(kept!.path).toBe('/v2/dev/markings?limit=100');
    expect(kept!.response).toMatchObject({ bytes: listed.length, truncated: true });
    expect(kept!.response.body).toBe(listed.subarray(0, 64 * 1024).toString('utf8'));
    expect(created!.response).toMatchObject({ bytes: otherBytes.length, truncated: false });
    expect(created!.response.body).toBe(otherBytes.toString('utf8'));
  });

  it('filters by side, status, method and path, and pages by id', async () => {
    await send('GET', '/v2/dev/markings', { headers: { authorization: 'Bearer wrong' } });
    await send('GET', '/v2/dev/markings', { headers: { authorization: `Bearer ${mock.token}` } });
    await send('GET', '/enrollment/keyspace/nope/pubkey');
    await send('GET', '/_mock/health');
    const ids = (await journal('')).requests.map((r) => r.id);
    const only = async (query: string) =>
      (await journal(query)).requests.map((r: JournalEntry) => r.id);
    expect(await only('status=4xx&side=markings')).toEqual([ids[0]]);
    expect(await only('side=enrollment')).toEqual([ids[2]]);
    expect(await only('status=200&method=get&path=markings')).toEqual([ids[1]]);
    expect(await only(`after=${ids[0]}&side=markings`)).toEqual([ids[1]]);
    expect(await only(`order=newest&limit=2&before=${ids[2]! + 1}`)).toEqual([ids[2], ids[1]]);
    expect((await journal('side=admin', true)).requests[0]!.path).toBe('/_mock/reset');
    const gone = await mock.call('GET', '/_mock/requests/999999');
    expect(gone.status).toBe(404);
    expect(JSON.stringify(gone.body)).toContain('the journal holds no request 999999');
    const bad = await mock.call('GET', '/_mock/requests?status=teapot');
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('status must be');
  });

  it('goes on counting after a reset', async () => {
    await send('GET', '/_mock/health');
    const before = (await journal('', true)).requests.at(-1)!.id;
    await mock.reset();
    const after = (await journal('', true)).requests;
    expect(after[0]!.path).toBe('/_mock/reset');
    expect(after[0]!.id).toBeGreaterThan(before);
    expect(after[0]!.side).toBe('admin');
  });
});

describe('no secret comes out of the journal', () => {
  it('not in headers, queries, JSON bodies, form bodies, portal headers or minted pairs', async () => {
    const queryToken = secret();
    const password = secret();
    const nested = secret();
    const formToken = secret();
    await send('GET', `/v2/dev/markings?token=${queryToken}&limit=1`, {
      headers: { authorization: `Bearer ${mock.token}`, cookie: `session=${nested}` },
    });
    await send('POST', '/v2/dev/markings', {
      headers: { authorization: `Bearer ${mock.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'x',
        detail: {
          description: `the token is ${mock.token}`,
          values: [{ name: 'v', password, client_secret: nested }],
        },
      }),
    });
    await send('POST', '/oauth2/introspect', {
      headers: {
        authorization: `Basic ${Buffer.from(`alice:${password}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: `token=${formToken}&token_type_hint=access_token`,
    });
    // The portal answers a password sign-in with the pair in its headers.
    const signIn = await fetch(`${mock.info.enrollmentUrl}/keyspace/ABcd/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'username=alice&password=alice-password',
    });
    const portalPair = {
      stoken: signIn.headers.get('x-ionic-reg-stoken')!,
      uidauth: signIn.headers.get('x-ionic-reg-uidauth')!,
    };
    expect(portalPair.stoken).toBeTruthy();
    const minted = (await mock.call('POST', '/_mock/tokens', { user: 'alice' })).body as TokenPair;

    const text = JSON.stringify(await journal('bodies=true', true));
    for (const value of [
      mock.token,
      queryToken,
      password,
      nested,
      formToken,
      'alice-password',
      portalPair.stoken,
      portalPair.uidauth,
      minted.stoken,
      minted.uidauth,
    ]) {
      expect(text).not.toContain(value);
      expect(text).not.toContain(encodeURIComponent(value));
    }
    const { requests } = await journal('bodies=true', true);
    const portal = (requests as JournalEntryWithBodies[]).find((r) =>
      r.path.endsWith('/register'),
    )!;
    expect(portal.response.headers['x-ionic-reg-stoken']).toBe('[redacted]');
    expect(portal.request.body).toBe('username=alice&password=[redacted]');
    const tokens = (requests as JournalEntryWithBodies[]).find((r) => r.path === '/_mock/tokens')!;
    expect(JSON.parse(tokens.response.body)).toEqual({
      stoken: '[redacted]',
      uidauth: '[redacted]',
    });
    // Described one by one, they say the same.
    for (const { id } of requests) {
      const described = JSON.stringify((await mock.call('GET', `/_mock/requests/${id}`)).body);
      for (const value of [mock.token, password, portalPair.uidauth, minted.stoken]) {
        expect(described).not.toContain(value);
      }
    }
  });
});

describe('following the journal', () => {
  it('tells subscribers each entry as it is recorded; a failing one harms nothing', async () => {
    const seen: JournalEntry[] = [];
    const stopSeeing = mock.server.state.journal.subscribe((entry) => seen.push(entry));
    const stopFailing = mock.server.state.journal.subscribe(() => {
      throw new Error('listener broke');
    });
    try {
      const answer = await send('GET', '/_mock/health');
      expect(answer.status).toBe(200);
      expect(seen.map((e) => [e.method, e.path, e.side])).toEqual([
        ['GET', '/_mock/health', 'admin'],
      ]);
    } finally {
      stopSeeing();
      stopFailing();
    }
    await send('GET', '/_mock/health');
    expect(seen).toHaveLength(1);
  });
});

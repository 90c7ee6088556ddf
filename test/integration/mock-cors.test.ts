/**
 * Cross-origin requests (src/mock/kit/cors.ts): the vendor's JS SDK runs in web pages on another
 * origin than the mock, so browsers preflight its registration and read answers only when they
 * name the page's origin. Sent with node:http, which lets a test set Origin as a browser would.
 */
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { startMock, type TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';

const PAGE = 'http://127.0.0.1:5173';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(mock: TestMock, method: string, path: string, headers: Record<string, string>) {
  return new Promise<Raw>((resolve, reject) => {
    const req = request(mock.info.url + path, { method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('on by default', () => {
  const suite = mockSuite({ resetEachTest: false });
  let mock: TestMock;
  beforeAll(() => {
    mock = suite.mock;
  });

  it("answers the JS SDK's registration preflight with 204, the methods and the headers asked for", async () => {
    const answer = await send(mock, 'OPTIONS', '/v2.3/register/ABcd', {
      origin: PAGE,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-conversation-id',
    });
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe(PAGE);
    expect(answer.headers['access-control-allow-methods']).toContain('POST');
    expect(answer.headers['access-control-allow-headers']).toBe('content-type,x-conversation-id');
    expect(answer.headers['access-control-max-age']).toBe('600');
    expect(answer.headers.vary).toContain('Origin');
    expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('names the origin on every answer, errors included, and lets pages read the headers', async () => {
    for (const path of ['/_mock/health', '/v2.4/keys/create', '/no/such/thing']) {
      const answer = await send(mock, path === '/_mock/health' ? 'GET' : 'POST', path, {
        origin: PAGE,
        'content-type': 'text/plain;charset=UTF-8',
      });
      expect(answer.headers['access-control-allow-origin'], path).toBe(PAGE);
      expect(answer.headers['access-control-expose-headers'], path).toBe('*');
      expect(answer.headers.vary, path).toContain('Origin');
    }
  });

  it('adds nothing without an Origin, or for an origin it could not name back', async () => {
    const plain = await send(mock, 'GET', '/_mock/health', {});
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
    const odd = await send(mock, 'GET', '/_mock/health', { origin: 'http://a b' });
    expect(odd.headers['access-control-allow-origin']).toBeUndefined();
    // An OPTIONS that is no preflight is an ordinary request: no route takes it.
    expect((await send(mock, 'OPTIONS', '/_mock/health', {})).status).toBe(405);
  });

  it('allows no header list that is not one, and journals the preflight', async () => {
    const answer = await send(mock, 'OPTIONS', '/v2.4/keys/fetch', {
      origin: PAGE,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type; evil=1',
    });
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-headers']).toBeUndefined();
    expect((await mock.journal()).map((r) => [r.method, r.path, r.status])).toContainEqual([
      'OPTIONS',
      '/v2.4/keys/fetch',
      204,
    ]);
  });
});

describe('mock serve --no-cors', () => {
  it('answers preflights like any OPTIONS and names no origin', async () => {
    const mock = await startMock({ cors: false });
    try {
      const preflight = await send(mock, 'OPTIONS', '/v2.3/register/ABcd', {
        origin: PAGE,
        'access-control-request-method': 'POST',
      });
      expect(preflight.status).toBe(405);
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      const get = await send(mock, 'GET', '/_mock/health', { origin: PAGE });
      expect(get.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await mock.close();
    }
  });
});

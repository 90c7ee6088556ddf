/**
 * ksctl loads two files of undici instead of its entry point (src/client/api/transport.ts). They must be
 * the very objects the entry point exports, in the pinned version and in any later one.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as undici from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from '../../src/client/api/transport.js';

let seen: { method?: string; url?: string; headers: IncomingMessage['headers']; body: string }[];
const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    seen.push({ method: req.method, url: req.url, headers: req.headers, body });
    res.writeHead(201, { 'content-type': 'application/json', 'x-answer': 'yes' });
    res.end('{"ok":true}');
  });
});
let origin: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the parts of undici ksctl loads', () => {
  it('are the classes and functions undici exports', async () => {
    expect(Agent).toBe(undici.Agent);
    const { default: dispatchRequest } = await import('undici/lib/api/api-request.js');
    expect(dispatchRequest).toBe(undici.Dispatcher.prototype.request);
  });

  it('send the method, path, query, headers and body, and return the answer', async () => {
    seen = [];
    const dispatcher = new Agent();
    try {
      const answer = await request(
        { origin, path: '/v2/dev/markings?skip=2&name=a%20b' },
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-conversation-id': 'c-1' },
          body: '{"name":"x"}',
          dispatcher,
        },
      );
      expect(answer.statusCode).toBe(201);
      expect(answer.headers['x-answer']).toBe('yes');
      expect(await answer.body.json()).toEqual({ ok: true });
    } finally {
      await dispatcher.close();
    }
    expect(seen).toMatchObject([
      {
        method: 'POST',
        url: '/v2/dev/markings?skip=2&name=a%20b',
        headers: { 'x-conversation-id': 'c-1' },
        body: '{"name":"x"}',
      },
    ]);
  });
});

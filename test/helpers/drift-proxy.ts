/**
 * A proxy of the tests' own in front of a mock, which changes what passes through it the way a
 * drifted service would (a member renamed, another status, a query parameter ignored, a member
 * missing). With no drift it passes everything on as it is: a faithful service.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body's text. */
  body: string;
}

export interface Drift {
  /** The path with its query to send on (`/v2/dev/markings?x=1`): change it to ignore a parameter. */
  request?: (method: string, path: string) => string;
  /** An answer given without asking the mock at all (a refusal that changes nothing). */
  refuse?: (method: string, path: string) => ProxiedAnswer | undefined;
  /** The answer to give back in place of the mock's. */
  answer?: (method: string, path: string, answer: ProxiedAnswer) => ProxiedAnswer;
}

export interface DriftProxy {
  url: string;
  drift: Drift;
  close(): Promise<void>;
}

const HOP_HEADERS = new Set([
  'connection',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'keep-alive',
]);

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A proxy to `origin` on a free loopback port; set `drift` to change what passes. */
export async function startDriftProxy(origin: string): Promise<DriftProxy> {
  const proxy: DriftProxy = { url: '', drift: {}, close: async () => undefined };
  const server = createServer((req, res) => {
    void (async () => {
      const method = req.method ?? 'GET';
      const body = await bodyOf(req);
      const refused = proxy.drift.refuse?.(method, req.url ?? '/');
      if (refused !== undefined) {
        res.writeHead(refused.status, refused.headers);
        res.end(refused.body);
        return;
      }
      const path = proxy.drift.request?.(method, req.url ?? '/') ?? req.url ?? '/';
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && !HOP_HEADERS.has(name) && name !== 'host') {
          headers[name] = value;
        }
      }
      const answered = await fetch(origin + path, {
        method,
        headers: { ...headers, 'accept-encoding': 'identity' },
        body: body.length > 0 ? body : undefined,
      });
      let answer: ProxiedAnswer = {
        status: answered.status,
        headers: Object.fromEntries(
          [...answered.headers].filter(([name]) => !HOP_HEADERS.has(name)),
        ),
        body: await answered.text(),
      };
      answer = proxy.drift.answer?.(method, req.url ?? '/', answer) ?? answer;
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    })().catch((error: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`drift proxy: ${String(error)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

/** A JSON answer changed by `change` (the body parsed, changed in place or replaced). */
export function changeJson(
  answer: ProxiedAnswer,
  change: (body: Record<string, unknown>) => unknown,
): ProxiedAnswer {
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  const changed = change(body);
  return { ...answer, body: JSON.stringify(changed === undefined ? body : changed) };
}

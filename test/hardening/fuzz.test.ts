/**
 * Hostile input against the real `ksctl mock serve` (docs/design.md 3.2.1): a seeded generator of
 * malformed requests for every route family — bad JSON, wrong types per field, huge and deep
 * values, invalid and truncated Base64, garbage crypto blobs, wrong content types, odd paths and
 * methods, oversized headers, slow and stalled clients — sent over raw sockets. The process must
 * live, every error answer must be JSON with `error.cid`, its memory must stay bounded, and a
 * valid request must still work at the end. KSCTL_FUZZ_SEED=N replays a run; the seed is in
 * every failure message. Needs a build (`npm test` builds first).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanEnv, type ServedMock, serveMock } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';
import { errorOf, openSocket, type RawAnswer, rawRequest } from './raw.js';
import { requestTarget } from '../../src/mock/request/request.js';
import { openApi } from '../helpers/openapi.js';
import { prng, type Random } from '../helpers/random.js';

const SEED = Number(process.env.KSCTL_FUZZ_SEED) || 20_261_125;
const REQUESTS = 400;
const CONCURRENCY = 6;
const MIB = 1024 * 1024;
/** Generous: a leak of a few MB per request would pass 400 requests only below this. */
const RSS_GROWTH_MAX = 400 * MIB;

const dirs = tempDirs();
let served: ServedMock;
let port: number;
let token: string;
let markingId: string;
let valueId: string;

function rssOf(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

beforeAll(async () => {
  assertBuilt();
  const configDir = await dirs.make();
  served = await serveMock(['--no-context', '--json'], {
    env: cleanEnv({ KSCTL_CONFIG_DIR: configDir }),
    readyFile: join(configDir, 'ready.json'),
  });
  port = Number(new URL(served.info.url).port);
  token = served.info.token;
  const created = await fetch(`${served.info.baseUrl}/markings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'classification', detail: { values: [{ name: 'public' }] } }),
  });
  const marking = (await created.json()) as { id: string; detail: { values: { id: string }[] } };
  markingId = marking.id;
  valueId = marking.detail.values[0]!.id;
});

afterAll(async () => {
  if (served.child.exitCode === null) await served.stop();
  await dirs.removeAll();
});

// ---- The generator ----

const ODD_METHODS = ['PATCH', 'OPTIONS', 'HEAD', 'FOO', 'get', 'TRACE'];

/** Each route family with the methods it answers; odd paths last, with any method. */
function routes(): [path: string, methods: string[]][] {
  const m = `/v2/dev/markings/${markingId}`;
  const any = ['GET', 'POST', 'PUT', 'DELETE'];
  return [
    ['/v2/dev/markings', ['GET', 'POST']],
    [m, ['GET', 'PUT', 'DELETE']],
    [`${m}/values`, ['GET', 'POST']],
    [`${m}/values/${valueId}`, ['GET', 'PUT', 'DELETE']],
    ['/v2.3/register/ABcd', ['POST']],
    ['/v2.3/register/ZZ!!', ['POST']],
    ['/enrollment/keyspace/ABcd/register', ['POST']],
    ['/enrollment/keyspace/ABcd/pubkey', ['GET']],
    ['/v2.4/kns/keyspaces/ABcd', ['GET']],
    ['/_mock/faults', ['GET', 'PUT']],
    ['/_mock/tokens', ['POST']],
    ['/_mock/users/fuzz', ['PUT']],
    ['/_mock/keyspaces/Fz01', ['PUT']],
    ['/_mock/requests', ['GET']],
    ['/_mock/outbox', ['GET']],
    ['/_mock/devices', ['GET']],
    ['/_mock/health', ['GET']],
    ...[
      '/',
      '//',
      '///',
      '//x:99999/',
      '/%',
      '/%E0%A4%A',
      '/v2/%ZZ/markings',
      '/v2/dev/markings/%00',
      `/v2/${'%E6%BC%A2'}/markings`,
      `/v2/dev/markings/${'a'.repeat(3000)}`,
      '/v2/dev/markings?valueLimit=-1&limit=abc&name__bogus=1',
      '/v2/dev/markings?' + 'a=1&'.repeat(2000),
      '/../../etc/passwd',
      '*',
      'http://[/v2/dev/markings',
      'http://mock/v2/dev/markings',
    ].map((path): [string, string[]] => [path, any]),
  ];
}

function randomString(r: Random, max: number): string {
  const alphabets = ['abc', 'ÄÖü漢字', '\u0000\u0001\t\n', '"\\{}[]', '\ud800', 'A+/='];
  const alphabet = r.pick(alphabets);
  let text = '';
  for (let i = r.int(max); i > 0; i--) text += alphabet[r.int(alphabet.length)];
  return text;
}

/** A value of a random JSON type, sometimes huge or deeply nested. */
function randomValue(r: Random, depth = 0): unknown {
  switch (r.int(depth > 2 ? 6 : 9)) {
    case 0:
      return null;
    case 1:
      return r.next() < 0.5;
    case 2:
      return r.pick([0, -1, 1.5, 1e308, -0, 2 ** 53 + 1]);
    case 3:
      return randomString(r, 40);
    case 4:
      return 'x'.repeat(r.pick([257, 4097, 70_000]));
    case 5:
      return r.pick(['', ' padded ', 'name\u0007', '\u202e']);
    case 6:
      return Array.from({ length: r.int(4) }, () => randomValue(r, depth + 1));
    case 7:
      return Object.fromEntries(
        Array.from({ length: r.int(4) }, () => [randomString(r, 8), randomValue(r, depth + 1)]),
      );
    default:
      return JSON.parse('['.repeat(50) + ']'.repeat(50));
  }
}

/** Base64 that is invalid, truncated, non-canonical or decodes to garbage. */
function badBase64(r: Random): string {
  return r.pick([
    'not base64!',
    'AAA',
    'AA==AA==',
    'AB==',
    'A'.repeat(r.pick([4, 512, 1024, 100_000])),
    Buffer.from(randomString(r, 600)).toString('base64'),
    Buffer.from(randomString(r, 600)).toString('base64').slice(0, -3),
    '=',
    ' QUJD ',
  ]);
}

/** A body shaped like what the route takes, with fields of wrong types or bad contents. */
function shapedBody(r: Random, path: string): unknown {
  if (path.startsWith('/v2.3/register')) {
    const fields: Record<string, unknown> = {
      k: 'ABcd',
      p: badBase64(r),
      s: badBase64(r),
      g: badBase64(r),
    };
    if (r.next() < 0.3) fields[r.pick(['k', 'p', 's', 'g'])] = randomValue(r);
    if (r.next() < 0.2) delete fields[r.pick(['k', 'p', 's', 'g'])];
    return fields;
  }
  if (path.startsWith('/_mock/faults')) {
    return [{ status: randomValue(r), path: randomValue(r), probability: randomValue(r) }];
  }
  if (path.startsWith('/_mock/')) {
    return {
      user: randomValue(r),
      keyspace: randomValue(r),
      enabled: randomValue(r),
      tenant: randomValue(r),
    };
  }
  const marking = {
    name: randomValue(r),
    public: randomValue(r),
    defaultValue: randomValue(r),
    detail: { description: randomValue(r), values: [{ name: randomValue(r) }, randomValue(r)] },
  };
  return r.next() < 0.3 ? [marking, { id: randomValue(r), name: 'x' }] : marking;
}

function body(r: Random, path: string): { bytes: Buffer; type: string | undefined } {
  const json = 'application/json';
  switch (r.int(16)) {
    case 0:
      return { bytes: Buffer.from('{"name": '), type: json };
    case 1:
      return { bytes: Buffer.from(randomString(r, 200)), type: r.pick([json, 'text/plain']) };
    case 2:
      return { bytes: Buffer.from('['.repeat(r.pick([65, 5000, 200_000]))), type: json };
    case 3:
      return { bytes: Buffer.from([0xff, 0xfe, 0x22, 0x80, 0x7b]), type: json };
    case 4:
      return {
        bytes: Buffer.from(
          'email=alice%40example.com&username=%ZZ&password=' + 'p'.repeat(r.int(100_000)),
        ),
        type: 'application/x-www-form-urlencoded',
      };
    case 5:
      return {
        bytes: Buffer.from(JSON.stringify(shapedBody(r, path))),
        type: r.pick([
          json,
          'application/JSON; charset=utf-8',
          'application/x+json',
          'application/jsonx',
          undefined,
        ]),
      };
    default:
      return { bytes: Buffer.from(JSON.stringify(shapedBody(r, path))), type: json };
  }
}

function headerLines(r: Random, path: string): string {
  const lines: string[] = [];
  switch (r.int(6)) {
    case 0:
      break;
    case 1:
      lines.push(`Authorization: Bearer ${token}`);
      break;
    case 2:
      lines.push(
        `Authorization: Basic ${r.pick(['!!!', 'YWxpY2U6', 'Og==', '', 'YWxpY2U6YWxpY2UtcGFzc3dvcmQ=='])}`,
      );
      break;
    case 3:
      lines.push(`Authorization: ${r.pick(['Bearer', 'Bearer  ', 'Digest x', 'bearer ' + token])}`);
      break;
    default:
      lines.push(`Authorization: Bearer ${token}`);
  }
  if (path.startsWith('/v2.3/') && r.next() < 0.8) {
    lines.push('X-Conversation-ID: Basic 1b4e28ba-2fa1-41d2-883f-0016d3cca427');
  } else if (r.next() < 0.5) {
    lines.push(
      `X-Conversation-ID: ${r.pick(['Basic 1b4e28ba-2fa1-41d2-883f-0016d3cca427', 'caf\xe9\xff', 'x'.repeat(8000), 'Basic ', '\t'])}`,
    );
  }
  if (r.next() < 0.1)
    lines.push(`If-Match: ${r.pick(['"1"', '*', 'W/"x"', '"99999999999999999999"'])}`);
  if (r.next() < 0.05) lines.push('Expect: 100-continue');
  if (r.next() < 0.03) lines.push('Expect: tea');
  if (r.next() < 0.03) lines.push(`X-Huge: ${'h'.repeat(20_000)}`);
  if (r.next() < 0.03) lines.push('Transfer-Encoding: chunked, identity');
  return lines.map((l) => `${l}\r\n`).join('');
}

interface Case {
  label: string;
  method: string;
  /** The request target as sent. */
  target: string;
  bytes: Buffer;
}

function randomCase(r: Random, i: number): Case {
  const [path, methods] = r.pick(routes());
  const method = r.next() < 0.9 ? r.pick(methods) : r.pick(ODD_METHODS);
  const withBody = method !== 'GET' && method !== 'HEAD' ? r.next() < 0.9 : r.next() < 0.1;
  const { bytes, type } = withBody ? body(r, path) : { bytes: Buffer.alloc(0), type: undefined };
  const head =
    `${method} ${path} HTTP/1.1\r\nHost: mock\r\n${headerLines(r, path)}` +
    (type === undefined ? '' : `Content-Type: ${type}\r\n`) +
    `Content-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`;
  return {
    label: `#${i} ${method} ${path.slice(0, 80)} (${bytes.length} bytes)`,
    method,
    target: path,
    bytes: Buffer.concat([Buffer.from(head, 'latin1'), bytes]),
  };
}

/** What schema/openapi.yaml says is wrong with the answer (HEAD answers have no body to check). */
async function documentProblem(answer: RawAnswer, c: Case): Promise<string | undefined> {
  if (answer.status === 0 || c.method === 'HEAD') return undefined;
  const problems = await openApi().problems({
    method: c.method,
    path: requestTarget(c.target)?.pathname ?? '',
    status: answer.status,
    headers: answer.headers,
    body: answer.body.length === 0 ? undefined : answer.body.toString('utf8'),
  });
  return problems.length === 0 ? undefined : problems.join('; ').slice(0, 600);
}

/** A 2xx, 3xx, or an error answer with a JSON body carrying a cid; the problem otherwise. */
function problemWith(answer: RawAnswer, method: string): string | undefined {
  if (answer.status === 0) return 'no answer';
  if (answer.status < 400 || method === 'HEAD') return undefined;
  try {
    errorOf(answer);
    return undefined;
  } catch (error) {
    return (error as Error).message.slice(0, 300);
  }
}

async function alive(): Promise<void> {
  expect(served.child.exitCode, `seed ${SEED}: the mock exited`).toBeNull();
  const answer = await rawRequest(
    port,
    'GET /_mock/health HTTP/1.1\r\nHost: m\r\nConnection: close\r\n\r\n',
  );
  expect(answer.status, `seed ${SEED}: health after the run`).toBe(200);
}

describe(`hostile requests against ksctl mock serve (seed ${SEED})`, () => {
  it('every generated request is answered, errors as JSON with a cid, and the mock lives', async () => {
    const r = prng(SEED);
    const cases = Array.from({ length: REQUESTS }, (_, i) => randomCase(r, i));
    const rssBefore = rssOf(served.child.pid!);
    const problems: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < cases.length) {
          const c = cases[next++]!;
          const answer = await rawRequest(port, c.bytes, 15_000, c.method === 'HEAD');
          const problem = problemWith(answer, c.method) ?? (await documentProblem(answer, c));
          if (problem) problems.push(`${c.label}: ${answer.status} ${problem}`);
        }
      }),
    );
    expect(problems, `seed ${SEED}`).toEqual([]);
    await alive();
    const rssAfter = rssOf(served.child.pid!);
    if (rssBefore !== undefined && rssAfter !== undefined) {
      expect(rssAfter - rssBefore, `seed ${SEED}: rss growth`).toBeLessThan(RSS_GROWTH_MAX);
    }
  });

  it('maximal bodies: over 32 MiB is a 413, 32 MiB of nesting a 400, while others are served', async () => {
    const auth = `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\n`;
    const send = (bytes: Buffer) =>
      rawRequest(
        port,
        Buffer.concat([
          Buffer.from(
            `POST /v2/dev/markings HTTP/1.1\r\nHost: m\r\n${auth}Content-Length: ${bytes.length}\r\n\r\n`,
          ),
          bytes,
        ]),
        60_000,
      );
    const [tooLarge, tooDeep] = await Promise.all([
      send(Buffer.alloc(32 * MIB + 1, 0x20)),
      send(Buffer.alloc(32 * MIB, 0x5b)),
      (async () => {
        for (let i = 0; i < 5; i++) await alive();
      })(),
    ]);
    expect(tooLarge.status, `seed ${SEED}`).toBe(413);
    expect(errorOf(tooLarge).code).toBe(41300);
    expect(tooDeep.status).toBe(400);
    expect(errorOf(tooDeep).message).toMatch(/nested deeper/);
  });

  it('slow and stalled clients do not hold up the others', async () => {
    const stalled = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const socket = await openSocket(port);
        socket.write(
          i % 2 === 0
            ? 'GET /_mock/health HTT'
            : 'POST /v2/dev/markings HTTP/1.1\r\nContent-Length: 1000\r\n\r\n{',
        );
        return socket;
      }),
    );
    try {
      const slow = rawRequest(
        port,
        (socket) => {
          const text = 'GET /_mock/health HTTP/1.1\r\nHost: m\r\nConnection: close\r\n\r\n';
          let i = 0;
          const timer = setInterval(() => {
            if (i >= text.length || socket.destroyed) clearInterval(timer);
            else socket.write(text[i++]!);
          }, 5);
        },
        20_000,
      );
      await alive();
      expect((await slow).status, `seed ${SEED}: a slow client`).toBe(200);
    } finally {
      for (const socket of stalled) socket.destroy();
    }
    await sleep(50);
    await alive();
  });

  it('a valid request still works at the end', async () => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${served.info.baseUrl}/markings`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'after-the-storm', detail: { values: [{ name: 'calm' }] } }),
    });
    expect(created.status, `seed ${SEED}`).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const got = await fetch(`${served.info.baseUrl}/markings/${id}`, { headers });
    const marking = (await got.json()) as { name: string; detail: { values: { name: string }[] } };
    expect(got.status, `seed ${SEED}`).toBe(200);
    expect(marking.name).toBe('after-the-storm');
    expect(marking.detail.values.map((v) => v.name)).toEqual(['calm']);
    expect(served.child.exitCode).toBeNull();
  });

  it('SIGTERM: the request in flight is answered, new connections are refused, exit 0', async () => {
    const body = JSON.stringify({ name: 'in-flight' });
    const socket = await openSocket(port);
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.write(
      `POST /v2/dev/markings HTTP/1.1\r\nHost: m\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await sleep(100);
    const exit = served.stop(20_000);
    await sleep(300);
    const refused = await openSocket(port).then(
      (s) => {
        s.destroy();
        return false;
      },
      () => true,
    );
    socket.write(body.slice(5));
    const { code } = await exit;
    socket.destroy();
    expect(refused, `seed ${SEED}: a new connection after SIGTERM`).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(code).toBe(0);
  });
});

/**
 * `--debug` traces requests and answers on stderr; no secret may appear there, wherever it is
 * placed: request headers (with or without an Authorization scheme), the URL's user info and
 * query, request and answer bodies, and answer headers. Each placement gets its own generated
 * secret, and the trace is checked for that exact string.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDirs } from '../helpers/temp.js';

const dirs = tempDirs();
let server: Server;
let origin: string;
let dir: string;

/** Where the test server puts the secret it is asked to answer with. */
type AnswerPlacement = { header: string } | { body: (secret: string) => unknown };

const ANSWERS: Record<string, AnswerPlacement> = {
  'set-cookie': { header: 'set-cookie' },
  'x-auth-token header': { header: 'x-auth-token' },
  'x-ionic-reg-stoken header': { header: 'x-ionic-reg-stoken' },
  'x-ionic-reg-uidauth header': { header: 'x-ionic-reg-uidauth' },
  'location with user info': { header: 'location' },
  'registration code': { body: (s) => ({ code: s }) },
  'stoken member': { body: (s) => ({ stoken: s }) },
  'uidauth member': { body: (s) => ({ uidauth: `,I${s}` }) },
  'token member': { body: (s) => ({ token: s }) },
  'password member': { body: (s) => ({ user: 'u', password: s }) },
  'key material': { body: (s) => ({ deviceID: 'ABcd.1.x', SEPAESK: s, 'SEPAESK-IDC': s }) },
  'private key': { body: (s) => ({ privateKey: s }) },
  'profile keys': { body: (s) => ({ aesCdEiKey: s, aesCdIdcKey: s }) },
  'nested client_secret': { body: (s) => ({ items: [{ name: 'x', client_secret: s }] }) },
  access_token: { body: (s) => ({ access_token: s, refresh_token: s }) },
  'URL with a token query': { body: (s) => ({ next: `http://h.example/x?a=1&token=${s}` }) },
  'URL with user info': { body: (s) => ({ next: `https://u:${s}@h.example/x` }) },
};

beforeAll(async () => {
  dir = await dirs.make();
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const placement = ANSWERS[url.searchParams.get('answer') ?? ''];
    const secret = url.searchParams.get('secret') ?? '';
    req.resume();
    req.on('end', () => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      let body: unknown = { ok: true };
      if (placement && 'header' in placement) {
        headers[placement.header] =
          placement.header === 'location'
            ? `http://user:${secret}@h.example/next`
            : placement.header === 'set-cookie'
              ? `session=${secret}; HttpOnly`
              : secret;
      } else if (placement) {
        body = placement.body(secret);
      }
      res.writeHead(200, headers).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await dirs.removeAll();
});

const newSecret = () => `S3CR3T${randomBytes(9).toString('hex')}`;

async function debugRun(argv: string[], env: Record<string, string> = {}) {
  return runCli(['--debug', ...argv], {
    env: {
      KSCTL_CONFIG_DIR: dir,
      KSCTL_BASE_URL: `${origin}/v2/dev`,
      KSCTL_TOKEN: 'ksdev.placeholder-token',
      ...env,
    },
  });
}

/** The trace ran (so the check below is not vacuous), and the secret is nowhere on stderr. */
function expectHidden(stderr: string, secret: string): void {
  expect(stderr).toContain('[debug] > GET');
  expect(stderr).toContain('[redacted]');
  expect(stderr).not.toContain(secret);
}

describe('--debug hides secrets in requests', () => {
  const headerCases: [string, (s: string) => string][] = [
    ['Authorization with a scheme', (s) => `Authorization: Bearer ${s}`],
    ['Authorization without a scheme', (s) => `Authorization: ${s}`],
    ['Authorization with an unknown scheme word', (s) => `Authorization: Custom ${s}`],
    ['Proxy-Authorization', (s) => `Proxy-Authorization: Basic ${s}`],
    ['X-Api-Key', (s) => `X-Api-Key: ${s}`],
    ['Api-Key', (s) => `Api-Key: ${s}`],
    ['Cookie', (s) => `Cookie: session=${s}; theme=dark`],
    ['X-Auth-Token', (s) => `X-Auth-Token: ${s}`],
    ['X-Access-Token', (s) => `X-Access-Token: ${s}`],
  ];
  it.each(headerCases)('-H %s', async (_, header) => {
    const secret = newSecret();
    const result = await debugRun(['api', 'GET', '/markings', '-H', header(secret)]);
    expect(result.code).toBe(0);
    expectHidden(result.stderr, secret);
  });

  it('the token of the context or environment', async () => {
    const secret = newSecret();
    const result = await debugRun(['api', 'GET', '/markings'], { KSCTL_TOKEN: secret });
    expectHidden(result.stderr, secret);
  });

  it.each(['token', 'password', 'code', 'stoken', 'uidauth', 'access_token', 'api_key', 'secret'])(
    'query parameter %s, in the path and with --query',
    async (name) => {
      const secret = newSecret();
      const inPath = await debugRun(['api', 'GET', `/markings?${name}=${secret}&limit=1`]);
      expectHidden(inPath.stderr, secret);
      const other = newSecret();
      const flag = await debugRun(['api', 'GET', '/markings', '--query', `${name}=${other}`]);
      expectHidden(flag.stderr, other);
      expect(flag.stderr).toContain(`${name}=[redacted]`);
    },
  );

  it('a request body with a password', async () => {
    const secret = newSecret();
    const file = join(dir, 'body.json');
    await writeFile(file, JSON.stringify({ name: 'n', password: secret }));
    const result = await debugRun(['api', 'POST', '/markings', '--input', file]);
    expect(result.stderr).toContain('[debug] > POST');
    expect(result.stderr).not.toContain(secret);
  });

  it('an error naming a URL with a secret query keeps it out', async () => {
    const secret = newSecret();
    const result = await runCli(['api', 'GET', `/markings?token=${secret}`], {
      env: { KSCTL_CONFIG_DIR: dir, KSCTL_BASE_URL: 'http://127.0.0.1:9/v2/dev', KSCTL_TOKEN: 't' },
    });
    expect(result.code).toBe(7);
    expect(result.stderr).not.toContain(secret);
  });
});

describe('--debug hides secrets in answers', () => {
  it.each(Object.keys(ANSWERS))('%s', async (answer) => {
    const secret = newSecret();
    const query = new URLSearchParams({ answer, secret }).toString();
    // The secret rides in the request's query under a name that is not secret, so the answer
    // can carry it: mask that copy out before looking for the answer's.
    const result = await debugRun(['api', 'GET', `/markings?${query}`]);
    expect(result.code).toBe(0);
    const trace = result.stderr.replaceAll(`secret=${secret}`, 'secret=[redacted]');
    expectHidden(trace, secret);
  });
});

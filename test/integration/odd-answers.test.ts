/**
 * Answers a real service (or a proxy in front of it) may give that are not the API's: redirects,
 * web pages, the wrong JSON, bodies that break off. Each is a clear error naming the URL and what
 * came back, with the exit code of the README table, never exit 1 or a stack trace; credentials
 * never follow a redirect to another origin.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/client/api/client.js';
import { encodeSpkiBase64 } from '../../src/common/enrollment/crypto.js';
import { fetchServerPublicKey } from '../../src/client/enroll/registration.js';
import { portalSignIn } from '../../src/client/enroll/portal.js';
import type { KsctlError } from '../../src/common/errors.js';
import { cliFor } from '../helpers/cli.js';
import { ROOT } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

type Answer = (req: IncomingMessage, res: ServerResponse, origin: string) => void;

interface TinyServer {
  server: Server;
  url: string;
  answer: Answer;
  /** Authorization headers it received. */
  authorizations: (string | undefined)[];
}

async function tinyServer(): Promise<TinyServer> {
  const tiny = { authorizations: [] } as unknown as TinyServer;
  tiny.answer = (_req, res) => res.end();
  tiny.server = createServer((req, res) => {
    tiny.authorizations.push(req.headers.authorization);
    req.resume();
    req.on('end', () => tiny.answer(req, res, tiny.url));
  });
  await new Promise<void>((resolve) => tiny.server.listen(0, '127.0.0.1', resolve));
  tiny.url = `http://127.0.0.1:${(tiny.server.address() as AddressInfo).port}`;
  return tiny;
}

const close = (tiny: TinyServer) =>
  new Promise<void>((resolve) => {
    tiny.server.closeAllConnections();
    tiny.server.close(() => resolve());
  });

const TOKEN = 'odd-answers-secret-token';
const dirs = tempDirs();
let service: TinyServer;
let elsewhere: TinyServer;
let configDir: string;
const ksctl = cliFor(() => ({
  KSCTL_CONFIG_DIR: configDir,
  KSCTL_BASE_URL: `${service.url}/v2/dev`,
  KSCTL_TOKEN: TOKEN,
}));

beforeAll(async () => {
  service = await tinyServer();
  elsewhere = await tinyServer();
});
afterAll(async () => {
  await close(service);
  await close(elsewhere);
});
beforeEach(async () => {
  configDir = await dirs.make();
  service.authorizations = [];
  elsewhere.authorizations = [];
  elsewhere.answer = (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"totalResults":0,"skip":0,"limit":100,"Resources":[]}');
  };
});

function page(status: number, title: string): Answer {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!DOCTYPE html><html><head><title>${title}</title></head><body>…</body></html>`);
  };
}

function jsonText(status: number, text: string): Answer {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(text);
  };
}

const cases: {
  name: string;
  argv: string[];
  answer: () => Answer;
  code: number;
  says: RegExp[];
}[] = [
  {
    name: 'a redirect to another origin',
    argv: ['markings', 'list'],
    answer: () => (_req, res) => {
      res.writeHead(301, { location: `${elsewhere.url}/v2/dev/markings` });
      res.end();
    },
    code: 7,
    says: [
      /answered HTTP 301, a redirect to http:\/\/127\.0\.0\.1:\d+\/v2\/dev\/markings/,
      /does not follow/,
    ],
  },
  {
    name: 'a redirect on the same origin',
    argv: ['markings', 'get', 'classification'],
    answer: () => (_req, res) => {
      res.writeHead(307, { location: '/login?code=one-time-secret' });
      res.end();
    },
    code: 7,
    says: [/HTTP 307, a redirect to http:\/\/127\.0\.0\.1:\d+\/login;/],
  },
  {
    name: 'a sign-in page with 200',
    argv: ['markings', 'list'],
    answer: () => page(200, 'Sign in'),
    code: 7,
    says: [/\/v2\/dev\/markings/, /is not what the service sends/, /an HTML page titled "Sign in"/],
  },
  {
    name: 'JSON of another shape',
    argv: ['markings', 'list'],
    answer: () => jsonText(200, '{"hello":"world"}'),
    code: 7,
    says: [/totalResults is missing/, /a JSON object/],
  },
  {
    name: 'a listing whose markings lack their members',
    argv: ['markings', 'list', '-o', 'json'],
    answer: () => jsonText(200, '{"totalResults":1,"Resources":[{"name":"x"}]}'),
    code: 7,
    says: [/a marking lacks its id or name/],
  },
  {
    name: 'JSON that breaks off, with a right Content-Length',
    argv: ['markings', 'list'],
    answer: () => jsonText(200, '{"totalResults":1,"Resources":[{"id":"6'),
    code: 7,
    says: [/JSON that breaks off or does not parse \(\d+ bytes\)/],
  },
  {
    name: 'a body cut short of its Content-Length',
    argv: ['markings', 'create', 'fresh'],
    answer: () => (_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"id":"0123456789abcdef01234567","na');
      setTimeout(() => res.destroy(), 10);
    },
    code: 7,
    says: [
      /the answer from http:\/\/127\.0\.0\.1:\d+\/v2\/dev\/markings \(HTTP 201\) was cut short/,
    ],
  },
  {
    name: "a proxy's error page",
    argv: ['markings', 'delete', 'x', '--yes'],
    answer: () => page(500, '500 Internal Server Error'),
    code: 7,
    says: [/answered HTTP 500 with an HTML page titled "500 Internal Server Error"/],
  },
  {
    name: "a proxy's 400 page",
    argv: ['markings', 'create', 'fresh'],
    answer: () => page(400, 'Bad Request'),
    code: 3,
    says: [/answered HTTP 400 with an HTML page titled "Bad Request"/],
  },
  {
    name: 'an empty 200 where a marking was expected',
    argv: ['markings', 'create', 'fresh'],
    answer: () => (_req, res) => res.writeHead(201).end(),
    code: 7,
    says: [/a marking is not an object/, /an empty body/],
  },
];

describe('odd answers through the CLI', () => {
  it.each(cases)('$name: exit $code, says what came back', async (c) => {
    service.answer = c.answer();
    const result = await ksctl(c.argv);
    expect(result.stderr).not.toMatch(/\n\s+at |TypeError|Cannot read/);
    // The words, whatever lines the message is broken over.
    for (const pattern of c.says) expect(result.stderr.replace(/\s+/g, ' ')).toMatch(pattern);
    expect(result.code).toBe(c.code);
    expect(result.stderr).not.toContain(TOKEN);
    expect(result.stderr).not.toContain('one-time-secret');
    // Nothing was ever sent to the other origin, least of all the token.
    expect(elsewhere.authorizations).toEqual([]);
  });
});

describe('ksctl api checks no shape: a 2xx body is printed as it came (the README says so)', () => {
  it('the README, where it says another shape is exit 7, names api as the exception', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const paragraph = readme.split('\n\n').find((p) => p.includes('JSON of another shape'))!;
    const said = paragraph.replace(/\s+/g, ' ');
    expect(said).toContain('Every command but `api` checks the shape of an answer');
    expect(said).toMatch(/`ksctl api` .* prints any 2xx body as it came .* with exit 0/);
  });

  it.each([
    [
      'a web page with 200',
      page(200, 'Sign in'),
      /^<!DOCTYPE html><html><head><title>Sign in<\/title>/,
    ],
    [
      'JSON of another shape',
      jsonText(200, '{"hello":"world"}'),
      /^\{\n {2}"hello": "world"\n\}\n$/,
    ],
    [
      'an empty 204',
      (_req: IncomingMessage, res: ServerResponse) => res.writeHead(204).end(),
      /^$/,
    ],
  ] as const)('%s: on stdout, exit 0', async (_what, answer, printed) => {
    service.answer = answer;
    const result = await ksctl(['api', 'GET', '/markings']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(printed);
    expect(result.code).toBe(0);
  });

  it.each([
    [
      'an error page is printed, and its status sets the exit code',
      page(500, 'Oops'),
      7,
      /<title>Oops<\/title>/,
      /GET \/markings: the service answered 500/,
    ],
    [
      'a redirect is not followed: exit 7 naming where it points',
      (_req: IncomingMessage, res: ServerResponse) => {
        res.writeHead(302, { location: '/elsewhere' });
        res.end();
      },
      7,
      /^$/,
      /HTTP 302, a redirect to http:\/\/127\.0\.0\.1:\d+\/elsewhere/,
    ],
    [
      'a body cut short of its Content-Length: exit 7',
      (_req: IncomingMessage, res: ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"hello":');
        setTimeout(() => res.destroy(), 10);
      },
      7,
      /^$/,
      /was cut short/,
    ],
  ] as const)('%s', async (_what, answer, code, printed, says) => {
    service.answer = answer;
    const result = await ksctl(['api', 'GET', '/markings']);
    expect(result.stdout).toMatch(printed);
    expect(result.stderr).toMatch(says);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(code);
  });
});

describe('odd answers to the enrollment calls', () => {
  it('a web page where the key server public key should be is exit 7 naming the URL', async () => {
    service.answer = page(200, 'Welcome');
    const client = new ApiClient({ baseUrl: service.url, auth: { kind: 'none' }, retries: 0 });
    try {
      const error = (await fetchServerPublicKey(
        client,
        { url: `${service.url}/enrollment`, label: 'enrollment URL', advice: 'check it' },
        'ABcd',
      ).catch((e: unknown) => e)) as KsctlError;
      expect(error.exitCode).toBe(7);
      expect(error.message).toMatch(/\/enrollment\/keyspace\/ABcd\/pubkey/);
      expect(error.message).toMatch(/not the Base64 DER of an RSA public key/);
      expect(error.message).toMatch(/an HTML page titled "Welcome"/);
    } finally {
      await client.close();
    }
  });
});

describe('portal headers of later SDKs', () => {
  const signIn = async () => {
    const client = new ApiClient({ baseUrl: service.url, auth: { kind: 'none' }, retries: 0 });
    try {
      return await portalSignIn(client, `${service.url}/enrollment`, 'ABcd', {
        kind: 'password',
        username: 'alice',
        password: 'pw',
      });
    } finally {
      await client.close();
    }
  };
  const tokens = { 'x-ionic-reg-stoken': 'I.abc', 'x-ionic-reg-uidauth': ',Ixyz.sig' };

  it('reads X-Ionic-Reg-Ionic-API-Urls and the inline X-Ionic-Reg-Pubkey', async () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    service.answer = (_req, res) => {
      res.writeHead(200, {
        ...tokens,
        'x-ionic-reg-ionic-api-urls': 'https://api.example.test, https://api2.example.test',
        'x-ionic-reg-pubkey': encodeSpkiBase64(publicKey),
      });
      res.end();
    };
    const answer = await signIn();
    expect(answer.apiUrl).toBe('https://api.example.test');
    expect(answer.serverPublicKey?.equals(publicKey)).toBe(true);
  });

  it('prefers X-Ionic-Reg-Ionic-Url when both forms come', async () => {
    service.answer = (_req, res) => {
      res.writeHead(200, {
        ...tokens,
        'x-ionic-reg-ionic-url': 'https://classic.example.test',
        'x-ionic-reg-ionic-api-urls': 'https://later.example.test',
      });
      res.end();
    };
    const answer = await signIn();
    expect(answer.apiUrl).toBe('https://classic.example.test');
    expect(answer.serverPublicKey).toBeUndefined();
  });

  it('a sign-in page instead of the token headers is exit 7 naming the portal', async () => {
    service.answer = page(200, 'Single sign-on');
    const error = (await signIn().catch((e: unknown) => e)) as KsctlError;
    expect(error.exitCode).toBe(7);
    expect(error.message).toContain(`${service.url}/enrollment/keyspace/ABcd/register`);
    expect(error.message).toContain('an HTML page titled "Single sign-on"');
  });

  it('an inline key that is not a key is exit 7 naming the portal', async () => {
    service.answer = (_req, res) => {
      res.writeHead(200, { ...tokens, 'x-ionic-reg-pubkey': 'bm90IGEga2V5' });
      res.end();
    };
    const error = (await signIn().catch((e: unknown) => e)) as KsctlError;
    expect(error.exitCode).toBe(7);
    expect(error.message).toContain(`${service.url}/enrollment/keyspace/ABcd/register`);
    expect(error.message).toContain('X-Ionic-Reg-Pubkey');
  });
});

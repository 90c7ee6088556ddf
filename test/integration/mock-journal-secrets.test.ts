/**
 * The journal keeps no secret in any form (issue 34): each of the mock's secrets, sent the way
 * real clients send them (text/plain with and without a newline, multipart, a form and JSON with
 * a byte that is not UTF-8, headers), is found in no view of the journal, neither in clear nor in
 * Base64 nor in hex: `GET /_mock/requests`, `GET /_mock/requests/{id}`, `mock requests --bodies`,
 * `mock requests show ID -o json`, and the console's requests and request view.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { TokenPair } from '../../src/common/enrollment/wire.js';
import type {
  JournalEntryWithBodies,
  JournalMessage,
  RequestDetail,
} from '../../src/common/mock/wire.js';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite();

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with its body as bytes, as curl --data-binary sends it. */
function send(
  path: string,
  method: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<Raw> {
  return new Promise<Raw>((resolve, reject) => {
    const req = request(suite.mock.info.url + path, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const NOT_UTF8 = Buffer.from([0xe9]);

function multipart(fields: Record<string, string>): { type: string; body: Buffer } {
  const boundary = `------------------------${randomBytes(8).toString('hex')}`;
  const parts = Object.entries(fields).map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  return {
    type: `multipart/form-data; boundary=${boundary}`,
    body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`),
  };
}

/** The forms a client sends a secret in: each a body (with its type) and headers. */
function forms(secret: string, field: string): { type: string; body: Buffer }[] {
  const other = multipart({ username: 'alice', [field]: secret, note: `see ${secret}` });
  return [
    { type: 'text/plain', body: Buffer.from(`username=alice&${field}=${secret}\n`) },
    { type: 'text/plain', body: Buffer.from(`username=alice&${field}=${secret}`) },
    { type: 'text/plain', body: Buffer.from(`the secret is ${secret} as said`) },
    other,
    {
      type: 'application/x-www-form-urlencoded',
      body: Buffer.concat([
        Buffer.from(`username=alice&${field}=${encodeURIComponent(secret)}&name=Jos`),
        NOT_UTF8,
      ]),
    },
    {
      type: 'application/x-www-form-urlencoded',
      body: Buffer.concat([Buffer.from(`name=Jos`), NOT_UTF8, Buffer.from(`&note=${secret}`)]),
    },
    {
      type: 'application/json',
      body: Buffer.concat([
        Buffer.from(`{"name":"Jos`),
        NOT_UTF8,
        Buffer.from(`","${field}":"${secret}","note":"${secret}"}`),
      ]),
    },
    {
      type: 'application/octet-stream',
      body: Buffer.concat([randomBytes(5), NOT_UTF8, Buffer.from(secret), randomBytes(7)]),
    },
  ];
}

/** Every way the secret could be seen: as it is, percent-encoded, Base64 at each alignment, hex. */
function shapes(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const out = new Set([secret, encodeURIComponent(secret), bytes.toString('hex')]);
  for (let shift = 0; shift < 3; shift++) {
    const shifted = Buffer.concat([Buffer.alloc(shift, 0x41), bytes]).toString('base64');
    // The characters that hold only the secret's bits, whatever came before and after it.
    const start = Math.ceil((shift * 8) / 6);
    const end = Math.floor(((shift + bytes.length) * 8) / 6);
    out.add(shifted.slice(start, end));
    out.add(Buffer.from(shifted, 'base64').toString('base64url').slice(start, end));
  }
  return [...out];
}

/** The text of a view, with each Base64 body decoded and added, so a secret in one is found. */
function viewText(view: unknown): string {
  const decoded: string[] = [];
  JSON.stringify(view, (_key, value: unknown) => {
    const message = value as Partial<JournalMessage> | undefined;
    if (message?.encoding === 'base64' && typeof message.body === 'string') {
      decoded.push(Buffer.from(message.body, 'base64').toString('latin1'));
    }
    return value;
  });
  return `${JSON.stringify(view)}\n${decoded.join('\n')}`;
}

function expectNone(view: string, secrets: Record<string, string>, where: string): void {
  for (const [what, secret] of Object.entries(secrets)) {
    for (const shape of shapes(secret)) {
      expect(view.includes(shape), `${what} (as ${shape}) in ${where}`).toBe(false);
    }
  }
}

async function consoleSession(): Promise<{ cookie: string; csrf: string; code: string }> {
  const link = await send('/_mock/console/links', 'POST', {
    authorization: `Bearer ${suite.mock.token}`,
  });
  const { consoleUrl } = JSON.parse(link.body) as { consoleUrl: string };
  const code = new URL(consoleUrl).searchParams.get('code')!;
  const signedIn = await send(new URL(consoleUrl).pathname + new URL(consoleUrl).search, 'GET', {});
  const cookie = (signedIn.headers['set-cookie'] as string[])[0]!.split(';')[0]!;
  const session = await send('/_mock/console/api/session', 'GET', { cookie });
  return { cookie, code, csrf: (JSON.parse(session.body) as { csrf: string }).csrf };
}

describe('no secret of the mock in any view of the journal', () => {
  it('finds none sent as text, multipart, forms and JSON not UTF-8, or headers', async () => {
    const mock = suite.mock;
    const who = await consoleSession();
    const minted = (await mock.call('POST', '/_mock/tokens', { user: 'alice' })).body as TokenPair;
    // A successful sign-in with a body that is not UTF-8: the pair in the answer's headers.
    const signIn = await send(
      '/enrollment/keyspace/ABcd/register',
      'POST',
      { 'content-type': 'application/x-www-form-urlencoded' },
      Buffer.concat([Buffer.from('username=alice&password=alice-password&name=Jos'), NOT_UTF8]),
    );
    expect(signIn.status).toBe(200);
    const portal = {
      stoken: signIn.headers['x-ionic-reg-stoken'] as string,
      uidauth: signIn.headers['x-ionic-reg-uidauth'] as string,
    };
    const wrongPassword = `not-${randomBytes(9).toString('hex')}`;
    const secrets: Record<string, string> = {
      'the dev token': mock.token,
      "alice's password": 'alice-password',
      'the CSRF token': who.csrf,
      'the session cookie': who.cookie.split('=')[1]!,
      'the console code': who.code,
      'the minted STOKEN': minted.stoken,
      'the minted UIDAUTH': minted.uidauth,
      "the portal's STOKEN": portal.stoken,
      "the portal's UIDAUTH": portal.uidauth,
    };
    const targets = [
      '/enrollment/keyspace/ABcd/register',
      '/_mock/console/login',
      '/oauth2/introspect',
      '/v2/dev/markings',
    ];
    for (const [what, secret] of Object.entries({
      ...secrets,
      'a wrong password': wrongPassword,
    })) {
      const field = what === 'the dev token' ? 'token' : 'password';
      for (const path of targets) {
        for (const { type, body } of forms(secret, field)) {
          await send(
            path,
            'POST',
            { 'content-type': type, authorization: `Bearer ${mock.token}` },
            body,
          );
        }
      }
      // In headers, as a console page and as odd clients send them.
      await send('/v2/dev/markings', 'GET', {
        cookie: `${who.cookie}; other=${secret}`,
        'x-ksctl-csrf': secret,
        'x-note': `the secret is ${secret}`,
      });
    }
    // The console's own requests: its cookie and CSRF token go with each.
    const consoleHeaders = { cookie: who.cookie, 'x-ksctl-csrf': who.csrf, origin: mock.info.url };
    await send('/_mock/console/api/overview', 'GET', consoleHeaders);

    // The wrong password is not the mock's: only where a name says it is a password.
    const named = { 'a wrong password': wrongPassword };
    const all = (await mock.call('GET', '/_mock/requests?bodies=true&limit=10000')).body as {
      total: number;
      requests: JournalEntryWithBodies[];
      next?: string;
    };
    expect(all.next).toBeUndefined();
    expect(all.requests.length).toBeGreaterThan(250);
    const allText = viewText(all);
    expectNone(allText, secrets, 'GET /_mock/requests?bodies=true');
    // Sent under a secret's name, a password the mock does not know is hidden as well.
    for (const entry of all.requests) {
      const body = viewText(entry.request);
      if (/password=|"password"|name="password"/.test(body))
        expectNone(body, named, `#${entry.id}`);
    }
    // Nothing was left out to get there: each message is in the journal, redacted.
    expect(allText).toContain('username=alice&password=[redacted]\\n');
    expect(allText).toContain(
      'Content-Disposition: form-data; name=\\"password\\"\\r\\n\\r\\n[redacted]',
    );
    expect(allText).toContain('"x-ksctl-csrf":"[redacted]"');

    // Each request described, by the admin endpoint and by the console.
    const detailed: unknown[] = [];
    const described: unknown[] = [];
    for (const entry of all.requests) {
      detailed.push((await mock.call('GET', `/_mock/requests/${entry.id}`)).body);
      described.push(
        JSON.parse(
          (await send(`/_mock/console/api/requests/${entry.id}`, 'GET', consoleHeaders)).body,
        ),
      );
    }
    expectNone(viewText(detailed), secrets, 'GET /_mock/requests/{id}');
    expectNone(viewText(described), secrets, 'the console’s request view');
    const listed = await send('/_mock/console/api/requests?limit=500', 'GET', consoleHeaders);
    expect(listed.status).toBe(200);
    expectNone(listed.body, secrets, 'the console’s requests');

    // The command line, on a terminal and whole in JSON.
    const text = await suite.ksctl(['mock', 'requests', '--bodies', '--admin', '--tail', '10000'], {
      tty: true,
    });
    expect(text.code, text.stderr).toBe(0);
    expectNone(text.stdout, secrets, 'mock requests --bodies');
    const json = await suite.ksctl([
      'mock',
      'requests',
      '--bodies',
      '--admin',
      '--tail',
      '10000',
      '-o',
      'json',
    ]);
    expect(json.code, json.stderr).toBe(0);
    expectNone(viewText(JSON.parse(json.stdout)), secrets, 'mock requests --bodies -o json');
    const notUtf8 = all.requests.filter((r) => r.request.encoding === 'base64').slice(0, 4);
    expect(notUtf8.length).toBeGreaterThan(0);
    for (const entry of notUtf8) {
      const shown = await suite.ksctl(['mock', 'requests', 'show', String(entry.id), '-o', 'json']);
      expect(shown.code, shown.stderr).toBe(0);
      const detail = JSON.parse(shown.stdout) as RequestDetail;
      expectNone(viewText(detail), secrets, `mock requests show ${entry.id}`);
      expect(Buffer.from(detail.request.body, 'base64').toString('latin1')).toContain('[redacted]');
    }
  });

  it('keeps a compressed body as its size and digest only', async () => {
    const body = randomBytes(300);
    await send(
      '/v2/dev/markings',
      'POST',
      {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        authorization: `Bearer ${suite.mock.token}`,
      },
      body,
    );
    const { requests } = (await suite.mock.call('GET', '/_mock/requests?bodies=true')).body as {
      requests: JournalEntryWithBodies[];
    };
    const entry = requests.find((r) => r.path === '/v2/dev/markings')!;
    expect(entry.request.body).toBe('');
    expect(entry.request.bytes).toBe(300);
    const { createHash } = await import('node:crypto');
    expect(entry.request.withheld).toBe(
      `sha256:${createHash('sha256').update(body).digest('hex')}`,
    );
    const shown = await suite.ksctl(['mock', 'requests', '--bodies'], { tty: true });
    expect(shown.stdout).toContain('could not be scrubbed of secrets safely');
  });
});

/**
 * Requests described (`GET /_mock/requests/{id}`, issue 24): a device enrolled with `ksctl enroll`
 * and keys made with `ksctl keys create`, then their requests opened by the mock: the attributes
 * the device sent in clear, protected values decrypted and marked, a sealed error's code and
 * meaning, what a registration's package held (never its STOKEN or UIDAUTH), and lines to send a
 * request again without secrets.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import type { TokenPair } from '../../src/common/enrollment/wire.js';
import type { JournalEntry, RequestDetail, RequestJournal } from '../../src/common/mock/wire.js';
import { makeCid } from '../../src/common/device/cid.js';
import {
  JOURNAL_BODIES_MAX_BYTES,
  JOURNAL_BODY_KEPT_BYTES,
} from '../../src/mock/journal/request-journal.js';
import { cliFor } from '../helpers/cli.js';
import { DEV_TOKEN } from '../helpers/mock.js';
import { enrollingSuite } from './mock-enroll-fixtures.js';

const suite = enrollingSuite();
const cli = cliFor(() => suite.markingsEnv());

async function ok(argv: string[], env: Record<string, string> = {}) {
  const result = await cli(argv, { env });
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** Newest first: a device's first request is answered 4001 and sent again with its fingerprint. */
async function requests(query: string): Promise<JournalEntry[]> {
  const answer = await suite.mock.call('GET', `/_mock/requests?order=newest&${query}`);
  return (answer.body as RequestJournal).requests;
}

/** The widest line of a text, in terminal columns. */
const longest = (text: string) => Math.max(...text.split('\n').map((line) => stringWidth(line)));

/** What a shell makes of commands: each program's name, standard input and arguments. */
async function argvOf(commands: string): Promise<string> {
  const script = `args() { for a in "$@"; do printf '[%s]' "$a"; done; echo; }
curl() { printf 'curl'; args "$@"; }
ksctl() { printf 'ksctl <%s>' "$(cat)"; args "$@"; }
${commands}`;
  const { stdout } = await promisify(execFile)('sh', ['-c', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  });
  return stdout;
}

async function describeOne(id: number): Promise<RequestDetail> {
  const answer = await suite.mock.call('GET', `/_mock/requests/${id}`);
  expect(answer.status).toBe(200);
  return answer.body as RequestDetail;
}

/** Enrolls with a pair minted here, so the test knows the tokens that must never show. */
async function enroll(): Promise<TokenPair> {
  const pair = (await suite.mock.call('POST', '/_mock/tokens', { user: 'alice' }))
    .body as TokenPair;
  await ok(['enroll'], { KSCTL_STOKEN: pair.stoken, KSCTL_UIDAUTH: pair.uidauth });
  return pair;
}

describe('a described request', () => {
  it('shows what a registration held: key size, signature, user; never the tokens', async () => {
    const pair = await enroll();
    const [register] = await requests('side=enrollment&path=/register/');
    expect(register!.path).toMatch(/^\/v2\.[34]\/register\/ABcd$/);
    const detail = await describeOne(register!.id);
    expect(detail.enrollment).toMatchObject({
      keyspace: 'ABcd',
      keyBits: 3072,
      signatureValid: true,
      user: 'alice',
      deviceId: expect.stringMatching(/^ABcd\./),
    });
    const text = JSON.stringify(detail);
    for (const secret of [pair.stoken, pair.uidauth, pair.uidauth.slice(2), DEV_TOKEN]) {
      expect(text).not.toContain(secret);
    }
    // The package's encrypted members are redacted too; k (the keyspace) is not a secret.
    expect(JSON.parse(detail.request.body)).toMatchObject({
      k: 'ABcd',
      p: '[redacted]',
      s: '[redacted]',
      g: '[redacted]',
    });
    expect(JSON.parse(detail.response.body)).toMatchObject({ SEPAESK: '[redacted]' });
  });

  it('opens a keys/create envelope: the attributes in clear, protected values decrypted', async () => {
    await enroll();
    await ok(['markings', 'create', 'classification', '--value', 'public', '--value', 'internal']);
    await ok([
      'keys',
      'create',
      '--ref',
      'docs',
      '--attr',
      'classification=internal',
      '--protected-attr',
      'owner=alice',
    ]);
    const [create] = await requests('side=device&path=/keys/create');
    expect(create!.device).toMatch(/^ABcd\./);
    const detail = await describeOne(create!.id);
    expect(detail.problems).toBeUndefined();
    expect(detail.opened).toMatchObject({
      deviceId: create!.device,
      keyId: `SEP.CD:IDC of ${create!.device}`,
      dialect: 'v2.4',
    });
    const clear = detail.opened!.clear as { data: { 'protection-keys': unknown[] } };
    expect(clear.data['protection-keys']).toEqual([
      expect.objectContaining({
        ref: 'docs',
        qty: 1,
        cattrs: {
          classification: ['internal'],
          'ionic-protected-owner': { decrypted: true, values: ['alice'] },
        },
      }),
    ]);
    // The answer opened too; the data key it carries is not shown.
    const answer = detail.opened!.answer as {
      data: { 'protection-keys': { ref: string; id: string; key: string }[] };
    };
    expect(answer.data['protection-keys'][0]).toMatchObject({ ref: 'docs', key: '[redacted]' });
    expect(detail.opened!.sealedError).toBeUndefined();
    // The raw request body is the envelope as sent: nothing readable in it.
    expect(detail.request.body).not.toContain('internal');

    // A fetch's answer: the stored protected value opened with the key's data key.
    const id = answer.data['protection-keys'][0]!.id;
    await ok(['keys', 'get', id]);
    const [fetch] = await requests('side=device&path=/keys/fetch');
    const fetched = (await describeOne(fetch!.id)).opened!.answer as {
      data: { 'protection-keys': { cattrs: Record<string, unknown> }[] };
    };
    expect(fetched.data['protection-keys'][0]!.cattrs).toMatchObject({
      classification: ['internal'],
      'ionic-protected-owner': { decrypted: true, values: ['alice'] },
    });
  });

  it('shows a sealed error with its code and meaning', async () => {
    await enroll();
    await ok(['keys', 'create']);
    // The first request of a device the mock has no fingerprint of is answered 4001, sealed.
    const first = (await requests('side=device&path=/keys/create')).at(-1)!;
    expect((await describeOne(first.id)).opened!.sealedError).toEqual({
      code: 4001,
      meaning: 'unknown hfphash: send the full hfp',
      message: 'unknown hfphash: send the full hfp',
      hint: expect.stringContaining('fingerprint'),
    });
  });

  it("explains a sealed error for whichever client sent it, not as ksctl's own client's fault", async () => {
    await enroll();
    await ok(['keys', 'create']);
    const first = (await requests('side=device&path=/keys/create')).at(-1)!;
    const { hint } = (await describeOne(first.id)).opened!.sealedError!;
    // Every SDK's first request is answered so: the hint says what happens next, not "report it".
    expect(hint).toContain('the client sends the request again with its whole fingerprint');
    expect(hint).not.toMatch(/retry|report/);
  });

  it('shows a refusal sealed in the answer with its code and meaning', async () => {
    await enroll();
    await ok(['markings', 'create', 'classification', '--value', 'public']);
    const refused = await cli(['keys', 'create', '--attr', 'classification=secret']);
    expect(refused.code).toBe(3);
    const [create] = await requests('side=device&path=/keys/create');
    const detail = await describeOne(create!.id);
    expect(detail.opened!.sealedError).toEqual({
      code: 4020,
      meaning: 'a marking attribute carries a value the marking does not have',
      message: expect.stringContaining('marking "classification" has no value "secret"'),
      hint: expect.stringContaining('ksctl markings values list'),
    });
    const clear = detail.opened!.clear as { data: { 'protection-keys': { cattrs: unknown }[] } };
    expect(clear.data['protection-keys'][0]!.cattrs).toEqual({ classification: ['secret'] });
  });

  it('says why an envelope cannot be opened, and still describes the rest', async () => {
    const cid = makeCid('ABcd.1.unknown-device');
    await fetch(`${suite.mock.info.apiUrl}/v2.4/keys/fetch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-conversation-id': cid },
      body: JSON.stringify({ cid, envelope: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }),
    }).then((r) => r.arrayBuffer());
    const [request] = await requests('side=device');
    const detail = await describeOne(request!.id);
    expect(detail.device).toBe('ABcd.1.unknown-device');
    expect(detail.opened).toBeUndefined();
    expect(detail.problems).toEqual([
      expect.stringContaining('device ABcd.1.unknown-device is not enrolled with this mock'),
    ]);
    expect(detail.status).toBe(401);
    expect(detail.curl).toContain(`curl -X POST http://127.0.0.1:`);
    expect(detail.curl).toContain(`-H 'x-conversation-id: ${cid}'`);
  });

  it('sends a device request again with a fresh cid: the lines work, where the sent cid is refused (409)', async () => {
    await enroll();
    await ok(['keys', 'create', '--ref', 'again']);
    const [create] = await requests('side=device&path=/keys/create&status=200');
    const sent = JSON.parse((await describeOne(create!.id)).request.body) as { cid: string };

    // The curl line, run by a shell: a fresh cid, so the service creates a key again.
    const detail = await describeOne(create!.id);
    expect(detail.curl).toMatch(
      /^# a fresh cid, the envelope sealed again for it: good for five minutes, once\n/,
    );
    expect(detail.curl).not.toContain(sent.cid);
    const status = await promisify(execFile)(
      'bash',
      ['-c', `${detail.curl} -s -o /dev/null -w '%{http_code}'`],
      { encoding: 'utf8' },
    );
    expect(status.stdout).toBe('200');
    const [again] = await requests('side=device&path=/keys/create');
    expect(again!.id).toBeGreaterThan(create!.id);
    expect(again!.status).toBe(200);
    const replayed = await describeOne(again!.id);
    expect(replayed.opened?.sealedError).toBeUndefined();

    // The ksctl line, from another description (each has its own cid).
    const line = (await describeOne(create!.id)).ksctl;
    const parsed = /^printf '%s' '([^']*)' \| ksctl api POST (\S+) -H '([^']*)' --input -$/.exec(
      line,
    );
    expect(parsed, line).not.toBeNull();
    expect(parsed![3]).toBe(`X-Conversation-ID: ${JSON.parse(parsed![1]!).cid}`);
    const viaKsctl = await cli(['api', 'POST', parsed![2]!, '-H', parsed![3]!, '--input', '-'], {
      stdin: parsed![1],
    });
    expect(viaKsctl.code, viaKsctl.stderr).toBe(0);
    expect(JSON.parse(viaKsctl.stdout)).toMatchObject({ cid: expect.stringMatching(/^CID\|/) });

    // The request as it was sent is refused: its cid was used.
    const asSent = await fetch(`${suite.mock.info.apiUrl}/v2.4/keys/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: (await describeOne(create!.id)).request.body,
    });
    await asSent.arrayBuffer();
    expect(asSent.status).toBe(409);
  });

  it('sends a request whose headers and body the journal let go to the right port, as JSON', async () => {
    const created = await suite.mock.call('POST', '/v2/dev/markings', { name: 'first' });
    expect(created.status).toBe(201);
    const [first] = await requests('side=markings&method=POST');
    // Enough large requests after it that the journal lets the first one's messages go.
    const pad = 'x'.repeat(JOURNAL_BODY_KEPT_BYTES);
    const count = Math.ceil(JOURNAL_BODIES_MAX_BYTES / JOURNAL_BODY_KEPT_BYTES) + 8;
    for (let i = 0; i < count; i++) {
      await fetch(`${suite.mock.info.url}/v2/dev/markings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEV_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `big-${i}`, pad }),
      }).then((r) => r.arrayBuffer());
    }
    const detail = await describeOne(first!.id);
    expect(detail.request.dropped).toBe(true);
    const url = `${suite.mock.info.url}/v2/dev/markings`;
    expect(detail.curl).toContain(
      `curl -X POST ${url} -H "Authorization: Bearer $KSCTL_TOKEN" -H 'content-type: application/json' --data-binary @body`,
    );
    expect(detail.curl).not.toMatch(/keeps only part/);
    expect(detail.curl).toMatch(/the journal let it go, with the headers/);
    expect(detail.ksctl).toBe('ksctl api POST /markings --input body');
  });

  it('journals the error sealed in a 200 answer: deviceCode, found by status=4xx and by the code', async () => {
    await enroll();
    // No key has this id: the fetch is answered 200, the failure (4004) inside the envelope.
    const fetched = await cli(['keys', 'fetch', 'ABcdnone0000']);
    expect(fetched.code).not.toBe(0);
    const [fetch] = await requests('side=device&path=/keys/fetch');
    expect(fetch).toMatchObject({ status: 200, deviceCode: 4004 });
    const ids = async (status: string) => (await requests(`status=${status}`)).map((e) => e.id);
    expect(await ids('4xx')).toContain(fetch!.id);
    expect(await ids('4004')).toContain(fetch!.id);
    expect(await ids('200')).toContain(fetch!.id);
    expect(await ids('5xx')).not.toContain(fetch!.id);
  });

  it('breaks the lines to send it again to an 80-column terminal, and they still run', async () => {
    await ok(['markings', 'list']);
    const [list] = await requests('side=markings&method=GET');
    const shown = await cli(['mock', 'requests', 'show', String(list!.id)], {
      stdoutIsTTY: true,
      columns: 80,
    });
    expect(shown.code, shown.stderr).toBe(0);
    const again = shown.stdout.split('Send it again:\n')[1]!;
    const lines = again.split('\n').filter((line) => line !== '');
    expect(lines.filter((line) => line.length > 80)).toEqual([]);
    expect(lines.length).toBeGreaterThan(2);
    // The curl command as copied from the terminal, its ` \` continuations and all.
    const curl = lines.slice(0, lines.findIndex((line) => !line.endsWith(' \\')) + 1).join('\n');
    expect(curl).toMatch(/^ {2}curl /);
    const status = await promisify(execFile)(
      'bash',
      ['-c', `${curl} -s -o /dev/null -w '%{http_code}'`],
      { encoding: 'utf8', env: { ...process.env, KSCTL_TOKEN: DEV_TOKEN } },
    );
    expect(status.stdout).toBe('200');
  });

  it('fits 80 columns on a terminal and in a pipe, and the lines to send it again are the same commands', async () => {
    await enroll();
    const description = `${'Data classification level for every document that the company stores '.repeat(4)}in its archives`;
    await ok(['markings', 'create', 'archive-classification', '--description', description]);
    // Text two columns wide a character: folded by the columns it takes, not its length.
    await ok([
      'markings',
      'create',
      'wide',
      '--description',
      '機密区分はすべての文書に適用されます。'.repeat(4),
    ]);
    const [cjk] = await requests('side=markings&method=POST');
    await ok(['markings', 'list']);
    await ok(['keys', 'create', '--ref', 'a-rather-long-reference-for-the-key-it-asks-for']);
    const [create] = await requests('side=device&path=/keys/create');
    const [marking] = await requests('side=markings&method=POST');
    const [register] = await requests('side=enrollment&path=/register/');
    // Before: headers to 124 columns, envelopes to 720, the lines to send again over 800.
    const wide = await cli(['mock', 'requests', '--bodies'], { columns: 1000 });
    expect(longest(wide.stdout)).toBeGreaterThan(200);
    const views: [string, string[]][] = [
      ['--bodies', ['mock', 'requests', '--bodies']],
      ...[create!, marking!, register!, cjk!].map((entry): [string, string[]] => [
        `show ${entry.path}`,
        ['mock', 'requests', 'show', String(entry.id)],
      ]),
    ];
    for (const [name, argv] of views) {
      for (const tty of [true, false]) {
        // A pipe says no width: 80, as the process would take when COLUMNS is unset.
        const shown = await cli(argv, { stdoutIsTTY: tty, columns: 80 });
        expect(shown.code, shown.stderr).toBe(0);
        const over = shown.stdout.split('\n').filter((line) => stringWidth(line) > 80);
        expect(over, `${name}, ${tty ? 'terminal' : 'pipe'}`).toEqual([]);
      }
    }
    // The commands as printed, given to a shell, run the same programs with the same arguments
    // as the whole lines -o json gives (curl and ksctl stand-ins print what they were given).
    for (const entry of [create!, marking!]) {
      const detail = await describeOne(entry.id);
      const shown = await cli(['mock', 'requests', 'show', String(entry.id)], { columns: 80 });
      const again = shown.stdout.split('Send it again:\n')[1]!;
      const commands = again.split('\n').filter((line) => !line.trimStart().startsWith('#'));
      expect(commands.length).toBeGreaterThan(4);
      // The fresh cid differs from one description to the next: compared without it.
      const fresh = (text: string) =>
        text.replace(/\|\d{13}\|[\w+/=]{8}\|/g, '|T|R|').replace(/"envelope":"[^"]*"/g, 'E');
      expect(fresh(await argvOf(commands.join('\n')))).toBe(
        fresh(await argvOf(`${detail.curl}\n${detail.ksctl}`)),
      );
    }
  });

  it('gives curl and ksctl lines without secrets, quoted for the shell', async () => {
    const body = { name: "it's here", detail: { description: 'a "quoted" word' } };
    const created = await suite.mock.call('POST', '/v2/dev/markings', body);
    expect(created.status).toBe(201);
    const [create] = await requests('side=markings&method=POST');
    const detail = await describeOne(create!.id);
    const url = `${suite.mock.info.url}/v2/dev/markings`;
    expect(detail.curl).toBe(
      `curl -X POST ${url} -H "Authorization: Bearer $KSCTL_TOKEN" -H 'content-type: application/json' --data-binary '{"name":"it'\\''s here","detail":{"description":"a \\"quoted\\" word"}}'`,
    );
    expect(detail.ksctl).toBe(
      `printf '%s' '{"name":"it'\\''s here","detail":{"description":"a \\"quoted\\" word"}}' | ksctl api POST /markings --input -`,
    );
    expect(JSON.stringify(detail)).not.toContain(DEV_TOKEN);
  });
});

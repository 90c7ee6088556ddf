/**
 * `ksctl mock record --target CONTEXT` (issue 32): a recording proxy in front of a service. A run
 * of ksctl commands through it reaches the service, shows in `ksctl mock requests`, and is written
 * to `--out` on SIGTERM as a `Recording` with every credential redacted and bodies a replay needs
 * kept past the journal's 64 KiB. Such a recording of ksctl commands replays with no difference
 * (`ksctl conformance --replay`), and the same recording edited to carry a drift is reported.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntryWithBodies, Recording } from '../../src/common/mock/wire.js';
import {
  assertBuilt,
  BIN,
  cleanEnv,
  type Exit,
  ksctl,
  serveMock,
  type ServedMock,
} from '../helpers/spawn.js';
import { prng } from '../helpers/random.js';
import { tempDirs } from '../helpers/temp.js';

interface RecorderInfo {
  url: string;
  baseUrl: string;
  target: string;
  token: string;
  context?: string;
  consoleUrl?: string;
}

const dirs = tempDirs();
let config: string;
let service: ServedMock;
const children: ChildProcess[] = [];

const env = (extra: Record<string, string> = {}) =>
  cleanEnv({ KSCTL_CONFIG_DIR: config, ...extra });
const run = (args: string[], input?: string, extra: Record<string, string> = {}) =>
  ksctl(args, { env: env(extra), input, timeoutMs: 120_000 });

/** `ksctl mock record ARGS --port 0 --ready-file F`, waiting (bounded) until it is ready. */
async function startRecorder(args: string[]) {
  const ready = join(await dirs.make(), 'ready.json');
  const child = spawn(
    process.execPath,
    [BIN, 'mock', 'record', '--port', '0', '--ready-file', ready, ...args],
    { env: env(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  const exit = new Promise<Exit>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  for (let waited = 0; !existsSync(ready); waited += 25) {
    if (child.exitCode !== null || waited > 30_000) {
      child.kill('SIGKILL');
      throw new Error(`mock record did not start: ${stderr}`);
    }
    await sleep(25);
  }
  const info = JSON.parse(await readFile(ready, 'utf8')) as RecorderInfo;
  return {
    info,
    output: () => ({ stdout, stderr }),
    async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<Exit> {
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      try {
        return await exit;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

beforeAll(async () => {
  assertBuilt();
  config = await dirs.make();
  const serviceConfig = await dirs.make();
  service = await serveMock(['--no-context'], {
    env: cleanEnv({ KSCTL_CONFIG_DIR: serviceConfig }),
    readyFile: join(serviceConfig, 'ready.json'),
  });
  const tokenFile = join(config, 'token');
  await writeFile(tokenFile, service.info.token);
  const added = await run([
    '--base-url',
    service.info.baseUrl,
    '--token-file',
    tokenFile,
    'context',
    'add',
    'tenant',
    '--use',
  ]);
  expect(added.code).toBe(0);
}, 60_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await service?.stop();
  await dirs.removeAll();
});

describe('ksctl mock record', () => {
  it('records a run of ksctl commands, shows it in mock requests, and writes it on SIGTERM without a credential', async () => {
    const out = join(await dirs.make(), 'session.json');
    const recorder = await startRecorder(['--target', 'tenant', '--out', out]);
    expect(recorder.info.context).toBe('record');
    expect(recorder.info.token).not.toBe(service.info.token);
    expect(recorder.output().stderr).toContain(`Markings API:    ${recorder.info.baseUrl}`);

    // A marking whose answer is well over the journal's 64 KiB.
    const values = Array.from({ length: 2_000 }, (_, i) => `value-${String(i).padStart(4, '0')}`);
    const markings = JSON.stringify({ markings: [{ name: 'wide', values }] });
    const steps: [string[], string | undefined, number][] = [
      [['markings', 'apply', '-f', '-', '--yes'], markings, 0],
      [['markings', 'create', 'region', '--value', 'eu', '--value', 'us'], undefined, 0],
      [['markings', 'get', 'wide', '-o', 'json'], undefined, 0],
      [['api', 'GET', '/markings/6b0000000000000000000000'], undefined, 5],
      [
        ['api', 'POST', '/markings', '--input', '-'],
        JSON.stringify({ name: 'bad name!', token: 'hunter2-secret', password: 'pw-secret' }),
        3,
      ],
      [['markings', 'delete', 'region', '--yes'], undefined, 0],
    ];
    for (const [args, input, code] of steps) {
      const exit = await run(['--context', 'record', ...args], input);
      expect(exit.stderr).not.toMatch(/\n\s+at /);
      expect([args, exit.code]).toEqual([args, code]);
    }
    // What reached the service: the marking exists there.
    const direct = await run(['--context', 'tenant', 'markings', 'get', 'wide', '-o', 'json']);
    expect(JSON.parse(direct.stdout).detail.valueCount).toBe(2_000);

    const listed = await run(['--context', 'record', 'mock', 'requests', '--bodies', '-o', 'json']);
    expect(listed.code).toBe(0);
    const journal = JSON.parse(listed.stdout) as JournalEntryWithBodies[];
    const wide = journal.find((e) => e.method === 'GET' && e.response.bytes > 64 * 1024)!;
    expect(wide.response.truncated).toBe(true);

    const stopped = await recorder.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toMatch(/^recorded \d+ exchanges to .*session\.json$/m);

    const text = await readFile(out, 'utf8');
    expect((await stat(out)).mode & 0o077).toBe(0);
    for (const secret of [service.info.token, recorder.info.token, 'hunter2-secret', 'pw-secret']) {
      expect(text).not.toContain(secret);
    }
    const recording = JSON.parse(text) as Recording;
    expect(recording).toMatchObject({
      format: 'ksctl-recording',
      version: 1,
      target: new URL(service.info.baseUrl).origin,
    });
    expect(Date.parse(recording.endedAt)).toBeGreaterThanOrEqual(Date.parse(recording.startedAt));
    // Every exchange the journal listed, in the same order, with the statuses the service gave.
    expect(recording.exchanges.map((e) => [e.id, e.method, e.path, e.status])).toEqual(
      journal.map((e) => [e.id, e.method, e.path, e.status]),
    );
    expect(recording.exchanges.map((e) => e.status)).toEqual(
      expect.arrayContaining([200, 201, 404, 400, 204]),
    );
    for (const exchange of recording.exchanges) {
      expect(exchange.request.headers.authorization ?? 'Bearer [redacted]').toBe(
        'Bearer [redacted]',
      );
      expect(exchange.request.headers.host).toBeDefined();
    }
    // The big answer whole, as the service sent it (the recording keeps up to 16 MiB of a body).
    const recorded = recording.exchanges.find((e) => e.id === wide.id)!;
    expect(recorded.response.truncated).toBe(false);
    expect(Buffer.byteLength(recorded.response.body)).toBe(recorded.response.bytes);
    const body = JSON.parse(recorded.response.body) as {
      Resources?: { detail: { values: unknown[] } }[];
      detail?: { values: unknown[] };
    };
    const answered = body.Resources?.[0] ?? body;
    expect(answered.detail?.values).toHaveLength(2_000);
    // A request body with secrets, redacted as the mock's journal redacts its own.
    const bad = recording.exchanges.find((e) => e.status === 400)!;
    expect(JSON.parse(bad.request.body)).toMatchObject({ name: 'bad name!' });
  }, 180_000);

  it('answers 502 with the markings error shape when the service does not answer, and journals it', async () => {
    const tokenFile = join(config, 'token');
    const added = await run([
      '--base-url',
      'http://127.0.0.1:9/v2/dev',
      '--token-file',
      tokenFile,
      'context',
      'add',
      'gone',
    ]);
    expect(added.code).toBe(0);
    const recorder = await startRecorder(['--target', 'gone', '--no-context', '--no-log']);
    const answer = await fetch(`${recorder.info.baseUrl}/markings`, {
      headers: { authorization: `Bearer ${recorder.info.token}` },
    });
    expect(answer.status).toBe(502);
    const error = (await answer.json()) as { error: { code: number; message: string } };
    expect(error.error.message).toMatch(/did not answer \(ECONNREFUSED\)/);
    const journal = await fetch(`${recorder.info.url}/_mock/requests`, {
      headers: { authorization: `Bearer ${recorder.info.token}` },
    });
    expect(((await journal.json()) as { requests: { status: number }[] }).requests).toEqual([
      expect.objectContaining({ status: 502, path: '/v2/dev/markings' }),
    ]);
    // Paged as the mock pages its journal, each page naming the next.
    const again = await fetch(`${recorder.info.baseUrl}/markings`, {
      headers: { authorization: `Bearer ${recorder.info.token}` },
    });
    expect(again.status).toBe(502);
    await again.arrayBuffer();
    const paged = await fetch(`${recorder.info.url}/_mock/requests?limit=1`, {
      headers: { authorization: `Bearer ${recorder.info.token}` },
    });
    const page = (await paged.json()) as { requests: { id: number }[]; next?: string };
    expect(page.requests).toHaveLength(1);
    expect(page.next).toBe(`/_mock/requests?limit=1&before=${page.requests[0]!.id}`);
    expect(paged.headers.get('link')).toBe(`<${page.next}>; rel="next"`);
    const stopped = await recorder.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toMatch(/^stopped$/m);
  }, 60_000);

  it("reads its journal only with its own token, never with the service's", async () => {
    const recorder = await startRecorder(['--target', 'tenant', '--no-context', '--no-log']);
    for (const token of [service.info.token, 'wrong', '']) {
      const answer = await fetch(`${recorder.info.url}/_mock/requests`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(answer.status).toBe(401);
    }
    const health = await fetch(`${recorder.info.url}/_mock/health`);
    expect(health.status).toBe(200);
    await recorder.stop();
  }, 60_000);

  it("serves the console's Requests over its journal: the printed link signs in, the exchange is listed, no other token reads it", async () => {
    const recorder = await startRecorder(['--target', 'tenant', '--no-log']);
    const { url, consoleUrl, token } = recorder.info;
    expect(consoleUrl).toMatch(new RegExp(`^${url}/_mock/console/login\\?code=[\\w-]{22}$`));
    expect(recorder.output().stderr).toContain(consoleUrl);
    const listed = await run(['--context', 'record', 'markings', 'list', '-o', 'json']);
    expect(listed.code).toBe(0);

    const api = `${url}/_mock/console/api`;
    // Before signing in, and with the service's token or the recorder's as a bearer: nothing.
    const attempts: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${service.info.token}` },
      { authorization: `Bearer ${token}` },
      { cookie: `ksctl_console_${new URL(url).port}=${service.info.token}` },
    ];
    for (const headers of attempts) {
      const refused = await fetch(`${api}/requests`, { headers });
      expect(refused.status).toBe(401);
      expect(await refused.text()).not.toContain('/markings');
    }
    // The service's token makes no sign-in link; the recorder's does.
    const foreign = await fetch(`${url}/_mock/console/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.info.token}` },
    });
    expect(foreign.status).toBe(401);
    const another = await run(['--context', 'record', 'mock', 'console', '-o', 'json']);
    expect([another.code, another.stderr]).toEqual([0, '']);
    expect(another.stdout).toContain(`${url}/_mock/console/login?code=`);

    const signedIn = await fetch(consoleUrl!, { redirect: 'manual' });
    expect(signedIn.status).toBe(303);
    const cookie = signedIn.headers.getSetCookie()[0]!.split(';')[0]!;
    // The code is spent: the same link signs in no one else.
    const again = await fetch(consoleUrl!, { redirect: 'manual' });
    expect(again.headers.get('location')).toContain('signin=expired');

    const session = await fetch(`${api}/session`, { headers: { cookie } });
    expect(await session.json()).toMatchObject({ recording: new URL(service.info.baseUrl).origin });
    const page = await fetch(`${api}/requests`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const { total, requests } = (await page.json()) as {
      total: number;
      requests: { id: number; method: string; path: string; status: number }[];
    };
    const exchange = requests.find((e) => e.method === 'GET' && e.path.includes('/markings'));
    expect(exchange).toMatchObject({ status: 200 });
    expect(total).toBe(requests.length);
    const detail = await fetch(`${api}/requests/${exchange!.id}`, { headers: { cookie } });
    expect(detail.status).toBe(200);
    const text = await detail.text();
    expect(text).toContain(exchange!.path);
    for (const secret of [service.info.token, token, cookie.split('=')[1]!]) {
      expect(text).not.toContain(secret);
    }
    // The pages of a mock's state belong to a mock.
    for (const path of ['devices', 'faults', 'markings', 'outbox', 'stats']) {
      const absent = await fetch(`${api}/${path}`, { headers: { cookie } });
      expect([path, absent.status]).toEqual([path, 404]);
      expect(await absent.text()).toContain('belong to a mock');
    }
    // The page itself, and nothing of the console reached the service.
    expect((await fetch(`${url}/_mock/console/`)).status).toBe(200);
    const direct = await run(['--context', 'tenant', 'mock', 'requests', '-o', 'json']);
    expect(direct.stdout).not.toContain('/_mock/console');
    expect((await recorder.stop()).code).toBe(0);
  }, 120_000);

  it('sends on only paths, only to the target, and keeps serving after hostile requests', async () => {
    const recorder = await startRecorder(['--target', 'tenant', '--no-context', '--no-log']);
    const { port } = new URL(recorder.info.url);
    const raw = (text: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1');
        let answer = '';
        socket.setEncoding('utf8').on('data', (t: string) => (answer += t));
        // Not ended: a client that half-closes is one gone away. Bounded all the same.
        const timer = setTimeout(() => socket.destroy(), 10_000);
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearTimeout(timer);
          resolve(answer);
        });
        socket.write(text, 'latin1');
      });
    const elsewhere = `http://127.0.0.1:${new URL(service.info.url).port}/_mock/health`;
    const random = prng(3232);
    const garbage = Array.from({ length: 20 }, () =>
      Buffer.from(Array.from({ length: 1 + random.int(200) }, () => random.int(256))).toString(
        'latin1',
      ),
    );
    const answers = await Promise.all([
      raw(`GET ${elsewhere} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
      raw('GET //localhost:1/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'),
      ...garbage.map((text) => raw(`${text}\r\n\r\n`)),
    ]);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 400 /);
    expect(answers[0]).toContain('takes a path on the service it records, not a URL');
    // A path that reads as another host goes to the target as a path (the mock: 404), not there.
    expect(answers[1]).toMatch(/^HTTP\/1\.1 (401|404) /);
    for (const answer of answers.slice(2)) expect(answer).not.toMatch(/^HTTP\/1\.1 [23]\d\d /);
    // The console's paths, hostile: none reads a file outside it, none fails the recorder.
    const consolePaths = [
      '/_mock/console/assets/../../package.json',
      '/_mock/console/assets/%2e%2e/%2e%2e/package.json',
      '/_mock/console/assets/..%2f..%2fpackage.json',
      '/_mock/console/api/requests?limit=-1',
      '/_mock/console/api/requests/99999999999999999999',
      `/_mock/console/login?code=${'x'.repeat(5000)}`,
      ...garbage.map((text) => `/_mock/console/${encodeURIComponent(text)}`),
      ...garbage.map((text) => `/_mock/console/api/requests/${encodeURIComponent(text)}`),
    ];
    for (const path of consolePaths) {
      const answer = await raw(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect([path, answer.slice(0, 12)]).toEqual([path, expect.stringMatching(/ (303|40\d)$/)]);
      expect(answer).not.toContain('"devDependencies"');
    }
    const listed = await fetch(`${recorder.info.url}/_mock/requests`, {
      headers: { authorization: `Bearer ${recorder.info.token}` },
    });
    const { requests } = (await listed.json()) as { requests: { path: string }[] };
    // The console's own requests are not journaled (nor sent on): only what went to the service.
    expect(requests.map((r) => r.path)).toEqual(['//localhost:1/x']);
    const stopped = await recorder.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).not.toMatch(/\n\s+at |internal error/);
  }, 60_000);

  it('names a port in use, exit 2, and leaves no recording', async () => {
    const recorder = await startRecorder(['--target', 'tenant', '--no-context', '--no-log']);
    const { port } = new URL(recorder.info.url);
    const out = join(await dirs.make(), 'never.json');
    const exit = await run(['mock', 'record', '--target', 'tenant', '--port', port, '--out', out]);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(
      new RegExp(`^error: port ${port} on 127.0.0.1 is already in use$`, 'm'),
    );
    expect(existsSync(out)).toBe(false);
    await recorder.stop();
  }, 60_000);

  it('--profiles: a device request through it is opened as the mock opens its own', async () => {
    const home = await dirs.make();
    const profiles = join(home, 'profiles.pt');
    const added = await run([
      '--base-url',
      service.info.baseUrl,
      '--token-file',
      join(config, 'token'),
      'context',
      'add',
      'enrolling',
      '--api-url',
      service.info.apiUrl,
      '--enrollment-url',
      service.info.enrollmentUrl,
      '--keyspace',
      service.info.keyspace,
    ]);
    expect(added.code).toBe(0);
    // The file does not exist yet: the device is enrolled through the recorder meanwhile.
    const recorder = await startRecorder(['--target', 'enrolling', '--profiles', profiles]);
    const minted = await run(['--context', 'enrolling', 'mock', 'tokens', '--user', 'alice']);
    const tokens = Object.fromEntries(
      [...minted.stdout.matchAll(/^export (KSCTL_\w+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]),
    );
    const device = { KSCTL_HOME: home, ...tokens };
    const enrolled = await run(
      ['--context', 'record', 'enroll', '--persistor-path', profiles, '--name', 'lap'],
      undefined,
      device,
    );
    expect(enrolled.stderr).not.toMatch(/error/);
    expect(enrolled.code).toBe(0);
    const created = await run(
      [
        '--context',
        'record',
        'keys',
        'create',
        '--persistor-path',
        profiles,
        '--attr',
        'region=eu',
      ],
      undefined,
      device,
    );
    expect(created.code).toBe(0);

    const listed = await run(['--context', 'record', 'mock', 'requests', '-o', 'json']);
    const entries = JSON.parse(listed.stdout) as { id: number; path: string; side: string }[];
    const create = entries.find((e) => e.path === '/v2.4/keys/create')!;
    expect(create.side).toBe('device');
    const shown = await run([
      '--context',
      'record',
      'mock',
      'requests',
      'show',
      String(create.id),
      '-o',
      'json',
    ]);
    expect(shown.code).toBe(0);
    const detail = JSON.parse(shown.stdout) as {
      opened?: { clear?: { data: { 'protection-keys': { cattrs: unknown }[] } } };
      problems?: string[];
    };
    expect(detail.problems).toBeUndefined();
    expect(detail.opened?.clear?.data['protection-keys'][0]?.cattrs).toEqual({ region: ['eu'] });
    expect(shown.stdout).not.toContain(recorder.info.token);
    expect(shown.stdout).not.toContain(service.info.token);
    await recorder.stop();
  }, 180_000);

  it('refuses a --target that names no context, exit 2', async () => {
    const exit = await run(['mock', 'record', '--target', 'nowhere', '--port', '0']);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(/^error: --target: there is no context "nowhere"$/m);
  });
});

describe('ksctl mock record, then conformance --replay', () => {
  /** Markings on the service before the recording starts; most are read only with valueLimit=0. */
  const START = {
    markings: [
      {
        name: 'rp-level',
        description: 'Level',
        defaultValue: 'internal',
        values: ['public', 'internal', { name: 'restricted', description: 'Need to know' }],
      },
      { name: 'rp-region', values: ['eu', 'us', { name: 'ap', description: 'Singapore' }] },
      { name: 'rp-retention', public: true, defaultValue: '7y', values: ['30d', '1y', '7y'] },
      { name: 'rp-code', adminOnly: true, values: [{ name: '1001', description: 'Apollo' }] },
      { name: 'rp-unread', defaultValue: 'b', values: ['a', 'b', 'c', 'd'] },
    ],
  };
  const APPLY = {
    markings: [
      { name: 'rp-code', description: 'Project', adminOnly: true },
      { name: 'rp-new', values: ['x', 'y'] },
    ],
  };
  /** A run of ordinary ksctl commands: listings with valueLimit=0, gets, every kind of change. */
  const RUN: [string[], string?][] = [
    [['markings', 'list']],
    [['markings', 'values', 'add', 'rp-region', 'sa=South America']],
    [['markings', 'values', 'delete', 'rp-retention', '30d', '--yes']],
    [['markings', 'create', 'rp-tmp', '--value', 'a', '--value', 'b']],
    [['markings', 'update', 'rp-tmp', '--add-value', 'c', '--yes']],
    [['markings', 'get', 'rp-level', '-o', 'json']],
    [['markings', 'get', 'rp-region']],
    [['markings', 'get', 'rp-retention', '--value-limit', '0']],
    [['markings', 'apply', '-f', '-', '--yes'], JSON.stringify(APPLY)],
    [['markings', 'values', 'list', 'rp-retention']],
    [['markings', 'get', 'rp-code', '-o', 'json']],
    [['markings', 'delete', 'rp-tmp', 'rp-new', '--yes']],
    [['markings', 'list']],
  ];

  it('replays a recorded run with no difference, and reports the run edited to carry a drift (exit 10)', async () => {
    const seeded = await run(
      ['--context', 'tenant', 'markings', 'apply', '-f', '-', '--yes'],
      JSON.stringify(START),
    );
    expect(seeded.code, seeded.stderr).toBe(0);
    const dir = await dirs.make();
    const out = join(dir, 'run.json');
    const recorder = await startRecorder(['--target', 'tenant', '--out', out]);
    for (const [args, input] of RUN) {
      const exit = await run(['--context', 'record', ...args], input);
      expect([args, exit.code, exit.stderr]).toEqual([args, 0, expect.any(String)]);
    }
    const stopped = await recorder.stop('SIGINT');
    expect(stopped.code).toBe(0);
    const recording = JSON.parse(await readFile(out, 'utf8')) as Recording;
    expect(
      recording.exchanges.some((e) => e.method === 'GET' && /[?&]valueLimit=0\b/.test(e.path)),
    ).toBe(true);
    expect(new Set(recording.exchanges.map((e) => e.method))).toEqual(
      new Set(['GET', 'POST', 'DELETE']),
    );

    const replayed = await run(['conformance', '--replay', out]);
    expect(replayed.code, replayed.stdout + replayed.stderr).toBe(0);
    expect(replayed.stdout).not.toContain('DIFFERS');
    expect(replayed.stdout).toMatch(
      new RegExp(
        `^${recording.exchanges.length} scenarios: ${recording.exchanges.length} same, 0 differ, 0 skipped`,
        'm',
      ),
    );
    // rp-unread's values were only ever counted: stand-ins make up the count, and the report says so.
    expect(replayed.stdout).toMatch(
      /^Starting state: what the recording read \(\d+ markings .*; [\d,]+ values counted but never shown are stand-ins named ~ksctl-stand-in-N\)/m,
    );

    // The same recording with one member of one recorded answer changed, as a drifted service answers.
    const index = recording.exchanges.findIndex(
      (e) => e.method === 'GET' && /\/markings\?name=rp-level&/.test(e.path),
    );
    expect(index).toBeGreaterThanOrEqual(0);
    const drifted = structuredClone(recording);
    const answer = drifted.exchanges[index]!.response;
    const body = JSON.parse(answer.body) as { Resources: { detail: { description: string } }[] };
    body.Resources[0]!.detail.description = 'Drifted';
    answer.body = JSON.stringify(body);
    answer.bytes = Buffer.byteLength(answer.body);
    const driftedFile = join(dir, 'drifted.json');
    await writeFile(driftedFile, JSON.stringify(drifted));
    const reported = await run(['conformance', '--replay', driftedFile, '-o', 'json']);
    expect(reported.code, reported.stderr).toBe(10);
    const report = JSON.parse(reported.stdout) as {
      scenarios: { name: string; result: string; request: string; differences: unknown[] }[];
      summary: { differs: number };
    };
    expect(report.summary.differs).toBe(1);
    const differing = report.scenarios.filter((s) => s.result === 'differs');
    const path = drifted.exchanges[index]!.path.replace(/^.*?(\/markings)/, '$1');
    expect(differing).toEqual([
      {
        name: `exchange ${index + 1}: GET ${path}`,
        result: 'differs',
        request: `GET ${path}`,
        differences: [
          { path: 'Resources[0].detail.description', target: 'Drifted', mock: 'Level' },
        ],
        reason: expect.stringContaining('Resources[0].detail.description'),
        status: { target: 200, mock: 200 },
      },
    ]);
  }, 240_000);
});

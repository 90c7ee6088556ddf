import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ApiClient } from '../../dist/client/api/client.js';
import { makeCid } from '../../dist/common/device/cid.js';
import { DeviceClient } from '../../dist/client/device/client.js';
import { openEnvelope, sealEnvelope } from '../../dist/common/device/crypto.js';
import { KEY_PATH } from '../../dist/common/device/wire.js';
import { loadProfiles } from '../../dist/client/profiles/index.js';
import { probeSummary } from './measure.js';

/**
 * Load for bench/groups/device-stall.js (issue 17), run as its own process with the active
 * profile of a plaintext file. `--setup N`: creates N keys (5,000 a request, the most one create
 * makes) and exits. Otherwise times `--probes` GET /_mock/health one after the other; with
 * `--hostile` the device (or, with `--kind markings`, an admin) meanwhile sends, one after the
 * other, the worst requests there are (deviceWorst() and markingsWorst() below). Prints
 * `{ probes, medianMs, p95Ms, maxMs, fetches, slow }`: `fetches` counts the answers of each kind
 * of request by status, `slow` the longest health check over 50 ms by the kinds of request in
 * flight.
 */
const { values } = parseArgs({
  options: {
    profiles: { type: 'string' },
    mock: { type: 'string' },
    setup: { type: 'string', default: '0' },
    probes: { type: 'string', default: '200' },
    hostile: { type: 'boolean', default: false },
    'hostile-device': { type: 'boolean', default: false },
    // With --hostile: `device` (the device's worst requests) or `markings` (an admin's).
    kind: { type: 'string', default: 'device' },
    'base-url': { type: 'string' },
    token: { type: 'string' },
  },
});

const set = await loadProfiles({ kind: 'plaintext', path: values.profiles });
const profile = set.profiles.find((p) => p.deviceId === set.activeDeviceId);
if (!profile) throw new Error(`no active profile in ${values.profiles}`);

if (Number(values.setup) > 0) {
  const http = new ApiClient({ baseUrl: profile.server, auth: { kind: 'none' }, retries: 0 });
  const client = new DeviceClient(profile, http);
  for (let made = 0; made < Number(values.setup); made += 5_000) {
    const requests = Array.from({ length: 5 }, (_, i) => ({
      ref: `r${made + i}`,
      count: 1_000,
      attributes: { project: ['apollo'] },
    }));
    const answer = await client.create(requests);
    if (answer.keys.length !== 5_000) throw new Error(`created ${answer.keys.length} of 5000`);
  }
  await http.close();
  process.stdout.write('{}\n');
  process.exit(0);
}

const META = { hfphash: 'f'.repeat(64), hfp: '{"fptype":"bench"}' };
const queries = (count, query) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`q${i}`, query]));

let done = false;
/** What the hostile device sent: each request's kind, status and time span (epoch ms). */
const spans = [];
const now = () => performance.timeOrigin + performance.now();

/** A raw device request with any content; resolves with the status and the opened answer. */
async function send(path, data) {
  const cid = makeCid(profile.deviceId);
  const envelope = sealEnvelope(profile.aesCdIdcKey, cid, { meta: META, data });
  const response = await fetch(`${profile.server}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ cid, envelope }),
  });
  const answer = await response.json().catch(() => ({}));
  const opened =
    typeof answer.envelope === 'string'
      ? openEnvelope(profile.aesCdIdcKey, cid, answer.envelope)
      : undefined;
  return { status: response.status, content: opened?.ok ? opened.content : undefined };
}

/**
 * The worst requests one device can send, one after the other: every bound reached or just
 * passed. The keys of the tenant grow with the creates, so the number of queries that the bound
 * on comparisons lets through is read from the refusal of 1,000 queries, which names it.
 */
function deviceWorst() {
  let keys = 0;
  return [
    [
      '1,000 queries',
      async () => {
        const { status, content } = await send(KEY_PATH.fetch, {
          'protection-keys': [],
          'protection-key-queries': queries(1000, {}),
        });
        const named = /× (\d+) keys/.exec(content?.error?.message ?? '');
        if (named) keys = Number(named[1]);
        return status;
      },
    ],
    [
      'scan',
      async () => {
        const most = Math.max(1, Math.floor(1_000_000 / Math.max(keys, 1)));
        const { status } = await send(KEY_PATH.fetch, {
          'protection-keys': [],
          'protection-key-queries': queries(Math.min(most, 1000), { project: 'gemini' }),
        });
        return status;
      },
    ],
    [
      '5,001 keys',
      async () => {
        const all = { project: 'apollo', qty: 5001 };
        const { status } = await send(KEY_PATH.fetch, {
          'protection-keys': [],
          'protection-key-queries': { all },
        });
        return status;
      },
    ],
    [
      '5,000 keys and 100,000 ids',
      async () => {
        const { status } = await send(KEY_PATH.fetch, {
          'protection-keys': [],
          'protection-key-queries': queries(20, { project: 'apollo', qty: 5000 }),
        });
        return status;
      },
    ],
    [
      'largest body',
      async () => {
        // 1,000 long ids none of which is a key: the largest body a device may send.
        const ids = Array.from({ length: 1000 }, (_, i) => `${i}`.padEnd(3000, 'x'));
        const { status } = await send(KEY_PATH.fetch, { 'protection-keys': ids });
        return status;
      },
    ],
    [
      '250,000 values',
      async () => {
        const junk = Array.from({ length: 25 }, () => Array.from({ length: 10_000 }, () => 0));
        const { status } = await send(KEY_PATH.fetch, { 'protection-keys': [], junk });
        return status;
      },
    ],
    [
      '10,000 new keys',
      async () => {
        const requests = Array.from({ length: 10 }, (_, i) => ({
          ref: `w${i}`,
          qty: 1000,
          cattrs: JSON.stringify({ project: ['apollo'] }),
        }));
        const { status } = await send(KEY_PATH.create, { 'protection-keys': requests });
        return status;
      },
    ],
  ];
}

/**
 * The worst requests an admin can send to the markings API, one after the other: a marking of
 * 100,000 values (the most one may hold: 36 MB as an answer) created, read, each value updated
 * and deleted; 1,000 markings of 100 values written in one bulk request (created the first time,
 * updated after); and a listing of those 1,000 with their values (73 MB).
 */
function markingsWorst() {
  const headers = { authorization: `Bearer ${values.token}`, 'content-type': 'application/json' };
  // The bodies are made once and answers read as bytes: this process's own work competes with
  // the mock for the machine's cores.
  const call = async (method, path, body) => {
    const response = await fetch(`${values['base-url']}${path}`, { method, headers, body });
    const bytes = Buffer.from(await response.arrayBuffer());
    return { status: response.status, response, bytes };
  };
  const values100k = Array.from({ length: 100_000 }, (_, i) => ({ name: `value-${i}` }));
  const created = JSON.stringify({ name: 'NAME', detail: { values: values100k } });
  const described = JSON.stringify({
    detail: { values: values100k.map((v) => ({ ...v, description: 'described' })) },
  });
  const bulkValues = values100k.slice(0, 100);
  // Names of this process's own: each run of the bench sends its requests to the same mock.
  const tag = `${process.pid.toString(36)}-${Date.now().toString(36)}`;
  let bulkIds;
  let id;
  return [
    [
      'create 100,000 values',
      async () => {
        const body = created.replace('"NAME"', `"stall-${tag}-${spans.length}"`);
        const answer = await call('POST', '/markings', body);
        id = answer.response.headers.get('location')?.split('/').at(-1);
        return answer.status;
      },
    ],
    ['read 100,000 values', async () => (await call('GET', `/markings/${id}`)).status],
    ['update 100,000 values', async () => (await call('PUT', `/markings/${id}`, described)).status],
    ['delete 100,000 values', async () => (await call('DELETE', `/markings/${id}`)).status],
    [
      'bulk 1,000 × 100 values',
      async () => {
        const items = Array.from({ length: 1000 }, (_, i) => ({
          ...(bulkIds ? { id: bulkIds[i] } : { name: `bulk-${tag}-${i}` }),
          detail: { description: `round ${spans.length}`, values: bulkValues },
        }));
        const answer = await call('POST', '/markings?valueLimit=0', JSON.stringify(items));
        const written = JSON.parse(answer.bytes.toString('utf8'));
        if (Array.isArray(written)) bulkIds ??= written.map((m) => m.id);
        return answer.status;
      },
    ],
    ['list 1,000 with values', async () => (await call('GET', '/markings?limit=1000')).status],
  ];
}

/** Sends the requests one after the other, a round after another, until told to stop. */
async function sendInTurn(worst) {
  for (let i = 0; !done; i++) {
    const [name, run] = worst[i % worst.length];
    const start = now();
    const status = await run();
    spans.push({ name, status, start, end: now() });
    if ((i + 1) % worst.length === 0) process.send?.('round');
  }
}

if (values['hostile-device']) {
  // The hostile device in a process of its own, so its own work never delays a health check.
  process.on('message', () => (done = true));
  process.send('ready');
  await sendInTurn(values.kind === 'markings' ? markingsWorst() : deviceWorst());
  process.send(spans);
  process.disconnect();
} else {
  let device;
  if (values.hostile) {
    device = fork(fileURLToPath(import.meta.url), [
      '--profiles',
      values.profiles,
      '--mock',
      values.mock,
      '--hostile-device',
      '--kind',
      values.kind,
      ...(values['base-url'] ? ['--base-url', values['base-url'], '--token', values.token] : []),
    ]);
    await once(device, 'message');
  }
  // At least --probes checks, and with a hostile device at least two rounds of its requests.
  let rounds = 0;
  device?.on('message', (message) => {
    if (message === 'round') rounds++;
  });
  const probes = [];
  for (let i = 0; i < Number(values.probes) || (device && rounds < 2); i++) {
    const start = now();
    const response = await fetch(`${values.mock}/_mock/health`);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`health answered ${response.status}`);
    probes.push({ start, end: now() });
  }
  let sent = [];
  if (device) {
    const answered = new Promise((resolve) =>
      device.on('message', (message) => Array.isArray(message) && resolve(message)),
    );
    device.send('stop');
    sent = await answered;
  }
  const fetches = {};
  for (const { name, status } of sent)
    fetches[`${name} ${status}`] = (fetches[`${name} ${status}`] ?? 0) + 1;
  // The longest health check over 50 ms by the kinds of request it overlapped.
  const slow = {};
  for (const probe of probes) {
    const ms = Math.round(probe.end - probe.start);
    if (ms <= 50) continue;
    const during = sent
      .filter((s) => s.start < probe.end && s.end > probe.start)
      .map((s) => s.name);
    const what = during.length > 0 ? [...new Set(during)].join(' + ') : 'nothing';
    slow[what] = Math.max(slow[what] ?? 0, ms);
  }
  const summary = probeSummary(probes.map((p) => p.end - p.start));
  process.stdout.write(`${JSON.stringify({ ...summary, fetches, slow })}\n`);
}

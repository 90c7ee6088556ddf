import { readFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { liveMemory } from './heap-report.js';
import { probeSummary } from './measure.js';

/**
 * Load for bench/groups/journal-flood.js (issue 34), run as its own process against a mock.
 * Times GET /_mock/health one after the other on a connection of its own, from a thread of its
 * own (health-probe-thread.js, so what this thread does with its answers is not counted against
 * the mock), in two phases: while
 * `--connections` clients send `--requests` requests of `--body-kib` KiB to the markings API (the
 * bodies the journal keeps the first 64 KiB of), then while they go on and a reader walks the
 * whole journal page by page, with bodies and without, `--reads` times.
 *
 * What the clients send is what a client syncing a large marking sends: each creates a marking of
 * its own with about `--body-kib` KiB of values, then updates it with that body again and again
 * (201, then 200s, each answered with the whole marking); the markings are deleted at the end,
 * so the mock's state stays the same size however many requests are sent.
 *
 * With `--idle`, the same health checks on a mock nobody else calls. Reads the mock's resident
 * memory (`--pid`) every 100 ms, and at the end what it holds live (heap-report.js), before and
 * after a reset that lets go of the journal. Prints `{ flood, reads, requests, statuses, pages,
 * plainPages, journalMiB, rssMiB: { start, peak, end }, live, afterReset }`, the last two as
 * `{ heapMiB, arrayBuffersMiB }`, each phase as `{ probes, medianMs, p95Ms, p99Ms,
 * maxMs }`.
 */
const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    token: { type: 'string' },
    pid: { type: 'string' },
    connections: { type: 'string', default: '8' },
    requests: { type: 'string', default: '4000' },
    'body-kib': { type: 'string', default: '200' },
    reads: { type: 'string', default: '2' },
    idle: { type: 'boolean', default: false },
  },
});

const url = new URL(values.url);
const token = values.token;

function send(agent, method, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, method, path, agent, headers },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The health checks' phase (0: the flood, 1: the journal reads) and whether to stop, shared. */
const phase = new Int32Array(new SharedArrayBuffer(4));
const stop = new Int32Array(new SharedArrayBuffer(4));
let stopped = false;
const prober = new Worker(new URL('./health-probe-thread.js', import.meta.url), {
  workerData: { url: values.url, phase, stop },
});
const probed = new Promise((resolve, reject) => {
  prober.once('message', resolve);
  prober.once('error', reject);
  prober.once('exit', (code) => reject(new Error(`the health checks' thread ended (${code})`)));
});

async function rss() {
  if (values.pid === undefined) return 0;
  const status = await readFile(`/proc/${values.pid}/status`, 'utf8').catch(() => '');
  const kib = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  return kib / 1024;
}
const startRss = await rss();
let peakRss = startRss;
const rssTimer = setInterval(async () => {
  peakRss = Math.max(peakRss, await rss());
}, 100);

const statuses = {};
let sent = 0;
const total = Number(values.requests);
const admin = { authorization: `Bearer ${token}` };
const jsonHeaders = { ...admin, 'content-type': 'application/json' };

/** A marking of about `kib` KiB of JSON: values with names and descriptions. */
function markingBody(name, kib) {
  const values = [];
  const description = 'a value of a marking a client keeps in step; '.repeat(3);
  let size = 64 + name.length;
  for (let i = 0; size < kib * 1024 - 160; i++) {
    const value = { name: `value-${String(i).padStart(5, '0')}`, description };
    size += JSON.stringify(value).length + 1;
    values.push(value);
  }
  return Buffer.from(JSON.stringify({ name, detail: { description: 'flood', values } }));
}

function count(status) {
  statuses[status] = (statuses[status] ?? 0) + 1;
}

async function flood(connection) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const name = `flood-${process.pid}-${connection}`;
  const body = markingBody(name, Number(values['body-kib']));
  let id;
  while (!stopped && sent < total) {
    sent++;
    const answer =
      id === undefined
        ? await send(agent, 'POST', '/v2/dev/markings', body, jsonHeaders)
        : await send(agent, 'PUT', `/v2/dev/markings/${id}`, body, jsonHeaders);
    count(answer.status);
    if (id === undefined && answer.status === 201) {
      id = JSON.parse(answer.body.toString('utf8')).id;
    }
  }
  if (id !== undefined) await send(agent, 'DELETE', `/v2/dev/markings/${id}`, undefined, admin);
  agent.destroy();
}

let pages = 0;
let plainPages = 0;
let journalBytes = 0;
/** Walks the journal from the newest page back, by each page's link to the next. */
async function walk(agent, first) {
  let path = first;
  let walked = 0;
  while (path !== undefined) {
    const answer = await send(agent, 'GET', path, undefined, admin);
    if (answer.status !== 200) throw new Error(`the journal answered ${answer.status}`);
    walked++;
    journalBytes += answer.body.length;
    path = JSON.parse(answer.body.toString('utf8')).next;
  }
  return walked;
}

async function readJournal() {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let read = 0; read < Number(values.reads); read++) {
    pages += await walk(agent, '/_mock/requests?bodies=true');
    plainPages += await walk(agent, '/_mock/requests');
  }
  agent.destroy();
}

if (values.idle) {
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  Atomics.store(phase, 0, 1);
  await new Promise((resolve) => setTimeout(resolve, 5_000));
} else {
  const connections = Number(values.connections);
  const flooding = Array.from({ length: connections }, (_, i) => flood(i));
  // The reads start once half the requests are in, the journal full of large bodies by then.
  while (sent < total / 2) await new Promise((resolve) => setTimeout(resolve, 50));
  Atomics.store(phase, 0, 1);
  await readJournal();
  Atomics.store(phase, 0, 0);
  await Promise.all(flooding);
}
stopped = true;
Atomics.store(stop, 0, 1);
const times = await probed;
clearInterval(rssTimer);
const end = await rss();
const live = values.pid === undefined ? undefined : await liveMemory(Number(values.pid));
// What a reset lets go of: the journal (the flood's markings are deleted already), so the next
// run starts from an empty one.
const reset = await send(undefined, 'POST', '/_mock/reset', undefined, admin);
if (reset.status !== 200) throw new Error(`the reset answered ${reset.status}`);
const afterReset = values.pid === undefined ? undefined : await liveMemory(Number(values.pid));

const summary = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
  return { ...probeSummary(list), p99Ms: Math.round(p99 * 10) / 10 };
};
process.stdout.write(
  `${JSON.stringify({
    flood: summary(times.flood),
    reads: summary(times.reads),
    requests: sent,
    statuses,
    pages,
    plainPages,
    journalMiB: Math.round((journalBytes / 1024 / 1024) * 10) / 10,
    rssMiB: {
      start: Math.round(startRss),
      peak: Math.round(Math.max(peakRss, end)),
      end: Math.round(end),
    },
    live,
    afterReset,
  })}\n`,
);

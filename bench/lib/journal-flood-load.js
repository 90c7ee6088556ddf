import { readFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { probeSummary } from './measure.js';

/**
 * Load for bench/groups/journal-flood.js (issue 34), run as its own process against a mock.
 * Times GET /_mock/health one after the other on a connection of its own, in two phases: while
 * `--connections` clients send `--requests` POSTs of `--body-kib` KiB to the markings API (the
 * bodies the journal keeps the first 64 KiB of), then while they go on and a reader walks the
 * whole journal with bodies, page by page, `--reads` times. With `--idle`, the same health checks
 * on a mock nobody else calls. Reads the mock's resident memory (`--pid`) every 200 ms. Prints
 * `{ flood, reads, requests, statuses, pages, journalMiB, rssMiB: { peak, end } }`, each phase as
 * `{ probes, medianMs, p95Ms, p99Ms, maxMs }`.
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

const healthAgent = new Agent({ keepAlive: true, maxSockets: 1 });
let phase = 'flood';
const times = { flood: [], reads: [] };
let stopped = false;

async function probeHealth() {
  while (!stopped) {
    const start = performance.now();
    const answer = await send(healthAgent, 'GET', '/_mock/health');
    if (answer.status !== 200) throw new Error(`health answered ${answer.status}`);
    times[phase].push(performance.now() - start);
  }
}

let peakRss = 0;
async function rss() {
  if (values.pid === undefined) return 0;
  const status = await readFile(`/proc/${values.pid}/status`, 'utf8').catch(() => '');
  const kib = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  return kib / 1024;
}
const rssTimer = setInterval(async () => {
  peakRss = Math.max(peakRss, await rss());
}, 200);

const statuses = {};
let sent = 0;
const total = Number(values.requests);
const body = Buffer.from(
  JSON.stringify({
    name: 'flood',
    detail: { description: 'x'.repeat(Number(values['body-kib']) * 1024 - 64) },
  }),
);

async function flood() {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  while (!stopped && sent < total) {
    sent++;
    const answer = await send(agent, 'POST', '/v2/dev/markings', body, {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
    });
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
  }
  agent.destroy();
}

let pages = 0;
let journalBytes = 0;
async function readJournal() {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let read = 0; read < Number(values.reads); read++) {
    let path = '/_mock/requests?bodies=true';
    while (path !== undefined) {
      const answer = await send(agent, 'GET', path, undefined, {
        authorization: `Bearer ${token}`,
      });
      if (answer.status !== 200) throw new Error(`the journal answered ${answer.status}`);
      pages++;
      journalBytes += answer.body.length;
      path = JSON.parse(answer.body.toString('utf8')).next;
    }
  }
  agent.destroy();
}

const health = probeHealth();
if (values.idle) {
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  phase = 'reads';
  await new Promise((resolve) => setTimeout(resolve, 5_000));
} else {
  const connections = Number(values.connections);
  const flooding = Array.from({ length: connections }, () => flood());
  // The reads start once half the requests are in, the journal full of large bodies by then.
  while (sent < total / 2) await new Promise((resolve) => setTimeout(resolve, 50));
  phase = 'reads';
  await readJournal();
  phase = 'flood';
  await Promise.all(flooding);
}
stopped = true;
await health;
clearInterval(rssTimer);
const end = await rss();
healthAgent.destroy();

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
    journalMiB: Math.round((journalBytes / 1024 / 1024) * 10) / 10,
    rssMiB: { peak: Math.round(Math.max(peakRss, end)), end: Math.round(end) },
  })}\n`,
);

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { ApiClient } from '../../dist/client/api/client.js';
import { DeviceClient } from '../../dist/client/device/client.js';
import { loadProfiles } from '../../dist/client/profiles/index.js';
import { probeSummary } from './measure.js';

/**
 * Device request load, run as its own process by bench/groups/keys.js: loads the active profile
 * of a plaintext file, makes the device's fingerprint known with one request, then either creates
 * `--create N` keys one per request (`--concurrency C` in flight) or, with `--idle MS`, waits
 * instead. Both sides do the same preparation, so the difference of their times is the key
 * requests alone (the idle side prints `{ timedMs }`, how long it waited: the round trips' side
 * is timed against that, the preparation apart). Prints `{ created, perSecond, createMs,
 * roundTripMs }` on stdout: the median in-process milliseconds of a one-key create and of a
 * create plus fetch, over 50 of each. `--warm-up N` makes N round trips (below) first, four at a
 * time, as part of the preparation, so what is timed runs compiled as in a client that has been
 * running for a while. `--round-trips N` instead creates one key and fetches it back, N times,
 * and prints `{ roundTrips, timedMs, perSecond, createMs, fetchMs, cpuMsPerKey }` (the
 * milliseconds they took, keys per second, median milliseconds, and the CPU time per key of this
 * process's main thread, where the requests are made: the health thread's is not in it);
 * `--in-flight C` keeps C round trips going at once (default 1: one request at a time).
 * `--mock-pid PID` adds `mockCpuMsPerKey`, the mock's CPU time per key over the same time (Linux
 * /proc; the health checks it answers included). `--api-version 2.3|2.4` picks the dialect
 * (default 2.4).
 * `--health URL` times GET URL (the mock's /_mock/health) one after the other, from a thread of
 * its own, while the round trips run, and adds `{ health: { probes, medianMs, p95Ms, maxMs } }`.
 */
const { values } = parseArgs({
  options: {
    profiles: { type: 'string' },
    create: { type: 'string', default: '0' },
    concurrency: { type: 'string', default: '1' },
    idle: { type: 'string', default: '0' },
    'round-trips': { type: 'string', default: '0' },
    'in-flight': { type: 'string', default: '1' },
    'warm-up': { type: 'string', default: '0' },
    'mock-pid': { type: 'string' },
    'api-version': { type: 'string', default: '2.4' },
    health: { type: 'string' },
  },
});

/** Times GET `url` one after the other until told to stop; answers with the times in ms. */
const HEALTH_PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const times = [];
let running = true;
parentPort.once('message', () => (running = false));
const probe = () => {
  const started = performance.now();
  http.get(workerData, { agent }, (res) => {
    res.resume();
    res.on('end', () => {
      times.push(performance.now() - started);
      if (running) setTimeout(probe, 10);
      else parentPort.postMessage(times), agent.destroy();
    });
  });
};
probe();
`;

const set = await loadProfiles({ kind: 'plaintext', path: values.profiles });
const profile = set.profiles.find((p) => p.deviceId === set.activeDeviceId);
if (!profile) throw new Error(`no active profile in ${values.profiles}`);
const http = new ApiClient({ baseUrl: profile.server, auth: { kind: 'none' }, retries: 0 });
const client = new DeviceClient(profile, http, undefined, values['api-version']);
const one = [{ ref: 'bench', count: 1, attributes: {} }];

async function createOne() {
  const answer = await client.create(one);
  if (answer.keys.length !== 1)
    throw new Error(`create refused: ${JSON.stringify(answer.refused)}`);
  return answer.keys[0];
}

/** One key created and fetched back (and checked): how long each half took, and both, in ms. */
async function roundTrip() {
  const t0 = performance.now();
  const key = await createOne();
  const t1 = performance.now();
  const fetched = await client.fetch([key.id]);
  if (!fetched.keys[0]?.key.equals(key.key)) throw new Error('the key came back different');
  const t2 = performance.now();
  return { createMs: t1 - t0, fetchMs: t2 - t1, totalMs: t2 - t0 };
}

const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The CPU time of a process, or of one of its threads (`PID/task/TID`), in milliseconds, user and
 * system (Linux /proc); undefined elsewhere.
 */
function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

await client.fetch([]);
// Preparation too, on both sides: the code of a round trip compiled as a long-running client's is
// (on both sides: the mock's optimizing compiler runs on threads of its own, whose time counts).
// Four at a time, as a load test's client works; a few hundred round trips left much of the
// compiling to the timed part.
const WARM_UP_IN_FLIGHT = 4;
let warmed = 0;
await Promise.all(
  Array.from({ length: WARM_UP_IN_FLIGHT }, async () => {
    while (warmed < Number(values['warm-up'])) {
      warmed++;
      await roundTrip();
    }
  }),
);
const create = Number(values.create);
const roundTrips = Number(values['round-trips']);
const result = { created: 0 };
if (roundTrips > 0) {
  const health = values.health
    ? new Worker(HEALTH_PROBE, { eval: true, workerData: values.health })
    : undefined;
  const creates = [];
  const fetches = [];
  const mockPid = values['mock-pid'];
  const mockBefore = mockPid === undefined ? undefined : processCpuMs(mockPid);
  const cpuBefore = processCpuMs(`${process.pid}/task/${process.pid}`);
  const started = performance.now();
  let next = 0;
  const inFlight = async () => {
    while (next < roundTrips) {
      next++;
      const trip = await roundTrip();
      creates.push(trip.createMs);
      fetches.push(trip.fetchMs);
    }
  };
  await Promise.all(Array.from({ length: Number(values['in-flight']) }, inFlight));
  const elapsedMs = performance.now() - started;
  const cpuAfter = processCpuMs(`${process.pid}/task/${process.pid}`);
  const mockAfter = mockPid === undefined ? undefined : processCpuMs(mockPid);
  result.created = roundTrips;
  result.roundTrips = roundTrips;
  result.timedMs = Number(elapsedMs.toFixed(1));
  result.perSecond = Math.round(roundTrips / (elapsedMs / 1000));
  result.createMs = Number(median(creates).toFixed(2));
  result.fetchMs = Number(median(fetches).toFixed(2));
  if (cpuBefore !== undefined && cpuAfter !== undefined) {
    result.cpuMsPerKey = Number(((cpuAfter - cpuBefore) / roundTrips).toFixed(3));
  }
  if (mockBefore !== undefined && mockAfter !== undefined) {
    result.mockCpuMsPerKey = Number(((mockAfter - mockBefore) / roundTrips).toFixed(3));
  }
  if (health) {
    const times = new Promise((resolve) => health.once('message', resolve));
    health.postMessage('stop');
    result.health = probeSummary(await times);
    await health.terminate();
  }
} else if (create > 0) {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < create) {
      next++;
      await createOne();
      result.created++;
    }
  };
  await Promise.all(Array.from({ length: Number(values.concurrency) }, worker));
  result.perSecond = Math.round(create / ((performance.now() - started) / 1000));
  const creates = [];
  const trips = [];
  for (let i = 0; i < 50; i++) {
    const trip = await roundTrip();
    creates.push(trip.createMs);
    trips.push(trip.totalMs);
  }
  result.createMs = Number(median(creates).toFixed(2));
  result.roundTripMs = Number(median(trips).toFixed(2));
} else {
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, Number(values.idle)));
  result.timedMs = Number((performance.now() - started).toFixed(1));
}
await http.close();
process.stdout.write(`${JSON.stringify(result)}\n`);

import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { ApiClient } from '../../dist/api/client.js';
import { DeviceClient } from '../../dist/device/client.js';
import { loadProfiles } from '../../dist/profiles/index.js';
import { probeSummary } from './measure.js';

/**
 * Device request load, run as its own process by bench/groups/keys.js: loads the active profile
 * of a plaintext file, makes the device's fingerprint known with one request, then either creates
 * `--create N` keys one per request (`--concurrency C` in flight) or, with `--idle MS`, waits
 * instead. Both sides do the same preparation, so the difference of their times is the key
 * requests alone. Prints `{ created, perSecond, createMs, roundTripMs }` on stdout: the median
 * in-process milliseconds of a one-key create and of a create plus fetch, over 50 of each.
 * `--round-trips N` instead creates one key and fetches it back, N times, and prints
 * `{ roundTrips, perSecond, createMs, fetchMs }` (keys per second and median milliseconds).
 * `--api-version 2.3|2.4` picks the dialect (default 2.4). `--health URL` times GET URL (the
 * mock's /_mock/health) one after the other, from a thread of its own, while the round trips run,
 * and adds `{ health: { probes, medianMs, p95Ms, maxMs } }`.
 */
const { values } = parseArgs({
  options: {
    profiles: { type: 'string' },
    create: { type: 'string', default: '0' },
    concurrency: { type: 'string', default: '1' },
    idle: { type: 'string', default: '0' },
    'round-trips': { type: 'string', default: '0' },
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

await client.fetch([]);
const create = Number(values.create);
const roundTrips = Number(values['round-trips']);
const result = { created: 0 };
if (roundTrips > 0) {
  const health = values.health
    ? new Worker(HEALTH_PROBE, { eval: true, workerData: values.health })
    : undefined;
  const creates = [];
  const fetches = [];
  const started = performance.now();
  for (let i = 0; i < roundTrips; i++) {
    const trip = await roundTrip();
    creates.push(trip.createMs);
    fetches.push(trip.fetchMs);
  }
  result.created = roundTrips;
  result.roundTrips = roundTrips;
  result.perSecond = Math.round(roundTrips / ((performance.now() - started) / 1000));
  result.createMs = Number(median(creates).toFixed(2));
  result.fetchMs = Number(median(fetches).toFixed(2));
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
  await new Promise((resolve) => setTimeout(resolve, Number(values.idle)));
}
await http.close();
process.stdout.write(`${JSON.stringify(result)}\n`);

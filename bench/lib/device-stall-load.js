import { parseArgs } from 'node:util';
import { ApiClient } from '../../dist/api/client.js';
import { makeCid } from '../../dist/device/cid.js';
import { DeviceClient } from '../../dist/device/client.js';
import { sealEnvelope } from '../../dist/device/crypto.js';
import { KEY_PATH } from '../../dist/device/wire.js';
import { loadProfiles } from '../../dist/profiles/index.js';

/**
 * Load for bench/groups/device-stall.js (issue 17), run as its own process with the active
 * profile of a plaintext file. `--setup N`: creates N keys (5,000 a request, the most one create
 * makes) and exits. Otherwise times `--probes` GET /_mock/health one after the other; with
 * `--hostile` the device meanwhile sends, one after the other, the worst fetches there are: 1,000
 * empty queries over every key (refused before any work, 40024), as many queries that match
 * nothing as the bound lets through, and one query that matches every key (refused once the
 * answer holds the most keys a fetch answers). Prints `{ probes, medianMs, p95Ms, maxMs, fetches }`.
 */
const { values } = parseArgs({
  options: {
    profiles: { type: 'string' },
    mock: { type: 'string' },
    setup: { type: 'string', default: '0' },
    probes: { type: 'string', default: '200' },
    hostile: { type: 'boolean', default: false },
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

/** One raw fetch with queries (ksctl's client sends ids only); resolves with the status. */
async function fetchWith(data) {
  const cid = makeCid(profile.deviceId);
  const envelope = sealEnvelope(profile.aesCdIdcKey, cid, { meta: META, data });
  const response = await fetch(`${profile.server}${KEY_PATH.fetch}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ cid, envelope }),
  });
  await response.arrayBuffer();
  return response.status;
}

let done = false;
const fetches = {};
async function hostile() {
  const worst = [
    { 'protection-keys': [], 'protection-key-queries': queries(1000, {}) },
    { 'protection-keys': [], 'protection-key-queries': queries(50, { project: 'gemini' }) },
    // Every key matches: refused once the answer holds the most keys one fetch answers.
    { 'protection-keys': [], 'protection-key-queries': { all: { project: 'apollo', qty: 5001 } } },
  ];
  for (let i = 0; !done; i++) {
    const status = await fetchWith(worst[i % worst.length]);
    fetches[status] = (fetches[status] ?? 0) + 1;
  }
}

const times = [];
const load = values.hostile ? hostile() : Promise.resolve();
for (let i = 0; i < Number(values.probes); i++) {
  const started = performance.now();
  const response = await fetch(`${values.mock}/_mock/health`);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`health answered ${response.status}`);
  times.push(performance.now() - started);
}
done = true;
await load;
times.sort((a, b) => a - b);
const at = (q) =>
  Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] * 10) / 10;
process.stdout.write(
  `${JSON.stringify({ probes: times.length, medianMs: at(0.5), p95Ms: at(0.95), maxMs: at(1), fetches })}\n`,
);

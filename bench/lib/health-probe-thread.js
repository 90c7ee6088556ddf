import { Agent, request } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * GET /_mock/health one after the other on a connection of its own, in a thread of its own, for
 * journal-flood-load.js: what the load's own thread does with its answers (a page of 4 MiB
 * parsed at once, 200 KiB answers gathered) is not counted against the mock. `workerData`:
 * `{ url, phase, stop }`, the last two an Int32Array over shared memory each: the phase is 0
 * during the flood and 1 during the journal reads; checks go on until `stop` is 1. Posts
 * `{ flood, reads }`, each check's milliseconds.
 */
const { url, phase, stop } = workerData;
const target = new URL(url);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const times = { flood: [], reads: [] };

function health() {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, path: '/_mock/health', agent },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

while (Atomics.load(stop, 0) === 0) {
  const start = performance.now();
  const status = await health();
  if (status !== 200) throw new Error(`health answered ${status}`);
  times[Atomics.load(phase, 0) === 0 ? 'flood' : 'reads'].push(performance.now() - start);
}
agent.destroy();
parentPort.postMessage(times);

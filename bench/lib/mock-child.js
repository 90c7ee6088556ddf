import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { MockServer } from '../../dist/mock/server/server.js';
import { heapReportPath } from './heap-report.js';
import { syntheticSeed } from './seed.js';

/**
 * Runs in its own process (forked by mock.js), so the mock's work and garbage collection stay out
 * of the process that times the commands. Receives `{ seed, options }`, answers with the mock's
 * connection details and how long building the state took, and stops when the parent goes away.
 */

/** RSA-2048 instead of the service's 3072: the key only has to exist, and it is made in ~0.1 s. */
const keyServerKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

let server;

/** To the parent, unless it has gone away meanwhile (then there is nobody to serve). */
function tell(message) {
  if (process.connected) process.send(message, (error) => error && void stop());
  else void stop();
}

async function stop() {
  await server?.close();
  process.exit(0);
}

process.on('disconnect', () => void stop());
// What the mock holds live, for a load that asks (heap-report.js): all garbage collected first.
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  writeFileSync(heapReportPath(process.pid), JSON.stringify({ heapUsed, arrayBuffers }));
});
process.once('message', async ({ seed, options }) => {
  try {
    const started = performance.now();
    server = await MockServer.start({
      ...options,
      host: '127.0.0.1',
      port: 0,
      keyServerKey,
      seed: syntheticSeed(seed),
    });
    tell({ info: server.info, seedMs: performance.now() - started });
  } catch (error) {
    tell({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});

import { parseArgs } from 'node:util';
import { MockServer } from '../../dist/mock/server/server.js';

/**
 * One restart of a durable mock, run as its own process by bench/groups/state.js: starts the mock
 * on `--state DIR` (port 0), and stops it once it listens. Prints how long the start took inside
 * the process and what the state held.
 */
const { values } = parseArgs({ options: { state: { type: 'string' } } });
const started = performance.now();
const server = await MockServer.start({ host: '127.0.0.1', port: 0, stateDir: values.state });
const startMs = Math.round(performance.now() - started);
const markings = server.state.tenant('dev')?.markings.size ?? 0;
const devices = server.state.enrollment.devices().length;
await server.close();
process.stdout.write(`${JSON.stringify({ startMs, markings, devices })}\n`);

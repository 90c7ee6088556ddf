import { connect } from 'node:net';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { probeSummary } from './measure.js';

/**
 * Load for bench/groups/mock-hostile.js, run as its own process: `--probes N` valid requests one
 * after the other (GET /_mock/health and GET /v2/dev/markings, alternately), timing each. With
 * `--hostile`, maximal bodies are sent to the mock meanwhile, one after the other, each rejected:
 * 32 MiB + 1 byte (413 while streaming), 32 MiB of `[` (400, too deep), 32 MiB of unterminated
 * JSON (400, parsed off the main thread). Prints `{ probes, medianMs, p95Ms, maxMs, rejected }`.
 */
const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    token: { type: 'string' },
    tenant: { type: 'string', default: 'dev' },
    probes: { type: 'string', default: '400' },
    hostile: { type: 'boolean', default: false },
  },
});
const MIB = 1024 * 1024;
const url = new URL(values.url);
const dispatcher = new Agent({ connections: 1 });

const MAXIMAL_BODIES = [
  Buffer.alloc(32 * MIB + 1, 0x20),
  Buffer.alloc(32 * MIB, 0x5b),
  Buffer.concat([Buffer.from('{"name":"'), Buffer.alloc(32 * MIB - 9, 0x61)]),
];

/** The connection carrying a maximal body now, cut when the probes are done. */
let sending;

/** Sends one maximal body on its own connection; resolves with the status of the answer. */
function sendMaximal(body) {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    sending = socket;
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(Number(answer.split(' ')[1]));
      }
    });
    socket.on('error', () => resolve(0));
    socket.on('close', () => resolve(0));
    socket.write(
      `POST /v2/${values.tenant}/markings HTTP/1.1\r\nHost: mock\r\n` +
        `Authorization: Bearer ${values.token}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    socket.write(body);
  });
}

const rejected = {};
let probing = true;
async function hostileLoop() {
  for (let i = 0; probing; i++) {
    const status = await sendMaximal(MAXIMAL_BODIES[i % MAXIMAL_BODIES.length]);
    if (status !== 0) rejected[status] = (rejected[status] ?? 0) + 1;
  }
}

async function probe(path, headers) {
  const started = performance.now();
  const response = await request(`${values.url}${path}`, { headers, dispatcher });
  await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${path} answered ${response.statusCode}`);
  return performance.now() - started;
}

const load = values.hostile ? hostileLoop() : undefined;
const times = [];
const auth = { authorization: `Bearer ${values.token}` };
for (let i = 0; i < Number(values.probes); i++) {
  times.push(
    await (i % 2 === 0 ? probe('/_mock/health', {}) : probe(`/v2/${values.tenant}/markings`, auth)),
  );
}
probing = false;
sending?.destroy();
await load;
await dispatcher.close();

process.stdout.write(`${JSON.stringify({ ...probeSummary(times), rejected })}\n`);

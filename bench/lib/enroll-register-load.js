import { createPrivateKey, createPublicKey, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { buildRegistration } from '../../dist/client/enroll/protocol.js';

/**
 * Load for the mock's register endpoint, run as its own process by bench/groups/enroll.js:
 * mints `--build` token pairs and builds that many enrollment packages with one pre-made device
 * key, then either registers the first `--send` of them (16 in flight) or, with `--idle MS`,
 * waits instead. Both sides do the same preparation, so the difference of their times is the
 * registering alone. While registering, it sends one health check after another and times them.
 * Prints `{ sent, ok, perSecond, health: { checks, medianMs, maxMs } }` on stdout.
 */
const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    token: { type: 'string' },
    keyspace: { type: 'string', default: 'ABcd' },
    'device-key': { type: 'string' },
    build: { type: 'string' },
    send: { type: 'string', default: '0' },
    idle: { type: 'string', default: '0' },
  },
});
const IN_FLIGHT = 16;
const build = Number(values.build);
const send = Number(values.send);
const dispatcher = new Agent({ connections: IN_FLIGHT });

async function call(method, path, { body, headers = {} } = {}) {
  const response = await request(`${values.url}${path}`, {
    method,
    body,
    headers: { 'content-type': 'application/json', ...headers },
    dispatcher,
  });
  return { status: response.statusCode, text: await response.body.text() };
}

/** Runs `task` for 0..count-1 with at most IN_FLIGHT at once. */
async function pool(count, task) {
  const results = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, count) }, worker));
  return results;
}

const privateKey = createPrivateKey(await readFile(values['device-key'], 'utf8'));
const deviceKeys = { privateKey, publicKey: createPublicKey(privateKey) };
const serverPublicKey = (await call('GET', `/enrollment/keyspace/${values.keyspace}/pubkey`)).text;
const admin = { authorization: `Bearer ${values.token}` };
const pairs = await pool(build, async () => {
  const minted = await call('POST', '/_mock/tokens', {
    body: JSON.stringify({ user: 'alice', keyspace: values.keyspace }),
    headers: admin,
  });
  if (minted.status !== 200) throw new Error(`minting tokens answered ${minted.status}`);
  return JSON.parse(minted.text);
});
const bodies = pairs.map((pair) =>
  JSON.stringify(
    buildRegistration({ keyspace: values.keyspace, ...pair, serverPublicKey }, deviceKeys).request,
  ),
);

/** Health checks one after another until `done` resolves: the latency of each, in ms. */
async function healthChecks(done) {
  const agent = new Agent({ connections: 1 });
  const latencies = [];
  let finished = false;
  void done.then(() => (finished = true));
  while (!finished) {
    const t0 = performance.now();
    const response = await request(`${values.url}/_mock/health`, { dispatcher: agent });
    await response.body.text();
    latencies.push(performance.now() - t0);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await agent.close();
  return latencies.sort((x, y) => x - y);
}

const started = performance.now();
let ok = 0;
let health = [];
if (send > 0) {
  let markDone;
  const storm = new Promise((resolve) => (markDone = resolve));
  const checks = healthChecks(storm);
  const statuses = await pool(send, async (i) => {
    const answer = await call('POST', `/v2.3/register/${values.keyspace}`, {
      body: bodies[i],
      headers: { 'x-conversation-id': `Basic ${randomUUID()}` },
    });
    return answer.status;
  });
  ok = statuses.filter((status) => status === 200).length;
  markDone();
  health = await checks;
} else {
  await new Promise((resolve) => setTimeout(resolve, Number(values.idle)));
}
const seconds = (performance.now() - started) / 1000;
await dispatcher.close();
process.stdout.write(
  `${JSON.stringify({
    sent: send,
    ok,
    perSecond: send > 0 ? Math.round(ok / seconds) : 0,
    health: health.length > 0 && {
      checks: health.length,
      medianMs: Number(health[health.length >> 1].toFixed(1)),
      maxMs: Number(health[health.length - 1].toFixed(1)),
    },
  })}\n`,
);
process.exitCode = ok === send ? 0 : 1;

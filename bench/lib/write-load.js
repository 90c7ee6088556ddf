import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';

/**
 * Write load for the mock, run as its own process by bench/groups/state.js: `--writes N` writes,
 * 16 in flight, each pair creating a marking and deleting it again (so the state stays the same
 * size from run to run). Prints `{ writes, ok, perSecond }`; exits 1 unless every write succeeded.
 */
const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    token: { type: 'string' },
    writes: { type: 'string' },
  },
});
const IN_FLIGHT = 16;
const pairs = Math.floor(Number(values.writes) / 2);
const dispatcher = new Agent({ connections: IN_FLIGHT });
const run = randomUUID().slice(0, 8);

async function call(method, path, body) {
  const response = await request(`${values.url}${path}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: {
      authorization: `Bearer ${values.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    dispatcher,
  });
  return { status: response.statusCode, text: await response.body.text() };
}

let next = 0;
let ok = 0;
const started = performance.now();
const worker = async () => {
  while (next < pairs) {
    const i = next++;
    const created = await call('POST', '/markings', { name: `load-${run}-${i}` });
    if (created.status !== 201) continue;
    ok++;
    const { id } = JSON.parse(created.text);
    if ((await call('DELETE', `/markings/${id}`)).status === 204) ok++;
  }
};
await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
const seconds = (performance.now() - started) / 1000;
await dispatcher.close();
process.stdout.write(
  `${JSON.stringify({ writes: pairs * 2, ok, perSecond: Math.round(ok / seconds) })}\n`,
);
process.exitCode = ok === pairs * 2 ? 0 : 1;

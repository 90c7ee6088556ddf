/**
 * A helper process of the apply benchmarks (bench/groups/apply.js), with the mock in
 * KSCTL_BASE_URL and its dev token in KSCTL_TOKEN. Every run starts from an empty tenant
 * (`POST /_mock/reset`, a few milliseconds, paid by both sides alike), then:
 *
 *   node bench/apply-run.js ksctl FILE    `ksctl markings apply -f FILE`, run in this process as
 *                                         bin/ksctl.js runs it
 *   node bench/apply-run.js serial FILE   one Create New Marking per marking of FILE, each sent
 *                                         after the previous one answered, with ksctl's own HTTP
 *                                         client (a script looping over the markings, minus a
 *                                         process per marking)
 */
import { readFile } from 'node:fs/promises';

const [mode, file] = process.argv.slice(2);
const baseUrl = process.env.KSCTL_BASE_URL;
const token = process.env.KSCTL_TOKEN;
if (!['ksctl', 'serial'].includes(mode) || !file || !baseUrl || !token) {
  process.stderr.write(
    'usage: KSCTL_BASE_URL=… KSCTL_TOKEN=… node bench/apply-run.js ksctl|serial FILE\n',
  );
  process.exit(2);
}

const reset = await fetch(`${new URL(baseUrl).origin}/_mock/reset`, {
  method: 'POST',
  headers: { authorization: `Bearer ${token}` },
});
await reset.arrayBuffer();
if (!reset.ok) throw new Error(`resetting the mock answered ${reset.status}`);

// Each side loads only what it runs: ksctl's bundle as bin/ksctl.js loads it, or the client.
if (mode === 'ksctl') {
  const { run } = await import('../dist/bundle/main.cjs');
  process.exitCode = await run(['markings', 'apply', '-f', file]);
} else {
  const { ApiClient } = await import('../dist/client/api/client.js');
  const { HttpMarkingsApi } = await import('../dist/client/markings/http-markings-api.js');
  const { markings } = JSON.parse(await readFile(file, 'utf8'));
  const client = new ApiClient({ baseUrl, auth: { kind: 'bearer', token } });
  const api = new HttpMarkingsApi(client);
  try {
    for (const marking of markings) {
      const values = (marking.values ?? []).map((v) => (typeof v === 'string' ? { name: v } : v));
      await api.createMarking({ name: marking.name, detail: { values } });
    }
  } finally {
    await client.close();
  }
  process.stdout.write(`created ${markings.length} markings, one request each\n`);
}

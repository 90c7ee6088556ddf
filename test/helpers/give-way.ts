import type { TestMock } from './mock.js';

/**
 * How many health checks the mock answered while it handled one request (issue 17): health
 * checks are sent one after the other until `request` settles, and the mock's request journal
 * tells which were answered between the start and the end of handling the request at `path`.
 * When the mock did a request's work in one step it answered none (maybe one, while the body
 * arrived); working in slices, it answers one or more per slice.
 */
export async function healthChecksDuring(
  mock: TestMock,
  path: string,
  request: Promise<unknown>,
): Promise<number> {
  let done = false;
  void request.finally(() => (done = true)).catch(() => undefined);
  for (let i = 0; i < 10_000 && !done; i++) {
    const health = await fetch(`${mock.info.url}/_mock/health`);
    await health.arrayBuffer();
  }
  await request;
  const { requests } = mock.server.state.requests();
  const handled = requests.findLast((entry) => entry.path === path);
  if (!handled) throw new Error(`no request to ${path} in the journal`);
  const end = Date.parse(handled.time);
  const start = end - handled.durationMs;
  return requests.filter((entry) => {
    const at = Date.parse(entry.time);
    return entry.path === '/_mock/health' && at > start && at < end;
  }).length;
}

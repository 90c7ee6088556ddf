import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { TestMock } from './mock.js';

/**
 * A client of its own thread that sends health checks one after the other until told to stop.
 * On the test's own thread, each check would need a few turns of the event loop the mock shares
 * with it (the answer read, the next check written), so the count would follow the speed of the
 * machine more than the mock's slices; on a thread of its own, the next check already waits when
 * the mock next gives way.
 */
const HEALTH_LOOP = `
const { parentPort, workerData } = require('node:worker_threads');
const stop = new Int32Array(workerData.stop);
(async () => {
  for (let i = 0; i < 100000 && Atomics.load(stop, 0) === 0; i++) {
    const answer = await fetch(workerData.url);
    await answer.arrayBuffer();
    if (i === 0) parentPort.postMessage('ready');
  }
})().then(
  () => parentPort.postMessage('done'),
  (error) => parentPort.postMessage(String(error)),
);
`;

/**
 * How many health checks the mock answered while it handled one request (issue 17): a client on
 * another thread sends health checks one after the other while `request` runs, and the mock's
 * request journal tells which were answered between the start and the end of handling the
 * request at `path`. When the mock does a request's work in one step it answers none (maybe one,
 * while a body arrives); working in slices, it answers about one a slice: seven or more for each
 * request the tests send, on an idle machine, and more on a loaded one, where slices are shorter
 * in work but not in time. The tests ask for three.
 */
export async function healthChecksDuring<T>(
  mock: TestMock,
  path: string,
  request: () => Promise<T>,
): Promise<{ answered: number; result: T }> {
  const stop = new SharedArrayBuffer(4);
  const worker = new Worker(HEALTH_LOOP, {
    eval: true,
    workerData: { url: `${mock.info.url}/_mock/health`, stop },
  });
  const said = async (): Promise<void> => {
    const [message] = (await once(worker, 'message')) as [string];
    if (message !== 'ready' && message !== 'done') throw new Error(`health checks: ${message}`);
  };
  let result: T;
  try {
    await said();
    result = await request();
    Atomics.store(new Int32Array(stop), 0, 1);
    await said();
  } finally {
    await worker.terminate();
  }
  const { requests } = mock.server.state.requests();
  const handled = requests.findLast((entry) => entry.path === path);
  if (!handled) throw new Error(`no request to ${path} in the journal`);
  const end = Date.parse(handled.time);
  const start = end - handled.durationMs;
  const answered = requests.filter((entry) => {
    const at = Date.parse(entry.time);
    return entry.path === '/_mock/health' && at > start && at < end;
  }).length;
  return { answered, result };
}

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
  (error) => parentPort.postMessage(String(error) + (error.cause ? ': ' + String(error.cause) : '')),
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
  // Listened to from the start: a message that came while nobody waited for it (a failed check
  // during the request) was lost, and the wait for the end then never ended.
  const started = openPromise();
  const ended = openPromise();
  const failed = (error: Error): void => {
    started.reject(error);
    ended.reject(error);
  };
  worker.on('message', (message: string) => {
    if (message === 'ready') started.resolve();
    else if (message === 'done') ended.resolve();
    else failed(new Error(`a health check failed: ${message}`));
  });
  worker.on('error', (error) => failed(error));
  worker.on('exit', () => failed(new Error('the health checks stopped before they were told to')));
  let result: T;
  try {
    await started.promise;
    result = await request();
    Atomics.store(new Int32Array(stop), 0, 1);
    await ended.promise;
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

/** A promise and what settles it; its rejection counts as handled until it is awaited. */
function openPromise(): {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: Error) => void;
} {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

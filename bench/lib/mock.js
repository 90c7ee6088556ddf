import { fork } from 'node:child_process';

/** Longest the mock may take to build its state and start listening. */
const START_TIMEOUT_MS = 180_000;

/**
 * Starts the mock in a child process with a synthetic seed (see seed.js). Returns `stop()` at once
 * (so an interrupted start can be cleaned up too) and `ready`, which resolves with the mock's
 * connection details (MockInfo), how long building its state took and the child's pid (for
 * its CPU time).
 */
export function startMock(seed = [], options = {}) {
  const child = fork(new URL('./mock-child.js', import.meta.url), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // The state of a million values needs more than the default old space on small machines.
    // `gc` for the live memory a load may ask for (heap-report.js); it changes nothing else.
    execArgv: ['--max-old-space-size=4096', '--expose-gc'],
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  const ready = new Promise((resolve, reject) => {
    const fail = (error) => {
      clearTimeout(timer);
      void stop().then(() => reject(error));
    };
    const timer = setTimeout(
      () => fail(new Error(`the mock did not start within ${START_TIMEOUT_MS / 1000} s`)),
      START_TIMEOUT_MS,
    );
    child.once('exit', (code) => fail(new Error(`the mock exited with ${code} while starting`)));
    child.once('message', (message) => {
      clearTimeout(timer);
      child.removeAllListeners('exit');
      if (message.error) return fail(new Error(`the mock failed to start: ${message.error}`));
      resolve({ info: message.info, seedMs: message.seedMs, pid: child.pid });
    });
    child.send({ seed, options });
  });
  return { stop, ready };
}

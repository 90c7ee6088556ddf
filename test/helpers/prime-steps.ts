/**
 * Prime search steps whose Miller-Rabin tests the test ends (src/common/enrollment/prime-search.ts): each
 * test waits until the test answers it, so a test can count what the search starts and when.
 */
import { OPENSSL_STEPS, type PrimeSteps } from '../../src/common/enrollment/prime-search.js';

export function controlledTests(window: PrimeSteps['window'] = OPENSSL_STEPS.window) {
  const pending: ((prime: boolean) => void)[] = [];
  let started = 0;
  const steps: PrimeSteps = {
    window,
    test: () =>
      new Promise<boolean>((resolve) => {
        started++;
        pending.push(resolve);
      }),
    confirmingAfterMs: Infinity,
  };
  return {
    steps,
    /** Tests started so far. */
    get started() {
      return started;
    },
    /** Tests started and not answered yet. */
    get running() {
      return pending.length;
    },
    /** Answers every test running with `prime`. */
    finishAll: (prime: boolean) => {
      for (const resolve of pending.splice(0)) resolve(prime);
    },
    /** Answers the test that started first with `prime`. */
    finishOldest: (prime = true) => pending.shift()!(prime),
  };
}

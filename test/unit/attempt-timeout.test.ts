/**
 * The deadline of one attempt of a request (src/client/api/attempt-timeout.ts): it aborts as
 * AbortSignal.timeout does, so a timed-out request reads "timed out", and clearing it stops it.
 */
import { describe, expect, it } from 'vitest';
import { attemptTimeout } from '../../src/client/api/attempt-timeout.js';
import { networkMessage, TIMED_OUT } from '../../src/client/api/network-failures.js';

describe('an attempt timeout', () => {
  it('aborts with a TimeoutError once its time is up, which reads as timed out', async () => {
    const timeout = attemptTimeout(20);
    expect(timeout.signal.aborted).toBe(false);
    await new Promise((resolve) => timeout.signal.addEventListener('abort', resolve));
    const reason = timeout.signal.reason as DOMException;
    expect(reason.name).toBe('TimeoutError');
    expect(networkMessage(reason)).toBe(TIMED_OUT);
  });

  it('never aborts once cleared', async () => {
    const timeout = attemptTimeout(10);
    timeout.clear();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(timeout.signal.aborted).toBe(false);
  });
});

describe("an attempt timeout with the caller's signal", () => {
  it("aborts with the caller's reason when the caller gives up first", async () => {
    const caller = new AbortController();
    const timeout = attemptTimeout(10_000, caller.signal);
    const aborted = new Promise((resolve) => timeout.signal.addEventListener('abort', resolve));
    caller.abort(new Error('stop'));
    await aborted;
    expect((timeout.signal.reason as Error).message).toBe('stop');
    timeout.clear();
  });

  it('is aborted at once when the caller has given up already, and never after clear()', async () => {
    const gone = new AbortController();
    gone.abort(new Error('before'));
    expect(attemptTimeout(10_000, gone.signal).signal.aborted).toBe(true);

    const caller = new AbortController();
    const timeout = attemptTimeout(10, caller.signal);
    timeout.clear();
    caller.abort(new Error('late'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(timeout.signal.aborted).toBe(false);
  });
});

// node:timers/promises loads on the first wait, not with every command that might wait (retries).
const timers = () => import('node:timers/promises');

/** Waits `ms` milliseconds. An abort ends the wait at once, rejecting with the signal's reason. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  const { setTimeout: delay } = await timers();
  try {
    await delay(ms, undefined, signal ? { signal } : undefined);
  } catch (error) {
    throw signal?.aborted === true ? signal.reason : error;
  }
}

/** Waits `ms` milliseconds, or less when `signal` aborts first; never rejects. */
export async function sleepUntilAborted(ms: number, signal: AbortSignal): Promise<void> {
  const { setTimeout: delay } = await timers();
  await delay(ms, undefined, { signal }).catch(() => undefined);
}

/**
 * Many test devices at once: a pool of `concurrency` workers over `count` tasks. Key generation
 * runs on the libuv thread pool, so two workers use two cores. On abort no new task starts; the
 * ones in flight finish (their token pairs are spent, so their profiles must still be stored).
 */
import { asKsctlError, InterruptedError, type KsctlError } from '../../common/errors.js';

export type TaskOutcome<T> =
  { index: number; ok: true; value: T } | { index: number; ok: false; error: KsctlError };

export async function runPool<T>(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<T>,
  options: { signal?: AbortSignal; onSettled?: (outcome: TaskOutcome<T>) => void } = {},
): Promise<TaskOutcome<T>[]> {
  const outcomes: TaskOutcome<T>[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count && options.signal?.aborted !== true) {
      const index = next++;
      let outcome: TaskOutcome<T>;
      try {
        outcome = { index, ok: true, value: await task(index) };
      } catch (error) {
        outcome = { index, ok: false, error: asKsctlError(error) };
      }
      outcomes.push(outcome);
      options.onSettled?.(outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
  for (let index = next; index < count; index++) {
    outcomes.push({ index, ok: false, error: new InterruptedError('not started: interrupted') });
  }
  return outcomes.sort((a, b) => a.index - b.index);
}

/**
 * The exit code of a run: 0 when everything succeeded, else the most common exit code among the
 * failures (the first failure's on a tie), so one stray error does not hide a systematic one.
 */
export function bulkExitCode(outcomes: TaskOutcome<unknown>[]): number {
  const counts = new Map<number, number>();
  for (const outcome of outcomes) {
    if (!outcome.ok)
      counts.set(outcome.error.exitCode, (counts.get(outcome.error.exitCode) ?? 0) + 1);
  }
  let best = 0;
  let bestCount = 0;
  // Map iteration follows first appearance, so a tie keeps the earliest failure's code.
  for (const [code, n] of counts) {
    if (n > bestCount) {
      best = code;
      bestCount = n;
    }
  }
  return best;
}

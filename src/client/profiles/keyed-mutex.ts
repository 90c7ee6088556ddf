/**
 * An in-process async mutex per key. The lock file alone would make concurrent callers in one
 * process poll each other; this queues them instead, so only one per process waits on the file.
 */
const tails = new Map<string, Promise<void>>();

export async function withKeyedMutex<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => done);
  tails.set(key, tail);
  await previous;
  try {
    return await task();
  } finally {
    release();
    // Forget the key once nobody queued behind us, so the map does not grow.
    if (tails.get(key) === tail) {
      tails.delete(key);
    }
  }
}

/**
 * The deadline of one attempt of a request: a signal that aborts after `ms` with the reason
 * AbortSignal.timeout gives (a TimeoutError), and `clear()` to stop its timer once the attempt is
 * over. AbortSignal.timeout cost about 50 µs a call (its signal is tracked for the garbage
 * collector), as much as the rest of a request to a local service; a controller and a timer
 * cost a few.
 */
export function attemptTimeout(ms: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, ms);
  // As AbortSignal.timeout's: the deadline alone keeps no process running.
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

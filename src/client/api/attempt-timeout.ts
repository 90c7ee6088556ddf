/**
 * The deadline of one attempt of a request: a signal that aborts after `ms` with the reason
 * AbortSignal.timeout gives (a TimeoutError), or when `outer` aborts, with its reason; and
 * `clear()` to stop its timer once the attempt is over. AbortSignal.timeout cost about 50 µs a
 * call (its signal is tracked for the garbage collector), as much as the rest of a request to a
 * local service; an AbortController with a listener still cost about 20 µs, most of it in the
 * listener undici adds to its signal. The signal here is a plain EventTarget with `aborted` and
 * `reason`, all undici reads of a signal: it costs well under a microsecond.
 */
export class AttemptSignal extends EventTarget {
  aborted = false;
  reason: unknown = undefined;

  /** Aborts once: sets the reason, then tells the listeners. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.dispatchEvent(new Event('abort'));
  }
}

export function attemptTimeout(
  ms: number,
  outer?: AbortSignal,
): { signal: AttemptSignal; clear(): void } {
  const signal = new AttemptSignal();
  const timer = setTimeout(() => {
    signal.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, ms);
  // As AbortSignal.timeout's: the deadline alone keeps no process running.
  timer.unref();
  if (!outer) return { signal, clear: () => clearTimeout(timer) };
  const forward = () => signal.abort(outer.reason);
  if (outer.aborted) forward();
  else outer.addEventListener('abort', forward, { once: true });
  return {
    signal,
    clear: () => {
      clearTimeout(timer);
      outer.removeEventListener('abort', forward);
    },
  };
}

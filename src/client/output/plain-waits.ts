/**
 * Waits off a terminal (a CI log, a file), where no spinner or bar can be drawn: plain lines on
 * stderr instead, so that no wait over a second is silent. A request without an answer after a
 * second says so, and again every ten seconds while it lasts; a long run (bulk enroll, apply)
 * says how far it is every few seconds. Nothing with --quiet.
 */
import type { IOStreams } from './io.js';

/** A wait shorter than this says nothing: most answers come well within it. */
export const PLAIN_FIRST_MS = 1000;
/** A wait that goes on says so again this often. */
export const PLAIN_REPEAT_MS = 10_000;
/** A long run's progress line comes this often. */
export const PLAIN_PROGRESS_MS = 5000;

/** "1 s", "12 s", "2 min 5 s". */
export function elapsed(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const rest = seconds % 60;
  return `${Math.floor(seconds / 60)} min${rest === 0 ? '' : ` ${rest} s`}`;
}

/**
 * Writes `first(ms)` once `PLAIN_FIRST_MS` have passed, then `again(ms)` every `PLAIN_REPEAT_MS`,
 * until `stop`. The timers keep no process alive; Date.now, not performance (whose first use
 * loads perf_hooks on every network command: test/e2e/startup.test.ts).
 */
export function plainNotice(
  io: IOStreams,
  first: (ms: number) => string,
  again: (ms: number) => string,
  { firstMs = PLAIN_FIRST_MS, repeatMs = PLAIN_REPEAT_MS } = {},
): { stop(): void } {
  const began = Date.now();
  let repeat: NodeJS.Timeout | undefined;
  const say = (line: string) => io.stderr.write(`${line}\n`);
  const start = setTimeout(() => {
    say(first(Date.now() - began));
    repeat = setInterval(() => say(again(Date.now() - began)), repeatMs);
    repeat.unref();
  }, firstMs);
  start.unref();
  return {
    stop() {
      clearTimeout(start);
      clearInterval(repeat);
    },
  };
}

/**
 * Per-request timeouts, one parser for the flag, KSCTL_TIMEOUT and a context's stored value.
 * Light on purpose: the program's option definitions use it at start-up.
 */
import { UsageError } from '../../common/errors.js';
import type { ContextConfig } from './store.js';

/** The options that carry a timeout (see GlobalOptions). */
interface TimeoutOptions {
  /** Seconds, from --timeout (its parser keeps it in range and to whole milliseconds). */
  timeout?: number;
}

/** Per-request timeouts: from a millisecond to a day, far below Node's timer limit (2^31-1 ms). */
export const TIMEOUT_MAX_SECONDS = 86_400;
export const TIMEOUT_RANGE = `a number of seconds from 0.001 to ${TIMEOUT_MAX_SECONDS}`;
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The one parser of timeouts (the flag, KSCTL_TIMEOUT): decimal seconds to whole milliseconds
 * (at least 1), or undefined when the text is not a timeout in range.
 */
export function parseTimeoutMs(seconds: string): number | undefined {
  if (!/^(?:\d+\.?\d*|\.\d+)$/.test(seconds.trim())) return undefined;
  const n = Number(seconds);
  return n >= 0.001 && n <= TIMEOUT_MAX_SECONDS ? secondsToMs(n) : undefined;
}

export function secondsToMs(seconds: number): number {
  return Math.max(1, Math.round(seconds * 1000));
}

/** KSCTL_TIMEOUT in milliseconds; empty or unset is undefined. */
export function environmentTimeoutMs(env: NodeJS.ProcessEnv): number | undefined {
  const text = env.KSCTL_TIMEOUT;
  if (text === undefined || text === '') return undefined;
  const ms = parseTimeoutMs(text);
  if (ms === undefined) {
    throw new UsageError(`KSCTL_TIMEOUT must be a positive number of seconds, not "${text}"`, {
      hint: `a timeout is ${TIMEOUT_RANGE}`,
    });
  }
  return ms;
}

/** The timeout a context stores (written by `context add --timeout`), checked like the others. */
function contextTimeoutMs(name: string, context: ContextConfig): number | undefined {
  const ms: unknown = context.timeoutMs;
  if (ms === undefined) return undefined;
  if (typeof ms !== 'number' || !(ms >= 1 && ms <= TIMEOUT_MAX_SECONDS * 1000)) {
    throw new UsageError(`the timeout stored in context "${name}" is not ${TIMEOUT_RANGE}`, {
      hint: `add the context again with --force and --timeout SECONDS`,
    });
  }
  return Math.round(ms);
}

/** flag > KSCTL_TIMEOUT > context > 30 s, in whole milliseconds. */
export function resolveTimeoutMs(
  globals: TimeoutOptions,
  env: NodeJS.ProcessEnv,
  name: string | undefined,
  context: ContextConfig,
): number {
  return (
    (globals.timeout !== undefined ? secondsToMs(globals.timeout) : undefined) ??
    environmentTimeoutMs(env) ??
    (name === undefined ? undefined : contextTimeoutMs(name, context)) ??
    DEFAULT_TIMEOUT_MS
  );
}

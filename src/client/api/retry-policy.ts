/**
 * When the client tries a request again: which methods and statuses are retried, how long it waits
 * (Retry-After, or full-jitter backoff) and how a retry is announced.
 */

/** Methods whose repetition changes nothing more than the first call did. */
export const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
/** Statuses worth another try: any for an idempotent request, only those that say nothing was done otherwise. */
export const RETRY_STATUS_IDEMPOTENT = new Set([429, 502, 503, 504]);
export const RETRY_STATUS_ANY = new Set([429, 503]);

/** Retry-After in milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now = Date.now(),
): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text.trim())) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Full-jitter exponential backoff: a random wait in [0, base * 2^attempt], capped. */
export function backoffDelay(attempt: number, baseMs: number, random = Math.random): number {
  return Math.round(random() * Math.min(10_000, baseMs * 2 ** attempt));
}

/**
 * "503, retrying in 1.2 s (attempt 2 of 4)", "connection refused, retrying in 0.3 s (attempt 2
 * of 4)": `attempt` is the one about to be made, of `attempts` in all.
 */
export function retryMessage(
  waitMs: number,
  after: string,
  attempt: number,
  attempts: number,
): string {
  const seconds = waitMs >= 10_000 ? Math.round(waitMs / 1000) : Math.ceil(waitMs / 100) / 10;
  return `${after}, retrying in ${seconds} s (attempt ${attempt} of ${attempts})`;
}

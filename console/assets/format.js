// @ts-check
/**
 * Numbers, sizes and times as the console writes them: plain text, no page touched, so the
 * pages' data modules use them too and the unit tests run them in node.
 */

const clockFormat = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
});

/**
 * hh:mm:ss.mmm of a request's time (plain text: the list makes hundreds a second).
 * @param {string | number | undefined} value
 */
export function clockText(value) {
  const date = new Date(value ?? NaN);
  if (Number.isNaN(date.getTime())) return String(value ?? '');
  return `${clockFormat.format(date)}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** @param {unknown} n a size in bytes */
export function bytes(n) {
  if (typeof n !== 'number') return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

const numberFormat = new Intl.NumberFormat('en');
/** @param {unknown} n */
export function count(n) {
  return typeof n === 'number' ? numberFormat.format(n) : '—';
}

/**
 * How long a request took, as the list and the detail show it.
 * @param {number | undefined} ms
 */
export const took = (ms) => `${(ms ?? 0) < 10 ? (ms ?? 0).toFixed(1) : Math.round(ms ?? 0)} ms`;

/**
 * "1 marking", "2 values": a count and a word, plural when it is not one.
 * @param {number | undefined} n
 * @param {string} word
 */
export const plural = (n, word) => `${count(n)} ${word}${n === 1 ? '' : 's'}`;

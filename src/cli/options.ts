import { InvalidArgumentError } from 'commander';

/** Option parsers for commander: they throw InvalidArgumentError, which commander reports (exit 2). */

export function wholeNumber(text: string): number {
  if (!/^\d{1,9}$/.test(text))
    throw new InvalidArgumentError('expected a whole number (0 or more).');
  return Number(text);
}

export function positiveWholeNumber(text: string): number {
  const n = wholeNumber(text);
  if (n < 1) throw new InvalidArgumentError('expected a whole number of 1 or more.');
  return n;
}

export function positiveSeconds(text: string): number {
  const n = Number(text);
  if (!(n > 0) || !Number.isFinite(n))
    throw new InvalidArgumentError('expected a number of seconds greater than 0.');
  return n;
}

/** Repeatable options collect into an array. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export interface NameAndDescription {
  name: string;
  description?: string;
}

/**
 * `NAME[=DESCRIPTION]`: split on the first `=` not preceded by a backslash, so a name may contain
 * `\=`.
 */
export function nameAndDescription(text: string): NameAndDescription {
  const m = /^((?:[^=\\]|\\.)*)(?:=([\s\S]*))?$/.exec(text);
  const name = (m?.[1] ?? text).replace(/\\(.)/g, '$1');
  return m?.[2] === undefined ? { name } : { name, description: m[2] };
}

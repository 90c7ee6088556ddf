import { type Command, InvalidArgumentError } from 'commander';
import { API_VERSIONS, type ApiVersion, isApiVersion } from '../../../common/device/api-version.js';
import { parseTimeoutMs, TIMEOUT_RANGE } from '../../config/timeout.js';

/** Option parsers for commander: they throw InvalidArgumentError, which commander reports (exit 2). */

/** The largest number a whole-number option takes unless it sets a lower maximum of its own. */
const WHOLE_NUMBER_MAX = 999_999_999;

/** A parser of whole numbers from `min` to `max`; the message states both bounds. */
export function wholeNumberFrom(min: number, max = WHOLE_NUMBER_MAX): (text: string) => number {
  return (text) => {
    const n = /^\d{1,15}$/.test(text) ? Number(text) : NaN;
    if (!(n >= min && n <= max))
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}.`);
    return n;
  };
}

export const wholeNumber = wholeNumberFrom(0);
export const positiveWholeNumber = wholeNumberFrom(1);

/** `--timeout`: seconds, checked by the same parser as KSCTL_TIMEOUT, kept to whole milliseconds. */
export function timeoutSeconds(text: string): number {
  const ms = parseTimeoutMs(text);
  if (ms === undefined) throw new InvalidArgumentError(`expected ${TIMEOUT_RANGE}.`);
  return ms / 1000;
}

/**
 * `--api-version 2.3|2.4`: the dialect of device requests (docs/design.md 2.4). v2.4 by default, as
 * the current SDKs speak it; v2.3 for services that predate it.
 */
export function apiVersionOption(cmd: Command): Command {
  return cmd.option(
    '--api-version <version>',
    `dialect of the device requests: ${API_VERSIONS.join(' or ')} (default 2.4, as the current SDKs speak)`,
    (text: string): ApiVersion => {
      if (isApiVersion(text)) return text;
      throw new InvalidArgumentError(`must be ${API_VERSIONS.join(' or ')}`);
    },
  );
}

/** Repeatable options collect into an array. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

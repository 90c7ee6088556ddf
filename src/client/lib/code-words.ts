/**
 * The library's boundary for errors: a typed error leaves a library call with its hint in the
 * words of code (the options of the call), not the CLI's flags; see `FacedHint`.
 */
import { isKsctlError } from '../../common/errors.js';

/** The error, its hint in code's words when it is a typed error. */
export function inCodeWords(error: unknown): unknown {
  return isKsctlError(error) ? error.inCodeWords() : error;
}

/** Runs a library call; a typed error it throws (or rejects with) names options, not flags. */
export function codeFace<T>(run: () => T): T {
  let result: T;
  try {
    result = run();
  } catch (error) {
    throw inCodeWords(error);
  }
  if (result instanceof Promise) {
    return result.catch((error: unknown) => {
      throw inCodeWords(error);
    }) as T;
  }
  return result;
}

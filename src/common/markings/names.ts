import { DESCRIPTION_MAX_LENGTH, NAME_MAX_LENGTH } from './wire.js';

/**
 * The name and description rules of docs/design.md 1.1, in one place for the client (commands, apply
 * files) and the mock, so a name ksctl accepts is a name the mock accepts.
 */

/** Length in characters (code points), as a person and the JSON Schema count them, not UTF-16 units. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/**
 * Printable ASCII, neither starting nor ending with a space: most names, checked with one test
 * (a file of 100,000 values checks 100,000 names).
 */
const PLAIN_NAME = /^[!-~](?:[ -~]*[!-~])?$/;

/** Why a marking or value name is not acceptable (docs/design.md 1.1), or undefined when it is. */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'must be a string';
  if (name.length <= NAME_MAX_LENGTH && PLAIN_NAME.test(name)) return undefined;
  if (name.length === 0) return 'must not be empty';
  if (characterCount(name) > NAME_MAX_LENGTH)
    return `must be at most ${NAME_MAX_LENGTH} characters`;
  if (name.trim() !== name) return 'must not start or end with white space';
  // C0, DEL and C1 controls, as the JSON Schema's pattern excludes them.
  if (/\p{Cc}/u.test(name)) return 'must not contain control characters';
  return undefined;
}

/** Why a description is not acceptable, or undefined when it is. */
export function descriptionProblem(description: unknown): string | undefined {
  if (typeof description !== 'string') return 'must be a string';
  // UTF-16 units are never fewer than characters: a short one needs no counting.
  if (
    description.length > DESCRIPTION_MAX_LENGTH &&
    characterCount(description) > DESCRIPTION_MAX_LENGTH
  ) {
    return `must be at most ${DESCRIPTION_MAX_LENGTH} characters`;
  }
  return undefined;
}

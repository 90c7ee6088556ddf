import { DESCRIPTION_MAX_LENGTH, NAME_MAX_LENGTH } from '../api/wire.js';

/** Length in characters (code points), as a person counts them, not UTF-16 units. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** Why a marking or value name breaks the rules of DESIGN.md 1.1, or undefined when it is valid. */
export function nameProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  const length = characterCount(name);
  if (length > NAME_MAX_LENGTH) {
    return `is ${length} characters long; at most ${NAME_MAX_LENGTH} are allowed`;
  }
  if (/^\s|\s$/u.test(name)) return 'must not start or end with white space';
  if (/\p{Cc}/u.test(name)) return 'must not contain control characters';
  return undefined;
}

export function descriptionProblem(description: string): string | undefined {
  const length = characterCount(description);
  return length > DESCRIPTION_MAX_LENGTH
    ? `is ${length} characters long; at most ${DESCRIPTION_MAX_LENGTH} are allowed`
    : undefined;
}

import { DESCRIPTION_MAX_LENGTH, NAME_MAX_LENGTH } from './wire.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why a marking or value name is not acceptable (DESIGN.md 1.1), or undefined when it is. */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'must be a string';
  if (name.length === 0) return 'must not be empty';
  if (name.length > NAME_MAX_LENGTH) return `must be at most ${NAME_MAX_LENGTH} characters`;
  if (name.trim() !== name) return 'must not start or end with white space';
  if (CONTROL.test(name)) return 'must not contain control characters';
  return undefined;
}

/** Why a description is not acceptable, or undefined when it is. */
export function descriptionProblem(description: unknown): string | undefined {
  if (typeof description !== 'string') return 'must be a string';
  if (description.length > DESCRIPTION_MAX_LENGTH) {
    return `must be at most ${DESCRIPTION_MAX_LENGTH} characters`;
  }
  return undefined;
}

/**
 * What ksctl accepts as the name of a profile it stores: one line of printable text, so that it
 * shows in `profiles list`, can be typed on a command line, and never breaks a log or a table.
 * Names need not be unique (the Ionic formats key profiles by device id); files written by
 * other programs are read whatever their names.
 */

export const PROFILE_NAME_MAX_LENGTH = 128;

/** Control characters (C0, DEL, C1) and the Unicode line and paragraph separators. */
const UNPRINTABLE = /[\p{Cc}\p{Zl}\p{Zp}]/u;

/** Why `name` cannot be a profile name (completing "the profile name ..."), or undefined. */
export function profileNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'is empty';
  const unprintable = UNPRINTABLE.exec(name)?.[0];
  if (unprintable !== undefined) {
    const codePoint = unprintable.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `contains an unprintable character (U+${codePoint}); use one line of printable text`;
  }
  const length = [...name].length;
  if (length > PROFILE_NAME_MAX_LENGTH) {
    return `has ${length} characters; at most ${PROFILE_NAME_MAX_LENGTH} are allowed`;
  }
  if (name !== name.trim()) return 'starts or ends with white space';
  return undefined;
}

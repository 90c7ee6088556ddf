/** Words for messages: a text the user gave, quoted; a count with its noun; a list of names. */

/** Characters of a text a message quotes in full; a longer one is cut and its length told. */
const QUOTED_MAX = 60;

/**
 * A name or other text the user gave, quoted for a message (control characters escaped), and cut
 * short when long: a name of 10,000 characters must not flood the terminal.
 *   "classification"   "aaaa…aaaa"… (10,000 characters)
 */
export function quoted(text: string): string {
  if (text.length <= QUOTED_MAX) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, QUOTED_MAX))}… (${text.length.toLocaleString('en')} characters)`;
}

/** "1 value", "3 values". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Names for a message, quoted: the first `limit`, then "… and N more" (never "and 1 more"). */
export function quotedNames(names: readonly string[], limit = 10): string {
  const shown = names.length <= limit + 1 ? names : names.slice(0, limit);
  const text = shown.map(quoted).join(', ');
  return shown.length < names.length ? `${text} … and ${names.length - shown.length} more` : text;
}

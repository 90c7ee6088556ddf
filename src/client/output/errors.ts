import { wrapLines } from '../../common/text/wrap.js';
import { InternalError, type KsctlError } from '../../common/errors.js';

/**
 * Problems listed under an error: enough to fix the first ones, never pages of them (the
 * producers of long lists count the rest themselves; this bounds any that do not).
 */
const MAX_DETAILS = 100;
const MAX_DETAIL_LENGTH = 200;

/** A problem on one line of bounded length (a parser may quote a whole document in it). */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length <= MAX_DETAIL_LENGTH ? flat : `${flat.slice(0, MAX_DETAIL_LENGTH - 1)}…`;
}

/** Hints read alike: lower case after `hint: `, but an acronym or a name keeps its capitals. */
function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}

/**
 * The lines a user sees for an error: what happened, what to do, which conversation to quote;
 * wrapped to `width` when given (the terminal's, or 80 columns in a pipe or a log).
 */
export function formatError(error: KsctlError, debug: boolean, width?: number): string {
  const lines = [`error: ${error.message}`];
  for (const d of error.details.slice(0, MAX_DETAILS)) {
    lines.push(`  ${d.path ? `${d.path}: ` : ''}${oneLine(d.message)}`);
  }
  if (error.details.length > MAX_DETAILS) {
    lines.push(`  … and ${error.details.length - MAX_DETAILS} more`);
  }
  if (error.hint) lines.push(`hint: ${lowerFirst(error.hint)}`);
  if (error.conversationId) lines.push(`conversation id: ${error.conversationId}`);
  if (width !== undefined) lines.splice(0, lines.length, wrapLines(lines.join('\n'), width));
  if (debug && error instanceof InternalError) {
    const cause = error.cause instanceof Error ? error.cause : error;
    if (cause.stack) lines.push(cause.stack);
  }
  return `${lines.join('\n')}\n`;
}

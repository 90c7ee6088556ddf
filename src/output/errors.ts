import { wrapLines } from './wrap.js';
import { InternalError, isKsctlError, type KsctlError } from '../errors.js';

const REPORT_HINT =
  'This is a bug in ksctl. Please report it with the command you ran and the output of --debug.';

/** Any thrown value as a typed error: unexpected ones become InternalError (exit 1). */
export function asKsctlError(error: unknown): KsctlError {
  if (isKsctlError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new InternalError(`unexpected error: ${message}`, { hint: REPORT_HINT, cause: error });
}

/**
 * The lines a user sees for an error: what happened, what to do, which conversation to quote;
 * wrapped to `width` when given (a terminal).
 */
export function formatError(error: KsctlError, debug: boolean, width?: number): string {
  const lines = [`error: ${error.message}`];
  for (const d of error.details) lines.push(`  ${d.path ? `${d.path}: ` : ''}${d.message}`);
  if (error.hint) lines.push(`hint: ${error.hint}`);
  if (error.conversationId) lines.push(`conversation id: ${error.conversationId}`);
  if (width !== undefined) lines.splice(0, lines.length, wrapLines(lines.join('\n'), width));
  if (debug && error instanceof InternalError) {
    const cause = error.cause instanceof Error ? error.cause : error;
    if (cause.stack) lines.push(cause.stack);
  }
  return `${lines.join('\n')}\n`;
}

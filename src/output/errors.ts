import { InternalError, type KsctlError } from '../errors.js';

/** The lines a user sees for an error: what happened, what to do, which conversation to quote. */
export function formatError(error: KsctlError, debug: boolean): string {
  const lines = [`error: ${error.message}`];
  for (const d of error.details) lines.push(`  ${d.path ? `${d.path}: ` : ''}${d.message}`);
  if (error.hint) lines.push(`hint: ${error.hint}`);
  if (error.conversationId) lines.push(`conversation id: ${error.conversationId}`);
  if (debug && error instanceof InternalError) {
    const cause = error.cause instanceof Error ? error.cause : error;
    if (cause.stack) lines.push(cause.stack);
  }
  return `${lines.join('\n')}\n`;
}

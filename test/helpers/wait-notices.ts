/**
 * Off a terminal, a request without an answer after a second says so on stderr, and again every
 * ten seconds (src/client/output/plain-waits.ts). Whether such a line comes depends on how busy the
 * machine is, not on the command, so the runners take these lines out of what a test sees,
 * unless it asks for them (`waitNotices: true`) to test them.
 */
const NOTICE = /^[^\n]*: (?:no answer yet after \d[^\n]*…|still no answer after \d[^\n]*)\n/gm;

export function withoutWaitNotices(stderr: string): string {
  return stderr.replace(NOTICE, '');
}

/**
 * One key from a terminal, for a pause such as the demo's between its steps: the terminal is in raw
 * mode meanwhile, so the key counts at once (no line to finish) and Ctrl-C arrives as a key.
 */
import type { Readable, Writable } from 'node:stream';

/** What the key said: go on, stop (q, Ctrl-D, the input closed), or Ctrl-C. */
export type PauseAnswer = 'next' | 'stop' | 'interrupt';

const ENTER = [0x0d, 0x0a, 0x20];
const STOP = [0x71, 0x51, 0x04];
const CTRL_C = 0x03;

/**
 * Writes `prompt` on `out` and waits for Enter (or space), q, Ctrl-D or Ctrl-C; other keys are
 * ignored. The prompt's line is cleared afterwards, and an abort of `signal` (SIGTERM) ends the
 * wait as Ctrl-C does.
 */
export async function waitForKey(
  input: Readable,
  out: Writable,
  prompt: string,
  signal: AbortSignal,
): Promise<PauseAnswer> {
  if (signal.aborted) return 'interrupt';
  const terminal = input as Readable & { setRawMode?: (raw: boolean) => void };
  out.write(prompt);
  terminal.setRawMode?.(true);
  let settle: (answer: PauseAnswer) => void = () => undefined;
  const answered = new Promise<PauseAnswer>((resolve) => (settle = resolve));
  const onData = (chunk: Buffer | string) => {
    for (const byte of Buffer.from(chunk)) {
      if (ENTER.includes(byte)) return settle('next');
      if (STOP.includes(byte)) return settle('stop');
      if (byte === CTRL_C) return settle('interrupt');
    }
  };
  const onEnd = () => settle('stop');
  const onAbort = () => settle('interrupt');
  input.on('data', onData);
  input.once('end', onEnd);
  signal.addEventListener('abort', onAbort, { once: true });
  input.resume();
  try {
    return await answered;
  } finally {
    input.off('data', onData);
    input.off('end', onEnd);
    signal.removeEventListener('abort', onAbort);
    terminal.setRawMode?.(false);
    input.pause();
    out.write('\r\x1b[2K');
  }
}

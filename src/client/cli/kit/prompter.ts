import { InterruptedError } from '../../../common/errors.js';
import type { IOStreams } from '../../output/io.js';

/** Questions to a person on a terminal. Tests swap it for a scripted one. */
export interface Prompter {
  confirm(message: string, defaultAnswer?: boolean): Promise<boolean>;
  input(message: string): Promise<string>;
  /** Never echoed. */
  secret(message: string): Promise<string>;
}

/**
 * A prompt holds the terminal in raw mode, so Ctrl-C reaches it as a key, not as SIGINT: inquirer
 * then rejects with ExitPromptError, which is the user stopping, not a bug. Ctrl-D on an empty
 * line closes the prompt's readline instead, and inquirer never settles: the process ran out of
 * work and ended with exit 0. Its readline pauses `input` as it closes; a prompt that has not
 * settled by then was closed by the user, and is aborted as Ctrl-C is (exit 130).
 */
async function ask<T>(
  input: NodeJS.ReadableStream,
  question: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const closed = new AbortController();
  let settled = false;
  const onPause = () => {
    // An answer closes the readline too, a few promise turns before `settled`: look once those ran.
    setImmediate(() => {
      if (!settled) closed.abort();
    });
  };
  input.on('pause', onPause);
  try {
    return await question(closed.signal);
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    if (name === 'ExitPromptError' || (name === 'AbortPromptError' && closed.signal.aborted)) {
      throw new InterruptedError('interrupted; nothing was changed');
    }
    throw error;
  } finally {
    settled = true;
    input.removeListener('pause', onPause);
  }
}

/**
 * Inquirer's confirm, input and password prompts on the real terminal, writing to stderr so stdout
 * stays data only. Each is its own package, loaded when its question is asked.
 */
export function terminalPrompter(io: IOStreams): Prompter {
  // Taken when a question is asked: the first use of process.stdin sets up a stream on descriptor
  // 0, a few ms of every command's start-up.
  const context = (signal: AbortSignal) => ({ input: io.stdin, output: io.stderr, signal });
  return {
    confirm: (message, defaultAnswer = false) =>
      ask(io.stdin, async (signal) => {
        const { default: confirm } = await import('@inquirer/confirm');
        return confirm({ message, default: defaultAnswer }, context(signal));
      }),
    input: (message) =>
      ask(io.stdin, async (signal) => {
        const { default: input } = await import('@inquirer/input');
        return input({ message, required: true }, context(signal));
      }),
    secret: (message) =>
      ask(io.stdin, async (signal) => {
        const { default: password } = await import('@inquirer/password');
        return password({ message, mask: false }, context(signal));
      }),
  };
}

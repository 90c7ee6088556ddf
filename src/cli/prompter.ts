import { InterruptedError } from '../errors.js';
import type { IOStreams } from '../output/io.js';

/** Questions to a person on a terminal. Tests swap it for a scripted one. */
export interface Prompter {
  confirm(message: string, defaultAnswer?: boolean): Promise<boolean>;
  input(message: string): Promise<string>;
  /** Never echoed. */
  secret(message: string): Promise<string>;
}

/**
 * A prompt holds the terminal in raw mode, so Ctrl-C reaches it as a key, not as SIGINT: inquirer
 * then rejects with ExitPromptError, which is the user stopping, not a bug.
 */
async function ask<T>(question: () => Promise<T>): Promise<T> {
  try {
    return await question();
  } catch (error) {
    if (error instanceof Error && error.name === 'ExitPromptError') {
      throw new InterruptedError('interrupted; nothing was changed');
    }
    throw error;
  }
}

/**
 * Inquirer's confirm, input and password prompts on the real terminal, writing to stderr so stdout
 * stays data only. Each is its own package, loaded when its question is asked.
 */
export function terminalPrompter(io: IOStreams): Prompter {
  // Taken when a question is asked: the first use of process.stdin sets up a stream on descriptor
  // 0, a few ms of every command's start-up.
  const context = () => ({ input: io.stdin, output: io.stderr });
  return {
    confirm: (message, defaultAnswer = false) =>
      ask(async () => {
        const { default: confirm } = await import('@inquirer/confirm');
        return confirm({ message, default: defaultAnswer }, context());
      }),
    input: (message) =>
      ask(async () => {
        const { default: input } = await import('@inquirer/input');
        return input({ message, required: true }, context());
      }),
    secret: (message) =>
      ask(async () => {
        const { default: password } = await import('@inquirer/password');
        return password({ message, mask: false }, context());
      }),
  };
}

import type { IOStreams } from '../output/io.js';

/** Questions to a person on a terminal. Tests swap it for a scripted one. */
export interface Prompter {
  confirm(message: string, defaultAnswer?: boolean): Promise<boolean>;
  input(message: string): Promise<string>;
  /** Never echoed. */
  secret(message: string): Promise<string>;
}

/** @inquirer/prompts on the real terminal, writing to stderr so stdout stays data only. */
export function terminalPrompter(io: IOStreams): Prompter {
  const context = { input: io.stdin, output: io.stderr };
  return {
    async confirm(message, defaultAnswer = false) {
      const { confirm } = await import('@inquirer/prompts');
      return confirm({ message, default: defaultAnswer }, context);
    },
    async input(message) {
      const { input } = await import('@inquirer/prompts');
      return input({ message, required: true }, context);
    },
    async secret(message) {
      const { password } = await import('@inquirer/prompts');
      return password({ message, mask: false }, context);
    },
  };
}

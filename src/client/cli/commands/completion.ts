import { Argument, Command } from 'commander';
import type { CommandContext } from '../kit/command-context.js';

const SHELL_NAMES = ['bash', 'zsh', 'fish'];
const NAME_KIND_WORDS = ['marking', 'value', 'context', 'profile'];

export function completionCommand(ctx: CommandContext): Command {
  return new Command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELL_NAMES))
    .addHelpText(
      'after',
      '\nLoad it into this shell session with source <(ksctl completion bash) (zsh likewise), or save it\nwhere the shell loads completions from, for every session:\n\nExamples:\n  ksctl completion bash > ~/.local/share/bash-completion/completions/ksctl\n  ksctl completion zsh > "${fpath[1]}/_ksctl"\n  ksctl completion fish > ~/.config/fish/completions/ksctl.fish',
    )
    .action(async (shell: 'bash' | 'zsh' | 'fish', _options: unknown, command: Command) => {
      const { completionScript } = await import('../kit/completion-scripts.js');
      let root = command;
      while (root.parent) root = root.parent;
      ctx.io.stdout.write(completionScript(root, shell));
    });
}

/**
 * `ksctl __complete KIND [PREFIX]`: the names the completion scripts offer, one a line. Hidden:
 * shells call it, people do not. It never prompts, gives up quickly and prints nothing at all
 * when the names cannot be had (no context, the service away, a bad token).
 */
export function completeCommand(ctx: CommandContext): Command {
  return new Command('__complete')
    .description('names for the shell completion scripts')
    .addArgument(new Argument('<kind>', 'what to name').choices(NAME_KIND_WORDS))
    .argument('[prefix]', 'only names that start with this', '')
    .option('--marking <marking>', 'the marking whose values to name')
    .action(
      async (
        kind: 'marking' | 'value' | 'context' | 'profile',
        prefix: string,
        options: { marking?: string },
      ) => (await import('./complete-actions.js')).complete(ctx, kind, prefix, options.marking),
    );
}

import { Argument, Command } from 'commander';
import type { CommandContext } from '../context.js';

const SHELL_NAMES = ['bash', 'zsh', 'fish'];

export function completionCommand(ctx: CommandContext): Command {
  return new Command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELL_NAMES))
    .addHelpText(
      'after',
      '\nLoad it:\n  bash: source <(ksctl completion bash)      (or save it in ~/.local/share/bash-completion/completions/ksctl)\n  zsh:  source <(ksctl completion zsh)\n  fish: ksctl completion fish > ~/.config/fish/completions/ksctl.fish',
    )
    .action(async (shell: 'bash' | 'zsh' | 'fish', _options: unknown, command: Command) => {
      const { completionScript } = await import('../completion.js');
      let root = command;
      while (root.parent) root = root.parent;
      ctx.io.stdout.write(completionScript(root, shell));
    });
}

import { Command, Option } from 'commander';
import { OUTPUT_FORMATS } from '../output/render.js';
import { apiCommand } from './commands/api.js';
import { completeCommand, completionCommand } from './commands/completion.js';
import { contextCommand } from './commands/context.js';
import { demoCommand } from './commands/demo.js';
import { enrollCommand } from './commands/enroll.js';
import { keysCommand } from './commands/keys.js';
import { markingsCommand } from './commands/markings.js';
import { mockCommand } from './commands/mock.js';
import { profilesCommand } from './commands/profiles.js';
import { statusCommand } from './commands/status.js';
import type { CommandContext } from './context.js';
import { TIMEOUT_MAX_SECONDS } from '../config/timeout.js';
import { timeoutSeconds } from './options.js';
import { VERSION } from '../package-root.js';
import { helpCommand } from './help.js';

/** Applies settings that commander does not pass on to subcommands attached with addCommand. */
function configureTree(cmd: Command, ctx: CommandContext): void {
  cmd
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.stdout.write(text),
      writeErr: (text) => ctx.io.stderr.write(text),
    })
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(add --help for usage)')
    .showSuggestionAfterError(true);
  // The program has its own `help [command...]` (help.ts); groups keep commander's, worded alike.
  if (cmd.parent && cmd.commands.length > 0) {
    cmd.helpCommand('help [command]', 'show the help of a command');
  }
  for (const sub of cmd.commands) configureTree(sub, ctx);
}

/** A fresh program each time (never commander's global), so tests can build as many as they like. */
export function buildProgram(ctx: CommandContext): Command {
  const program = new Command('ksctl')
    .description(
      'Markings and Enrollment Service from the command line: markings, device enrollment, and a local mock of the service.',
    )
    .version(VERSION, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--context <name>', 'use this context instead of the current one (env KSCTL_CONTEXT)')
    .option('--base-url <url>', 'markings API base URL, {base_url} (env KSCTL_BASE_URL)')
    .option(
      '--token-file <path>',
      'read the bearer token from a file, or - for stdin (env KSCTL_TOKEN)',
    )
    .addOption(
      new Option('-o, --output <format>', 'output format (env KSCTL_OUTPUT)').choices(
        OUTPUT_FORMATS,
      ),
    )
    .option('--no-input', 'never prompt; fail when input is missing')
    .option('--debug', 'trace HTTP requests and answers on stderr, secrets redacted')
    .option(
      '--timeout <seconds>',
      `per-request timeout in seconds, 0.001 to ${TIMEOUT_MAX_SECONDS} (default 30; env KSCTL_TIMEOUT)`,
      timeoutSeconds,
    )
    .option('-q, --quiet', 'print only data, no messages')
    .option('--wide', 'show tables in full, however wide the terminal (cells are cut to fit)')
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 bug, 2 usage, 3 invalid input, 4 not authorized, 5 not found,\n6 conflict, 7 service unavailable, 10 apply plan has changes, 130 interrupted.',
    );
  program.hook('preAction', (_root, action) => {
    ctx.globals = action.optsWithGlobals();
  });
  program.addCommand(markingsCommand(ctx));
  program.addCommand(enrollCommand(ctx));
  program.addCommand(profilesCommand(ctx));
  program.addCommand(keysCommand(ctx));
  program.addCommand(contextCommand(ctx));
  program.addCommand(statusCommand(ctx));
  program.addCommand(mockCommand(ctx));
  program.addCommand(apiCommand(ctx));
  program.addCommand(completionCommand(ctx));
  program.addCommand(demoCommand(ctx));
  program.addCommand(completeCommand(ctx), { hidden: true });
  helpCommand(program);
  configureTree(program, ctx);
  return program;
}

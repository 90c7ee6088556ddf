/**
 * The program: every top-level command in help order, built on a fresh commander Command (never
 * the global one) with the settings commander does not pass on applied to the whole tree, and
 * the global options.
 */
import { Command, Help, Option } from 'commander';
import { messageWidth, proseWidth, reflow, wrapLines } from '../../common/text/wrap.js';
import { OUTPUT_FORMATS } from '../output/render.js';
import { apiCommand } from './commands/api.js';
import { completeCommand, completionCommand } from './commands/completion.js';
import { conformanceCommand } from './commands/conformance.js';
import { contextCommand } from './commands/context.js';
import { demoCommand } from './commands/demo.js';
import { enrollCommand } from './commands/enroll.js';
import { keysCommand } from './commands/keys.js';
import { markingsCommand } from './commands/markings.js';
import { mockCommand } from './commands/mock.js';
import { profilesCommand } from './commands/profiles.js';
import { statusCommand } from './commands/status.js';
import type { CommandContext } from './kit/command-context.js';
import { TIMEOUT_MAX_SECONDS } from '../config/timeout.js';
import { timeoutSeconds } from './kit/options.js';
import { VERSION } from '../../common/package-root.js';
import { examples, helpCommand, meantCommand, verbFirst } from './kit/help.js';
import { UsageError } from '../../common/errors.js';

/**
 * A command's help, and under a subcommand's the program's options by name only (`ksctl --help`
 * describes them): thirteen lines repeated on every page would bury the command's own.
 */
function helpWithGlobalOptions(this: Help, cmd: Command, helper: Help): string {
  const own = Help.prototype.formatHelp.call(this, cmd, helper);
  let root = cmd;
  while (root.parent) root = root.parent;
  if (root === cmd) return own;
  const flags = helper
    .visibleOptions(root)
    .filter((o) => o.long !== '--help' && o.long !== '--version')
    .map((o) => (o.short ? `${o.short}/${o.long}` : o.long));
  return `${own}\nGlobal options (ksctl --help describes them): ${flags.join(', ')}\n`;
}

/**
 * `--password x` is an unknown option because secrets never come from the command line (they
 * would show in `ps` and shell history): point at the flag that reads it from a file.
 */
function withSecretFlagHint(cmd: Command, text: string): string {
  const flag = /^error: unknown option '(--[\w-]+)/.exec(text)?.[1];
  if (flag === undefined) return text;
  for (let c: Command | null = cmd; c; c = c.parent) {
    if (c.options.some((o) => o.long === `${flag}-file`)) {
      return text.replace(
        /\n/,
        `\nhint: secrets are never taken on the command line; use ${flag}-file PATH (- reads standard input)\n`,
      );
    }
  }
  return text;
}

/**
 * `ksctl version` (as kubectl and gh have it) is the option `--version` here: an unknown command
 * that is the name of an option of the command it was given to suggests the option.
 */
function withOptionSuggestion(cmd: Command, text: string): string {
  const word = /^error: unknown command '([\w-]+)'/.exec(text)?.[1];
  if (word === undefined || /\(Did you mean/.test(text)) return text;
  const option = cmd.options.find((o) => o.long === `--${word}`);
  if (option === undefined) return text;
  return text.replace(/\n/, `\n(Did you mean ${option.long}?)\n`);
}

/**
 * An unknown command that commander found no near spelling for: a word from other tools
 * (`values remove` is `values delete`), or at the top a verb before its noun (`ksctl list
 * markings` is `ksctl markings list`).
 */
function withCommandSuggestion(cmd: Command, text: string, argv: readonly string[]): string {
  const word = /^error: unknown command '([^']+)'/.exec(text)?.[1];
  if (word === undefined) return text;
  const guessed = /\n\(Did you mean [^\n]*\)\n/;
  // `ksctl get markings x` is surely `ksctl markings get x`, whatever spelling is near `get`.
  const after = argv.slice(argv.indexOf(word) + 1).find((a) => !a.startsWith('-'));
  const inverted = cmd.parent === null ? verbFirst(cmd, word, after) : undefined;
  if (guessed.test(text) && inverted?.named !== true) return text;
  const meant = inverted?.named === true ? undefined : meantCommand(cmd, word);
  const lines = meant !== undefined ? [meant] : (inverted?.lines ?? []);
  if (lines.length === 0) return text;
  const suggestion = `\n(Did you mean ${lines.slice(0, 3).join(', or ')}?)\n`;
  return guessed.test(text) ? text.replace(guessed, suggestion) : text.replace(/\n/, suggestion);
}

/**
 * `--public --no-public` on one command line: which did the user mean? Commander takes the last;
 * a usage error is kinder than a guess.
 */
function contradictions(action: Command, args: readonly string[]): void {
  const given = (flag: string) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
  for (let c: Command | null = action; c; c = c.parent) {
    for (const negated of c.options.filter((o) => o.negate && o.long !== undefined)) {
      const positive = negated.long!.replace(/^--no-/, '--');
      const both =
        c.options.some((o) => o.long === positive) && given(positive) && given(negated.long!);
      if (both) {
        throw new UsageError(`${positive} and ${negated.long} contradict each other: give one`);
      }
    }
  }
}

/** Applies settings that commander does not pass on to subcommands attached with addCommand. */
function configureTree(cmd: Command, ctx: CommandContext, argv: readonly string[]): void {
  cmd
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    // Commander lays help out on one long line per item; it is wrapped to the terminal here, with
    // the notes commands add under their help.
    .configureOutput({
      writeOut: (text) => ctx.io.stdout.write(reflow(text, proseWidth(ctx.io.columns))),
      writeErr: (text) => {
        // Help on stderr (`ksctl` or `ksctl markings` alone, and the notes under it) is laid
        // out as on stdout; only commander's `error: …` lines are messages.
        if (!text.startsWith('error: ')) {
          ctx.io.stderr.write(reflow(text, proseWidth(ctx.io.columns)));
          return;
        }
        const said = withCommandSuggestion(
          cmd,
          withOptionSuggestion(cmd, withSecretFlagHint(cmd, text)),
          argv,
        );
        ctx.io.stderr.write(wrapLines(said, messageWidth(ctx.io)));
      },
    })
    .configureHelp({ helpWidth: 10_000, formatHelp: helpWithGlobalOptions })
    .showHelpAfterError('(add --help for usage)')
    .showSuggestionAfterError(true);
  // The program has its own `help [command...]` (help.ts); groups keep commander's, worded alike.
  if (cmd.parent && cmd.commands.length > 0) {
    cmd.helpCommand('help [command]', 'show the help of a command');
  }
  for (const sub of cmd.commands) configureTree(sub, ctx, argv);
}

/**
 * The top-level commands in the order of the help, with the names and aliases that select them on
 * a command line (test/unit/cli-program.test.ts checks these against the commands).
 */
export const COMMANDS: readonly {
  names: readonly string[];
  build: (ctx: CommandContext) => Command;
  hidden?: boolean;
  /** Reads the whole program (completion scripts and live completions): built with every command. */
  readsProgram?: boolean;
}[] = [
  { names: ['markings', 'marking'], build: markingsCommand },
  { names: ['enroll'], build: enrollCommand },
  { names: ['profiles', 'profile'], build: profilesCommand },
  { names: ['keys', 'key'], build: keysCommand },
  { names: ['context'], build: contextCommand },
  { names: ['status'], build: statusCommand },
  { names: ['mock'], build: mockCommand },
  { names: ['conformance'], build: conformanceCommand },
  { names: ['api'], build: apiCommand },
  { names: ['completion'], build: completionCommand, readsProgram: true },
  { names: ['demo'], build: demoCommand },
  { names: ['__complete'], build: completeCommand, hidden: true, readsProgram: true },
];

/**
 * The command word of a command line (`markings` in `ksctl -o json markings list`), skipping the
 * program's own options; undefined past an option the program does not know (commander then
 * reports it, with every command in place).
 */
function commandWord(program: Command, argv: readonly string[] | undefined): string | undefined {
  if (argv === undefined) return undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return argv[i + 1];
    if (!arg.startsWith('-') || arg === '-') return arg;
    const [flag] = arg.split('=', 1);
    const option = program.options.find((o) => o.long === flag || o.short === flag);
    if (option === undefined || option.optional) return undefined;
    if (option.required && !arg.includes('=')) i++;
  }
  return undefined;
}

/**
 * A fresh program each time (never commander's global), so tests can build as many as they like.
 * Given the command line, it builds only the command it names: building every command's options is
 * a few ms of each command's start-up. Without one (the program's help, `help`, an unknown
 * command), all of them.
 */
export function buildProgram(ctx: CommandContext, argv?: readonly string[]): Command {
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
    .option(
      '--ca-file <path>',
      "trust these CA certificates (PEM) instead of the system's (env KSCTL_CA_FILE; the mock context trusts the mock's CA by itself)",
    )
    .option('--no-input', 'never prompt; fail when input is missing')
    .option('--debug', 'trace HTTP requests and answers on stderr, secrets redacted')
    .option(
      '--timeout <seconds>',
      `per-request timeout in seconds, 0.001 to ${TIMEOUT_MAX_SECONDS} (default 30; env KSCTL_TIMEOUT)`,
      timeoutSeconds,
    )
    .option('-q, --quiet', 'print only data, no messages')
    .option(
      '--wide',
      'show tables with every column and every cell in full, however wide the terminal',
    )
    .option('--no-pager', 'print long tables directly, not through $PAGER (less -FRX)');
  examples(
    program,
    'ksctl demo                       # a guided tour on an embedded mock',
    'ksctl mock serve                 # a local mock; adds the "mock" context',
    'ksctl markings list',
    'ksctl markings apply -f markings.yaml --dry-run',
    'ksctl enroll --mock-user alice',
  );
  program.addHelpText(
    'after',
    '\nExit codes: 0 ok, 1 bug, 2 usage, 3 invalid input, 4 not authorized, 5 not found,\n6 conflict, 7 service unavailable, 10 apply plan has changes or conformance differs,\n130 interrupted.',
  );
  program.hook('preAction', (root, action) => {
    contradictions(action, argv ?? root.args);
    ctx.globals = action.optsWithGlobals();
  });
  const word = commandWord(program, argv);
  const named = COMMANDS.find((command) => word !== undefined && command.names.includes(word));
  const only = named?.readsProgram === true ? undefined : named;
  for (const command of COMMANDS) {
    if (only === undefined || command === only) {
      program.addCommand(command.build(ctx), { hidden: command.hidden === true });
    }
  }
  helpCommand(program);
  configureTree(program, ctx, argv ?? []);
  return program;
}

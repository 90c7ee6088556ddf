/**
 * `ksctl context`: the commander definitions of add, set, unset, rename, use, list, show and
 * remove, one function each; the work is in context-actions.ts, loaded when a command runs.
 */
import { Command, Option } from 'commander';
import { examples } from '../kit/help.js';
import type { CommandContext } from '../kit/command-context.js';
import { wrapList } from '../kit/filter-options.js';
import { CONTEXT_SETTINGS } from './context-keys.js';
import type { ContextAddOptions } from './context-actions.js';

const actions = () => import('./context-actions.js');

export function contextCommand(ctx: CommandContext): Command {
  const context = new Command('context').description(
    'named connections to a service (URL, credentials, enrollment and profile defaults)',
  );
  examples(context, 'ksctl context list', 'ksctl context use prod');

  context.addCommand(contextAddCommand(ctx));
  context.addCommand(contextSetCommand(ctx));
  context.addCommand(contextUnsetCommand(ctx));
  context.addCommand(contextRenameCommand(ctx));
  context.addCommand(contextUseCommand(ctx));
  context.addCommand(contextListCommand(ctx));
  context.addCommand(contextShowCommand(ctx));
  context.addCommand(contextRemoveCommand(ctx));

  return context;
}

function contextAddCommand(ctx: CommandContext): Command {
  return (
    new Command('add')
      .description('add a context (the first one becomes current)')
      .argument('<name>', 'context name')
      // The global --base-url, --token-file, --timeout and --ca-file are read here as the context's own
      // settings (a --timeout of its own would never see a value: the global one takes it).
      .option('--username <name>', 'basic authentication user (password from --password-file)')
      .option('--password-file <path>', 'basic authentication password file, or - for stdin')
      .option('--api-url <url>', 'enrollment API URL (scheme, host, port)')
      .option('--enrollment-url <url>', 'enrollment server URL (public key and portal)')
      .option('--kns-url <url>', 'key naming lookup URL, to discover the rest from a keyspace')
      .option('--keyspace <ks>', 'default keyspace for enrollment')
      .addOption(
        new Option('--persistor <kind>', 'default profile persistor').choices([
          'plaintext',
          'password',
          'aesgcm',
        ]),
      )
      .option('--persistor-path <path>', 'default profile file')
      .option('--use', 'make it the current context')
      .option(
        '--force',
        'replace a context of the same name as a whole (to change single settings: context set)',
      )
      .addHelpText(
        'after',
        '\nThe URL, the token, the request timeout and the CA file come from the global options\n--base-url, --token-file, --timeout and --ca-file.\n\nExamples:\n  ksctl context add prod --base-url https://api.example.com/v2/TENANT --token-file token.txt --timeout 60 --use\n  ksctl context add corp --base-url https://markings.corp.example/v2/TENANT --token-file token.txt --ca-file corp-ca.pem\n  ksctl context add lab --base-url http://127.0.0.1:8443/v2/dev --kns-url http://127.0.0.1:8443 --keyspace ABcd',
      )
      .action(async (name: string, options: ContextAddOptions) =>
        (await actions()).add(ctx, name, options),
      )
  );
}

function contextSetCommand(ctx: CommandContext): Command {
  return new Command('set')
    .description('change settings of a context, keeping the others')
    .argument('<context>', 'context name')
    .argument('<key-value...>', 'KEY VALUE pairs')
    .addHelpText(
      'after',
      `
Keys:
${wrapList(
  CONTEXT_SETTINGS.map((k) => k.key),
  80,
  '  ',
)}
Secrets are read from a file, never given on the command line: token-file PATH, password-file
PATH (- reads standard input). A token replaces a user and password, and the other way round.

Examples:
  ksctl context set mock timeout 60
  ksctl context set prod base-url https://api.example.com/v2/TENANT token-file token.txt
  ksctl context set qa keyspace ABcd persistor password persistor-path ./qa.pw`,
    )
    .action(async (name: string, pairs: string[]) => (await actions()).set(ctx, name, pairs));
}

function contextUnsetCommand(ctx: CommandContext): Command {
  return new Command('unset')
    .description('remove settings of a context')
    .argument('<context>', 'context name')
    .argument('<key...>', 'setting names (token and password name the stored secrets)')
    .addHelpText(
      'after',
      `
Keys:
${wrapList(
  CONTEXT_SETTINGS.map((k) => k.alias ?? k.key),
  80,
  '  ',
)}
Unsetting username or password removes both.

Examples:
  ksctl context unset mock timeout
  ksctl context unset qa persistor persistor-path`,
    )
    .action(async (name: string, keys: string[]) => (await actions()).unset(ctx, name, keys));
}

function contextRenameCommand(ctx: CommandContext): Command {
  return new Command('rename')
    .description('rename a context (the current context follows)')
    .argument('<context>', 'context name')
    .argument('<new>', 'new name')
    .addHelpText('after', '\nExamples:\n  ksctl context rename mock mock-old')
    .action(async (from: string, to: string) => (await actions()).rename(ctx, from, to));
}

function contextUseCommand(ctx: CommandContext): Command {
  return new Command('use')
    .description('make a context the current one')
    .argument('<context>', 'context name')
    .addHelpText('after', '\nExamples:\n  ksctl context use prod')
    .action(async (name: string) => (await actions()).use(ctx, name));
}

function contextListCommand(ctx: CommandContext): Command {
  return new Command('list')
    .alias('ls')
    .description('list contexts; * marks the current one')
    .addHelpText('after', '\nExamples:\n  ksctl context list\n  ksctl context list -o json')
    .action(async () => (await actions()).list(ctx));
}

function contextShowCommand(ctx: CommandContext): Command {
  return new Command('show')
    .description('show a context (the current one by default); secrets are never shown')
    .argument('[context]', 'context name')
    .addHelpText('after', '\nExamples:\n  ksctl context show\n  ksctl context show prod -o yaml')
    .action(async (name: string | undefined) => (await actions()).show(ctx, name));
}

function contextRemoveCommand(ctx: CommandContext): Command {
  return new Command('remove')
    .alias('rm')
    .description('remove a context and the credentials stored with it')
    .argument('<context>', 'context name')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', '\nExamples:\n  ksctl context remove staging --yes')
    .action(async (name: string, options: { yes?: boolean }) =>
      (await actions()).remove(ctx, name, options.yes),
    );
}

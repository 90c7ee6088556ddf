import { Command, Option } from 'commander';
import { examples } from '../kit/help.js';
import type { CommandContext } from '../kit/command-context.js';
import { apiVersionOption } from '../kit/options.js';
import { addPersistorOptions, type PersistorOptionValues } from '../kit/persistor-flags.js';
import type {
  CheckOptions,
  ConvertOptions,
  DeleteOptions,
  ShowOptions,
} from './profiles-actions.js';

const actions = () => import('./profiles-actions.js');

export function profilesCommand(ctx: CommandContext): Command {
  const profiles = new Command('profiles')
    .alias('profile')
    .description('the enrolled device profiles in an Ionic SDK profile file');
  examples(profiles, 'ksctl profiles list', 'ksctl profiles use laptop');

  addPersistorOptions(
    examples(
      profiles
        .command('list')
        .alias('ls')
        .description('list the profiles; the active one is marked'),
      'ksctl profiles list',
      'ksctl profiles list --persistor password --persistor-path ~/.ionicsecurity/profiles.pw -o json',
    ),
  ).action(async (options: PersistorOptionValues) => (await actions()).list(ctx, options));

  addPersistorOptions(
    examples(
      profiles
        .command('show')
        .description('show one profile, by device id or name; keys only with --show-secrets')
        .argument('<profile>', 'device id or name')
        .option('--show-secrets', 'print the two SEP keys in hex'),
      'ksctl profiles show laptop',
      'ksctl profiles show laptop -o json',
    ),
  ).action(async (ref: string, options: ShowOptions) => (await actions()).show(ctx, ref, options));

  addPersistorOptions(
    examples(
      profiles
        .command('use')
        .description('make a profile the active one (the one SDK applications use)')
        .argument('<profile>', 'device id or name'),
      'ksctl profiles use laptop',
      'ksctl profiles use ABcd.1.6f3e2a --persistor-path ./profiles.pt',
    ),
  ).action(async (ref: string, options: PersistorOptionValues) =>
    (await actions()).use(ctx, ref, options),
  );

  addPersistorOptions(
    examples(
      profiles
        .command('delete')
        .alias('rm')
        .description('delete a profile (its device stays enrolled on the service)')
        .argument('<profile>', 'device id or name')
        .option('-y, --yes', 'do not ask for confirmation'),
      'ksctl profiles delete old-laptop',
      'ksctl profiles delete old-laptop --persistor-path ./profiles.pt --yes',
    ),
  ).action(async (ref: string, options: DeleteOptions) =>
    (await actions()).remove(ctx, ref, options),
  );

  examples(
    addPersistorOptions(
      profiles
        .command('convert')
        .description('copy every profile into a file of another persistor')
        .addOption(
          new Option('--to-persistor <kind>', 'format of the new file')
            .choices(['plaintext', 'password', 'aesgcm'])
            .makeOptionMandatory(),
        )
        .requiredOption('--to-path <path>', 'the new file')
        .option('--to-password-file <path>', 'password of the new file, or - for stdin')
        .addOption(
          new Option('--to-persistor-version <version>', 'password format to write').choices([
            '1.0',
            '1.1',
          ]),
        )
        .option('--to-aesgcm-key-file <path>', 'key of the new aesgcm file, or - for stdin')
        .option('--to-aesgcm-adata <text>', 'additional authenticated data of the new aesgcm file')
        .option('--force', 'replace a target file that has content'),
    ),
    'ksctl profiles convert --to-persistor password --to-path ~/.ionicsecurity/profiles.pw --to-password-file pw.txt',
    'ksctl profiles convert --persistor-path ./profiles.pt --to-persistor plaintext --to-path ./copy.pt --force',
  ).action(async (options: ConvertOptions) => (await actions()).convert(ctx, options));

  addPersistorOptions(
    apiVersionOption(profiles.command('check'))
      .description(
        'prove a profile works: create one key with it and fetch it back (default: the active profile)',
      )
      .argument('[profile]', 'device id or name')
      .addHelpText(
        'after',
        '\nExamples:\n  ksctl profiles check\n  ksctl profiles check laptop --persistor-path ./profiles.pt\n  ksctl profiles check --api-version 2.3',
      ),
  ).action(async (ref: string | undefined, options: CheckOptions) =>
    (await actions()).check(ctx, ref, options),
  );

  return profiles;
}

import { Command } from 'commander';
import { examples } from '../kit/help.js';
import type { CommandContext } from '../kit/command-context.js';
import { apiVersionOption, collect, wholeNumberFrom } from '../kit/options.js';
import { addPersistorOptions } from '../kit/persistor-flags.js';
import type { CreateOptions, FetchOptions, ModifyOptions } from './keys-actions.js';

const actions = () => import('./keys-actions.js');

/** Keys per create: the mock's bound, and more than any test needs. */
const MAX_COUNT = 1000;

function deviceOptions(cmd: Command): Command {
  return addPersistorOptions(
    apiVersionOption(
      cmd
        .option(
          '--profile <profile>',
          'device id or name of the profile to use (default: the active one)',
        )
        .option('--show-secrets', 'print the data keys in hex'),
    ),
  );
}

export function keysCommand(ctx: CommandContext): Command {
  const keys = new Command('keys')
    .alias('key')
    .description('create, fetch and modify data keys as an enrolled device (its stored profile)');
  examples(keys, 'ksctl keys create --count 2', 'ksctl keys fetch KEY_ID -o json');

  deviceOptions(
    keys
      .command('create')
      .description('create data keys; attributes named like a marking must carry its values')
      .option('--ref <ref>', 'the ref the keys are created under (default ksctl)')
      .option(
        '--count <n>',
        `how many keys (1 to ${MAX_COUNT}, default 1)`,
        wholeNumberFrom(1, MAX_COUNT),
      )
      .option('--attr <name=value>', 'an attribute; repeat for more values or attributes', collect)
      .option(
        '--protected-attr <name=value>',
        'an attribute encrypted before it leaves this machine (ionic-protected-NAME); repeatable',
        collect,
      )
      .option(
        '--mutable-attr <name=value>',
        'a mutable attribute the keys start with (keys modify changes these); repeatable',
        collect,
      )
      .addHelpText(
        'after',
        '\nExamples:\n  ksctl keys create --attr classification=internal\n  ksctl keys create --ref invoices --count 3 --attr region=eu --protected-attr owner=alice -o json\n  ksctl keys create --profile laptop --show-secrets',
      ),
  ).action(async (options: CreateOptions) => (await actions()).create(ctx, options));

  deviceOptions(
    keys
      .command('fetch')
      .alias('get')
      .description('fetch keys by id, with their attributes')
      .argument('<id...>', 'key ids')
      .addHelpText(
        'after',
        '\nExamples:\n  ksctl keys fetch ABcdx7Rk2Qp\n  ksctl keys fetch ABcdx7Rk2Qp ABcdM3n8Wq1 -o yaml',
      ),
  ).action(async (ids: string[], options: FetchOptions) =>
    (await actions()).fetch(ctx, ids, options),
  );

  deviceOptions(
    keys
      .command('modify')
      .description("replace a key's mutable attributes (marking values are checked as on create)")
      .argument('<id>', 'key id')
      .option(
        '--attr <name=value>',
        'a mutable attribute; repeat for more values or attributes',
        collect,
      )
      .option(
        '--protected-attr <name=value>',
        'a mutable attribute encrypted on this machine; repeatable',
        collect,
      )
      .option('--clear', 'remove every mutable attribute (asks first)')
      .option('-y, --yes', 'do not ask for confirmation (--clear)')
      .option(
        '--force',
        'replace the mutable attributes as they are now, even if the key changed since ksctl fetched it',
      )
      .addHelpText(
        'after',
        '\nExamples:\n  ksctl keys modify ABcdx7Rk2Qp --attr stage=review\n  ksctl keys modify ABcdx7Rk2Qp --clear --yes',
      ),
  ).action(async (id: string, options: ModifyOptions) =>
    (await actions()).modify(ctx, id, options),
  );

  return keys;
}

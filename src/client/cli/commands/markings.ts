import { Command, Option } from 'commander';
import { examples } from '../kit/help.js';
import { MARKING_FILTER_FIELDS } from '../../../common/markings/filters.js';
import type { CommandContext } from '../kit/command-context.js';
import { repeatable, withFilterOptions } from '../kit/filter-options.js';
import { collect, positiveWholeNumber, wholeNumber } from '../kit/options.js';
import { applyCommand, exportCommand } from './apply.js';
import { valuesCommand } from './values.js';
import type {
  ListOptions,
  GetOptions,
  CreateOptions,
  UpdateOptions,
  DeleteOptions,
} from './markings-actions.js';

const actions = () => import('./markings-actions.js');

export function markingsCommand(ctx: CommandContext): Command {
  const markings = new Command('markings')
    .alias('marking')
    .description('list, inspect, create, update and delete markings and their values')
    .hook('preAction', () => ctx.preloadMarkings());
  examples(
    markings,
    'ksctl markings list',
    'ksctl markings get classification',
    'ksctl markings apply -f examples/markings.yaml --dry-run',
  );

  const list = markings
    .command('list')
    .alias('ls')
    .description('list markings, ordered by name')
    .option('--name <name>', 'only the marking with exactly this name', repeatable)
    .option('--contains <text>', 'only markings whose name contains the text', repeatable)
    .option('--starts-with <text>', 'only markings whose name starts with the text', repeatable)
    .addOption(new Option('--public', 'only public markings'))
    .addOption(new Option('--no-public', 'only markings that are not public'))
    .option(
      '--value-limit <n>',
      'values per marking in json/yaml output (0 leaves them out: fastest); tables never fetch values',
      wholeNumber,
    )
    .option('--limit <n>', 'at most this many markings', positiveWholeNumber)
    .addHelpText(
      'after',
      '\nExamples:\n  ksctl markings list --starts-with geo-\n  ksctl markings list -o json --value-limit 0',
    );
  withFilterOptions(list, MARKING_FILTER_FIELDS).action(async (options: ListOptions) =>
    (await actions()).list(ctx, options),
  );

  markings
    .command('get')
    .description('show one marking, named by id or name')
    .argument('<marking>', 'marking id or name')
    .option('--value-limit <n>', 'at most this many values (0 leaves them out)', wholeNumber)
    .addHelpText(
      'after',
      '\nExamples:\n  ksctl markings get classification\n  ksctl markings get classification -o yaml --value-limit 0',
    )
    .action(async (marking: string, options: GetOptions) =>
      (await actions()).get(ctx, marking, options),
    );

  markings
    .command('create')
    .description('create a marking')
    .argument('[name]', 'name of the new marking (or the name in --file)')
    .option('--value <name[=description]>', 'a value; repeat for more', collect)
    .option('--description <text>', 'what the marking is for')
    .option('--public', 'make the marking public')
    .option('--admin-only', 'only admins may apply it')
    .option('--default-value <name>', 'the value used when none is given')
    .option('-f, --file <path>', 'a marking document (YAML or JSON, - for stdin)')
    .addHelpText(
      'after',
      '\nExamples:\n  ksctl markings create classification --value public --value internal="Staff only" --default-value internal\n  ksctl markings create -f classification.yaml',
    )
    .action(async (name: string | undefined, options: CreateOptions) =>
      (await actions()).create(ctx, name, options),
    );

  markings
    .command('update')
    .description('change a marking: fields, single values, or its complete set of values')
    .argument('<marking>', 'marking id or name')
    .option('--rename <name>', 'new name')
    .option('--description <text>', 'new description')
    .addOption(new Option('--public', 'make it public'))
    .addOption(new Option('--no-public', 'make it not public'))
    .addOption(new Option('--admin-only', 'only admins may apply it'))
    .addOption(new Option('--no-admin-only', 'anyone may apply it'))
    .option('--default-value <name>', 'new default value')
    .option('--no-default-value', 'clear the default value')
    .option('--add-value <name[=description]>', 'add a value; repeat for more', collect)
    .option('--remove-value <name>', 'remove a value; repeat for more', collect)
    .option(
      '--set-values <name[=description]>',
      'the complete set of values (others are removed); repeat for each value',
      collect,
    )
    .option('-f, --file <path>', 'a marking document with the new state (- for stdin)')
    .option('-y, --yes', 'do not ask before removing values (needed off a terminal)')
    .addHelpText(
      'after',
      '\n--add-value and --remove-value use the value operations, so values others add meanwhile are\nkept. --set-values and --file send the complete set with If-Match and retry on a conflict.\nEverything is checked before the first request; removing values asks first (or needs --yes).\nEach value flag takes one value: repeat the flag (a comma is refused; \\, is a comma in a name).\n\nExamples:\n  ksctl markings update classification --description "Data classification level"\n  ksctl markings update classification --add-value secret --remove-value public --yes\n  ksctl markings update classification --set-values public --set-values internal --yes',
    )
    .action(async (marking: string, options: UpdateOptions) =>
      (await actions()).update(ctx, marking, options),
    );

  markings
    .command('delete')
    .alias('rm')
    .description('delete markings with all their values')
    .argument('<marking...>', 'marking ids or names')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--if-version <n>', 'only if the marking is still at this version', positiveWholeNumber)
    .addHelpText(
      'after',
      '\nExamples:\n  ksctl markings delete classification --yes\n  ksctl markings delete region --if-version 3 --yes',
    )
    .action(async (names: string[], options: DeleteOptions) =>
      (await actions()).remove(ctx, names, options),
    );

  markings.addCommand(applyCommand(ctx));
  markings.addCommand(exportCommand(ctx));
  markings.addCommand(valuesCommand(ctx));
  return markings;
}

import { Command } from 'commander';
import { examples } from '../kit/help.js';
import { VALUE_FILTER_FIELDS } from '../../../common/markings/filters.js';
import type { CommandContext } from '../kit/command-context.js';
import { repeatable, withFilterOptions } from '../kit/filter-options.js';
import { positiveWholeNumber } from '../kit/options.js';
import type {
  ValuesListOptions,
  ValuesAddOptions,
  ValuesUpdateOptions,
  ValuesDeleteOptions,
} from './values-actions.js';

const actions = () => import('./values-actions.js');

export function valuesCommand(ctx: CommandContext): Command {
  const values = new Command('values')
    .alias('value')
    .description("a marking's values, one at a time (cheap for markings with many values)");
  examples(
    values,
    'ksctl markings values list classification',
    'ksctl markings values add classification secret="Only for named people"',
  );

  const list = values
    .command('list')
    .alias('ls')
    .description("list a marking's values, ordered by name")
    .argument('<marking>', 'marking id or name')
    .option('--name <name>', 'only the value with exactly this name', repeatable)
    .option('--contains <text>', 'only values whose name contains the text', repeatable)
    .option('--limit <n>', 'at most this many values', positiveWholeNumber);
  examples(
    list,
    'ksctl markings values list classification',
    'ksctl markings values list classification --contains pub --limit 10 -o json',
  );
  withFilterOptions(list, VALUE_FILTER_FIELDS).action(
    async (marking: string, options: ValuesListOptions) =>
      (await actions()).list(ctx, marking, options),
  );

  examples(
    values
      .command('get')
      .description('show one value')
      .argument('<marking>', 'marking id or name')
      .argument('<value>', 'value id or name'),
    'ksctl markings values get classification public',
    'ksctl markings values get classification public -o json',
  ).action(async (marking: string, value: string) => (await actions()).get(ctx, marking, value));

  examples(
    values
      .command('add')
      .description('add values to a marking')
      .argument('<marking>', 'marking id or name')
      .argument('<value...>', 'NAME or NAME=DESCRIPTION; several may be given')
      .option('--description <text>', 'description for values given without one'),
    'ksctl markings values add classification secret="Only for named people"',
    'ksctl markings values add classification red green --description "a colour"',
  ).action(async (marking: string, names: string[], options: ValuesAddOptions) =>
    (await actions()).add(ctx, marking, names, options),
  );

  examples(
    values
      .command('update')
      .description('rename a value or change its description')
      .argument('<marking>', 'marking id or name')
      .argument('<value>', 'value id or name')
      .option('--rename <name>', 'new name')
      .option('--description <text>', 'new description'),
    'ksctl markings values update classification internal --description "Staff only"',
    'ksctl markings values update classification internal --rename restricted',
  ).action(async (marking: string, value: string, options: ValuesUpdateOptions) =>
    (await actions()).update(ctx, marking, value, options),
  );

  examples(
    values
      .command('delete')
      .alias('rm')
      .description('delete values from a marking')
      .argument('<marking>', 'marking id or name')
      .argument('<value...>', 'value ids or names')
      .option('-y, --yes', 'do not ask for confirmation'),
    'ksctl markings values delete classification secret',
    'ksctl markings values delete classification red green --yes',
  ).action(async (marking: string, refs: string[], options: ValuesDeleteOptions) =>
    (await actions()).remove(ctx, marking, refs, options),
  );

  return values;
}

import { Command, Option } from 'commander';
import { examples } from '../kit/help.js';
import { UsageError } from '../../../common/errors.js';
import { MARKING_FILTER_FIELDS } from '../../../common/markings/filters.js';
import type { CommandContext } from '../kit/command-context.js';
import { repeatable, withFilterOptions } from '../kit/filter-options.js';
import { collect, positiveWholeNumber } from '../kit/options.js';
import type { ApplyOptions, ExportOptions } from './apply-actions.js';

const actions = () => import('./apply-actions.js');

const CONCURRENCY_HELP = 'requests in flight at once (default 4)';

/** `ksctl markings apply`: create or update markings from YAML/JSON files (docs/design.md 5.1). */
export function applyCommand(ctx: CommandContext): Command {
  return new Command('apply')
    .description('create or update markings from YAML or JSON files: show the plan, then apply it')
    .option(
      '-f, --file <path>',
      'a markings file, a directory of them, or - for stdin; repeat for more',
      collect,
    )
    .option('--dry-run', 'show the plan and stop; nothing is changed')
    .option('--exit-code', 'with --dry-run: exit 10 when the plan has changes')
    .option('--prune', 'also delete markings that no file lists')
    .option(
      '-y, --yes',
      'do not ask before removing values or deleting markings (needed off a terminal)',
    )
    .option('--concurrency <n>', CONCURRENCY_HELP, positiveWholeNumber)
    .option(
      '--verbose',
      'list every change of a long plan (on a terminal it is summed up per kind)',
    )
    .addHelpText(
      'after',
      `
A listed marking's values are its complete set; a marking without values keeps its values.
Markings not in the files are left alone unless --prune. Running apply again sends no writes.
-o json prints the plan (--dry-run) or the run report as JSON on stdout.
Files (and stdin) hold at most 64 MiB, each and together; KSCTL_MAX_INPUT_MIB raises it. YAML
takes about 100 times its size in memory to read: give very large files as JSON.

Examples:
  ksctl markings apply -f markings.yaml --dry-run
  ksctl markings apply -f markings/ --prune --yes
  ksctl markings export | ksctl markings apply -f - --dry-run --exit-code`,
    )
    .action(async (options: ApplyOptions) => (await actions()).apply(ctx, options));
}

/** `ksctl markings export`: the markings in the file format that apply reads. */
export function exportCommand(ctx: CommandContext): Command {
  const command = new Command('export')
    .description('write markings with their values in the format apply reads (YAML unless -o json)')
    .option('--file <path>', 'write to this file instead of stdout')
    .option('--force', 'replace a --file that has content')
    .option('--name <name>', 'only the marking with exactly this name', repeatable)
    .option('--contains <text>', 'only markings whose name contains the text', repeatable)
    .option('--starts-with <text>', 'only markings whose name starts with the text', repeatable)
    .addOption(new Option('--public', 'only public markings'))
    .addOption(new Option('--no-public', 'only markings that are not public'))
    .option('--concurrency <n>', CONCURRENCY_HELP, positiveWholeNumber);
  withFilterOptions(command, MARKING_FILTER_FIELDS)
    .hook('preAction', () => {
      // A table is the global default; asked for by name, it is a format export cannot write.
      if (ctx.globals.output === 'table') {
        throw new UsageError('markings export writes yaml or json, not a table', {
          hint: 'pass -o yaml (the default) or -o json',
        });
      }
    })
    .addHelpText(
      'after',
      '\nMarkings and values are sorted by name and defaults are left out, so exports diff cleanly;\n`ksctl markings apply` of an export changes nothing.',
    );
  return examples(
    command,
    'ksctl markings export > markings.yaml',
    'ksctl markings export --starts-with project- -o json --file projects.json --force',
  ).action(async (options: ExportOptions) => (await actions()).exportFile(ctx, options));
}

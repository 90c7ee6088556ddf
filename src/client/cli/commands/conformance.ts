import { Command } from 'commander';
import type { CommandContext } from '../kit/command-context.js';
import { examples } from '../kit/help.js';
import type { ConformanceCommandOptions } from './conformance-actions.js';

/** `ksctl conformance`: is the mock still like the service in use (or like a recording)? */
export function conformanceCommand(ctx: CommandContext): Command {
  const conformance = new Command('conformance')
    .description(
      'check the embedded mock against the service in use: the same requests, the answers compared',
    )
    .option(
      '--write',
      'also run the scenarios that create, change and delete markings (only its own, removed at the end)',
    )
    .option('-y, --yes', 'with --write: do not ask for confirmation')
    .option('--junit <file>', 'also write the report as JUnit XML to this file, for CI')
    .option(
      '--replay <file>',
      'compare the mock with a recording (ksctl mock record --out) instead of the service',
    )
    .option(
      '--seed <file>',
      'with --replay: start the mock from this seed, not from what the recording read first',
    )
    .addHelpText(
      'after',
      '\nRead-only by default: GETs on the markings the service holds, copied into a fresh mock.\n--write adds the scenarios that change state, on markings named ksctl-conformance-<random>-*,\ndeleted at the end (also on a failure and Ctrl-C). Ids, timestamps, conversation ids, versions\nand message wording are never compared: the report prints its legend.\n\nExit codes: 0 nothing differs, 10 a scenario differs, 4 credentials refused, 7 service unreachable.',
    )
    .action(async (options: ConformanceCommandOptions) =>
      (await import('./conformance-actions.js')).conformance(ctx, options),
    );
  return examples(
    conformance,
    'ksctl conformance',
    'ksctl conformance --context prod --junit conformance.xml',
    'ksctl conformance --write --yes -o json',
    'ksctl conformance --replay recording.json',
  );
}

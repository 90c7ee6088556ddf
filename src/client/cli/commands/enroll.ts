import { Command } from 'commander';
import type { CommandContext } from '../kit/command-context.js';
import { positiveWholeNumber, wholeNumberFrom } from '../kit/options.js';
import { addPersistorOptions } from '../kit/persistor-flags.js';
import {
  checkCombinations,
  type DeviceKeysAhead,
  type EnrollOptions,
  isBulk,
} from './enroll-options.js';

const actions = () => import('./enroll-actions.js');

/** Test devices per run: enough for any load test, and a typo cannot spend a million token pairs. */
const MAX_COUNT = 10_000;

export function enrollCommand(ctx: CommandContext): Command {
  const enroll = new Command('enroll')
    .description(
      'enroll a device (or --count N test devices) and store its profile where the Ionic SDKs read it',
    )
    .option('--keyspace <ks>', 'keyspace to enroll into (env KSCTL_KEYSPACE)')
    .option('--api-url <url>', 'API URL of the register endpoint (env KSCTL_API_URL)')
    .option(
      '--enrollment-url <url>',
      'enrollment server: key server public key and portal (env KSCTL_ENROLLMENT_URL)',
    )
    .option(
      '--kns-url <url>',
      'key naming lookup, to find the URLs from the keyspace (env KSCTL_KNS_URL)',
    )
    .option('--stoken-file <path>', 'STOKEN from a file, or - for stdin (env KSCTL_STOKEN)')
    .option('--uidauth-file <path>', 'UIDAUTH from a file, or - for stdin (env KSCTL_UIDAUTH)')
    .option('--username <name>', 'sign in to the enrollment portal with a user name')
    .option(
      '--password-file <path>',
      'portal password from a file, or - for stdin (env KSCTL_PORTAL_PASSWORD)',
    )
    .option('--email <address>', 'sign in to the portal by e-mail; a registration code is sent')
    .option(
      '--registration-code-file <path>',
      'the e-mailed registration code from a file, or - for stdin (asked for on a terminal)',
    )
    .option(
      '--mock-user <name>',
      'take fresh token pairs for this user from a ksctl mock (needs its dev token)',
    )
    .option(
      '--tokens-file <path>',
      'bulk: one "STOKEN UIDAUTH" pair per line (white space or comma), or - for stdin',
    )
    .option(
      '--name <name>',
      'profile name, one line of printable text up to 128 characters (bulk: NAME-1, NAME-2, …)',
    )
    .option('--no-set-active', 'do not make the new profile the active one')
    .option(
      '--count <n>',
      `enroll N test devices (at most ${MAX_COUNT}), each with its own token pair`,
      wholeNumberFrom(1, MAX_COUNT),
    )
    .option(
      '--concurrency <c>',
      'bulk: enrollments at once (default: the number of cores, at most 4)',
      positiveWholeNumber,
    )
    .option(
      '--verify',
      'prove each new profile works: create one key with it and fetch it back (default with --count)',
    )
    .option('--no-verify', 'with --count: do not check the new profiles');
  addPersistorOptions(enroll).addHelpText(
    'after',
    `
Token pairs: --stoken-file/--uidauth-file or KSCTL_STOKEN/KSCTL_UIDAUTH; a portal sign-in with
--username and --password-file, or --email then the registration code; --mock-user for a ksctl
mock; --tokens-file for bulk. On a terminal, whatever is missing is asked for (secrets unechoed).

Examples:
  eval "$(ksctl mock tokens --user alice)" && ksctl enroll --name laptop
  ksctl enroll --keyspace ABcd --kns-url https://api.example.com --username alice --password-file pw.txt
  ksctl enroll --count 20 --concurrency 2 --mock-user alice --persistor-path ./profiles.pt
  ksctl enroll --mock-user alice --name laptop --verify

Bulk exit code: 0 when every device enrolled, else the most common exit code of the failures.`,
  );
  return enroll.action(async (options: EnrollOptions) => {
    // A usage error answers at once, without waiting for a prime search to end.
    checkCombinations(options, isBulk(options));
    // The RSA-3072 key pairs take the longest: start them before loading the rest, which then
    // happens meanwhile, as do the lookups, the sign-in and the key server key. A bulk run whose
    // number of devices comes from its tokens file starts them once the file is read.
    const keys: DeviceKeysAhead = {};
    if (!isBulk(options)) {
      const { deviceKeySource, searchSlots } = await import('../../enroll/device-keys.js');
      keys.single = deviceKeySource.generate({ searchesAtOnce: Math.min(2, searchSlots()) });
      keys.single.catch(() => undefined);
    } else if (options.count !== undefined) {
      const { bulkKeySupply } = await import('../../enroll/device-keys.js');
      keys.many = bulkKeySupply(options.count, options.concurrency);
    }
    try {
      return await (await actions()).enroll(ctx, options, keys);
    } finally {
      // Whatever failed before the run took them: no more searches start.
      keys.many?.stop();
    }
  });
}

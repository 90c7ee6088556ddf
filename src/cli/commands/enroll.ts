import { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { DeviceKeyPair } from '../../enroll/protocol.js';
import type { CommandContext } from '../context.js';
import { positiveWholeNumber, wholeNumberFrom } from '../options.js';
import { addPersistorOptions, type PersistorOptionValues } from '../persistor-flags.js';

const actions = () => import('./enroll-actions.js');

/** Test devices per run: enough for any load test, and a typo cannot spend a million token pairs. */
const MAX_COUNT = 10_000;

export interface EnrollOptions extends PersistorOptionValues {
  keyspace?: string;
  apiUrl?: string;
  enrollmentUrl?: string;
  knsUrl?: string;
  stokenFile?: string;
  uidauthFile?: string;
  username?: string;
  passwordFile?: string;
  email?: string;
  registrationCodeFile?: string;
  mockUser?: string;
  tokensFile?: string;
  name?: string;
  setActive: boolean;
  count?: number;
  concurrency?: number;
  /** Create and fetch a key with each new profile: default for --count, --no-verify skips. */
  verify?: boolean;
}

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
    // The RSA-3072 key pair takes the longest: start it before loading the rest, which then
    // happens meanwhile, as do the lookups, the sign-in and the key server key.
    let deviceKeys: Promise<DeviceKeyPair> | undefined;
    if (!isBulk(options)) {
      const { deviceKeySource, searchSlots } = await import('../../enroll/device-keys.js');
      deviceKeys = deviceKeySource.generate({ searchesAtOnce: Math.min(2, searchSlots()) });
      deviceKeys.catch(() => undefined);
    }
    return (await actions()).enroll(ctx, options, deviceKeys);
  });
}

/** --count or --tokens-file: test devices in bulk. */
export function isBulk(o: EnrollOptions): boolean {
  return o.count !== undefined || o.tokensFile !== undefined;
}

/** Flags that cannot go together, or that need another: checked before anything starts. */
export function checkCombinations(o: EnrollOptions, bulk: boolean): void {
  const methods = [
    o.stokenFile !== undefined || o.uidauthFile !== undefined ? '--stoken-file/--uidauth-file' : '',
    o.username !== undefined ? '--username' : '',
    o.email !== undefined ? '--email' : '',
    o.mockUser !== undefined ? '--mock-user' : '',
    o.tokensFile !== undefined ? '--tokens-file' : '',
  ].filter((m) => m !== '');
  if (methods.length > 1) {
    throw new UsageError(`choose one source of token pairs, not ${methods.join(' and ')}`);
  }
  if (o.passwordFile !== undefined && o.username === undefined) {
    throw new UsageError('--password-file goes with --username');
  }
  if (o.registrationCodeFile !== undefined && o.email === undefined) {
    throw new UsageError('--registration-code-file goes with --email');
  }
  const fromStdin = [
    o.stokenFile,
    o.uidauthFile,
    o.passwordFile,
    o.registrationCodeFile,
    o.tokensFile,
    o.persistorPasswordFile,
    o.persistorAesgcmKeyFile,
  ].filter((path) => path === '-');
  if (fromStdin.length > 1) throw new UsageError('only one input can be read from stdin (-)');
  if (bulk && (methods[0] === '--stoken-file/--uidauth-file' || o.email !== undefined)) {
    throw new UsageError(`${methods[0]} gives one token pair, and each device needs its own`, {
      hint: 'for --count use --tokens-file, --username with --password-file, or --mock-user',
    });
  }
  if (bulk && methods.length === 0) {
    throw new UsageError('--count needs a token pair for each device', {
      hint: 'pass --tokens-file, --username with --password-file, or --mock-user NAME (for a ksctl mock)',
    });
  }
}

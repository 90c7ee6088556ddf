/**
 * The options of `ksctl enroll` and the checks on them that need nothing else loaded: the command
 * runs them before anything starts, the actions read the same type.
 */
import { UsageError } from '../../../common/errors.js';
import type { EnrollmentFlags } from '../../config/enrollment.js';
import type { KeyPairSupply } from '../../enroll/device-keys.js';
import type { DeviceKeyPair } from '../../enroll/protocol.js';
import type { PersistorOptionValues } from '../kit/persistor-flags.js';

/** The enrollment's own settings (config/enrollment.ts) and what the command adds. */
export interface EnrollOptions extends PersistorOptionValues, EnrollmentFlags {
  setActive: boolean;
  count?: number;
  concurrency?: number;
  /** Create and fetch a key with each new profile: default for --count, --no-verify skips. */
  verify?: boolean;
}

/** The device key pairs the command started before it loaded the actions. */
export interface DeviceKeysAhead {
  /** One enrollment's key pair. */
  single?: Promise<DeviceKeyPair>;
  /** A bulk run's, for its --count devices. */
  many?: KeyPairSupply;
}

/** --count or --tokens-file: test devices in bulk. */
export function isBulk(options: EnrollOptions): boolean {
  return options.count !== undefined || options.tokensFile !== undefined;
}

/** Flags that cannot go together, or that need another: checked before anything starts. */
export function checkCombinations(options: EnrollOptions, bulk: boolean): void {
  const methods = [
    options.stokenFile !== undefined || options.uidauthFile !== undefined
      ? '--stoken-file/--uidauth-file'
      : '',
    options.username !== undefined ? '--username' : '',
    options.email !== undefined ? '--email' : '',
    options.mockUser !== undefined ? '--mock-user' : '',
    options.tokensFile !== undefined ? '--tokens-file' : '',
  ].filter((m) => m !== '');
  if (methods.length > 1) {
    throw new UsageError(`choose one source of token pairs, not ${methods.join(' and ')}`);
  }
  if (options.passwordFile !== undefined && options.username === undefined) {
    throw new UsageError('--password-file goes with --username');
  }
  if (options.registrationCodeFile !== undefined && options.email === undefined) {
    throw new UsageError('--registration-code-file goes with --email');
  }
  const fromStdin = [
    options.stokenFile,
    options.uidauthFile,
    options.passwordFile,
    options.registrationCodeFile,
    options.tokensFile,
    options.persistorPasswordFile,
    options.persistorAesgcmKeyFile,
  ].filter((path) => path === '-');
  if (fromStdin.length > 1) throw new UsageError('only one input can be read from stdin (-)');
  if (bulk && (methods[0] === '--stoken-file/--uidauth-file' || options.email !== undefined)) {
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

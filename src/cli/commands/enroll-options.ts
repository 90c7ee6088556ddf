/**
 * The options of `ksctl enroll` and the checks on them that need nothing else loaded: the command
 * runs them before anything starts, the actions read the same type.
 */
import { UsageError } from '../../errors.js';
import type { PersistorOptionValues } from '../persistor-flags.js';

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

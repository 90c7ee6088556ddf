/**
 * The settings of one `ksctl enroll`, gathered in the order the command needs them: the profile
 * name (a name that cannot be stored fails before any question), the context and timeout, the
 * endpoints and keyspace, the profile file and its secret, then the token pairs' source and its
 * secrets. Each comes from flag > environment > context > default, a secret from its file, the
 * environment or a terminal's prompt. What profiles/ gives loads lazily: this module shares the
 * chunk every network command loads.
 */
import type { RequestActivity } from '../api/client.js';
import type { TokenPair } from '../../common/enrollment/wire.js';
import { UsageError } from '../../common/errors.js';
import type { PersistorSpec } from '../profiles/types.js';
import {
  type EndpointFlags,
  endpointSettings,
  type EndpointSettings,
  endpointsUnknowable,
  unknownEndpointsError,
} from './endpoints.js';
import { assertKeyspace } from '../../common/enrollment/keyspace.js';
import { type PersistorFlags, resolvePersistor, type SettingsAsker } from './persistor.js';
import { readSecret, readSecretFile } from './secrets.js';
import { type Connection, resolveConnection, resolveContext } from './settings.js';
import { resolveTimeoutMs } from './timeout.js';
import { trustedCas } from './trust.js';

export interface EnrollmentFlags extends EndpointFlags {
  stokenFile?: string;
  uidauthFile?: string;
  username?: string;
  passwordFile?: string;
  email?: string;
  registrationCodeFile?: string;
  mockUser?: string;
  tokensFile?: string;
  name?: string;
}

/** An asker that can also take a line of plain text (the keyspace). */
export interface EnrollmentAsker extends SettingsAsker {
  readonly prompter: SettingsAsker['prompter'] & { input(message: string): Promise<string> };
}

/** Where each device's token pair comes from. */
export type TokenChoice =
  | { kind: 'pairs'; pairs: TokenPair[] }
  /** A tokens file's text, parsed by the enrollment (its problems name `source`). */
  | { kind: 'file'; text: string; source: string }
  | { kind: 'password'; username: string; password: string }
  | { kind: 'email'; email: string; registrationCode: () => Promise<string> }
  /** A ksctl mock's admin endpoint, reached with the connection's credentials. */
  | {
      kind: 'mock';
      user: string;
      connection: Connection;
      activity?: (what: string) => RequestActivity;
    };

export interface EnrollmentSettings {
  timeoutMs: number;
  /** CA certificates (PEM) trusted instead of the system's (src/client/config/trust.ts). */
  ca?: string;
  keyspace: string;
  endpoints: EndpointSettings;
  persistor: PersistorSpec;
  tokens: TokenChoice;
}

/** Throws the CLI's usage error when `name` cannot be a stored profile's name. */
export async function checkProfileName(name: string, what: string): Promise<void> {
  const { PROFILE_NAME_MAX_LENGTH, profileNameProblem } =
    await import('../profiles/profile-name.js');
  const problem = profileNameProblem(name);
  if (problem !== undefined) {
    throw new UsageError(`${what} ${problem}`, {
      hint: `profile names are one line of printable text, at most ${PROFILE_NAME_MAX_LENGTH} characters, for example --name laptop`,
    });
  }
}

export async function enrollmentSettings(
  asker: EnrollmentAsker,
  flags: EnrollmentFlags,
  persistorFlags: PersistorFlags,
  bulk: boolean,
): Promise<EnrollmentSettings> {
  // Before any prompt or request: a name that cannot be stored must not spend a token pair.
  if (flags.name !== undefined) await checkProfileName(flags.name, '--name');
  else if (!bulk) {
    const { hostname } = await import('node:os');
    await checkProfileName(hostname(), 'the host name (the default profile name)');
  }
  const store = await asker.config();
  const { name, context } = resolveContext(asker.globals, asker.env, store);
  const timeoutMs = resolveTimeoutMs(asker.globals, asker.env, name, context);
  const ca = await trustedCas(asker.globals, asker.env, name, context);
  const endpoints = endpointSettings(flags, asker.env, context);
  // Before the keyspace, the profile file's secret and the tokens are asked for.
  const portal = flags.username !== undefined || flags.email !== undefined;
  if (endpointsUnknowable(endpoints, portal)) throw unknownEndpointsError(endpoints.keyspace);
  const keyspace = assertKeyspace(endpoints.keyspace ?? (await askKeyspace(asker)));
  const persistor = await resolvePersistor(asker, persistorFlags, { creates: true });
  const tokens = await tokenChoice(asker, flags, bulk);
  return { timeoutMs, ...(ca === undefined ? {} : { ca }), keyspace, endpoints, persistor, tokens };
}

async function askKeyspace(asker: EnrollmentAsker): Promise<string> {
  if (!asker.canPrompt()) {
    throw new UsageError('no keyspace to enroll into', {
      hint: 'pass --keyspace, set KSCTL_KEYSPACE, or store one in the context',
    });
  }
  return (await asker.prompter.input('Keyspace to enroll into:')).trim();
}

async function tokenChoice(
  asker: EnrollmentAsker,
  flags: EnrollmentFlags,
  bulk: boolean,
): Promise<TokenChoice> {
  if (flags.tokensFile !== undefined) {
    const text = await readSecretFile(flags.tokensFile, asker.io.stdin, 'list of token pairs');
    const source = flags.tokensFile === '-' ? 'standard input' : flags.tokensFile;
    return { kind: 'file', text, source };
  }
  if (flags.username !== undefined) {
    const password = await readSecret(asker, {
      file: flags.passwordFile,
      envValue: asker.env.KSCTL_PORTAL_PASSWORD,
      flag: '--password-file',
      envName: 'KSCTL_PORTAL_PASSWORD',
      what: 'portal password',
      question: `Portal password of ${flags.username}:`,
    });
    return { kind: 'password', username: flags.username, password };
  }
  if (flags.email !== undefined) {
    const file = flags.registrationCodeFile;
    // Checked before the portal sends an e-mail nobody could use.
    if (file === undefined && !asker.canPrompt()) {
      throw new UsageError('the registration code cannot be asked for here', {
        hint: 'pass --registration-code-file PATH (or - for stdin) with --email when not on a terminal',
      });
    }
    const email = flags.email;
    const registrationCode = () =>
      readSecret(asker, {
        file,
        envValue: undefined,
        flag: '--registration-code-file',
        envName: undefined,
        what: 'registration code',
        question: `Registration code sent to ${email}:`,
      });
    return { kind: 'email', email, registrationCode };
  }
  if (flags.mockUser !== undefined) {
    const connection = await resolveConnection(
      asker.globals,
      asker.env,
      await asker.config(),
      asker.io,
    );
    return { kind: 'mock', user: flags.mockUser, connection };
  }
  if (bulk) throw new UsageError('no token pairs for --count');
  const stoken = await readSecret(asker, {
    file: flags.stokenFile,
    envValue: asker.env.KSCTL_STOKEN,
    flag: '--stoken-file',
    envName: 'KSCTL_STOKEN',
    what: 'STOKEN',
    question: 'STOKEN (from your enrollment portal):',
  });
  const uidauth = await readSecret(asker, {
    file: flags.uidauthFile,
    envValue: asker.env.KSCTL_UIDAUTH,
    flag: '--uidauth-file',
    envName: 'KSCTL_UIDAUTH',
    what: 'UIDAUTH',
    question: 'UIDAUTH (from your enrollment portal):',
  });
  return { kind: 'pairs', pairs: [{ stoken, uidauth }] };
}

import type { Readable } from 'node:stream';
import type { Auth } from '../api/client.js';
import { UsageError } from '../../common/errors.js';
import { readSecretFile } from './secrets.js';
import type { ConfigStore, ContextConfig } from './store.js';
import { resolveTimeoutMs } from './timeout.js';
import { caFileSetting, readCaFile } from './trust.js';

// The secret reader lives beside these settings; commands that read a secret file import it here.
export { readSecretFile } from './secrets.js';

// The timeout's parser lives apart so that building the program does not load this module.
export {
  environmentTimeoutMs,
  parseTimeoutMs,
  resolveTimeoutMs,
  secondsToMs,
  TIMEOUT_MAX_SECONDS,
  TIMEOUT_RANGE,
} from './timeout.js';

/** The options every command accepts (docs/design.md 5). */
export interface GlobalOptions {
  context?: string;
  baseUrl?: string;
  tokenFile?: string;
  output?: 'table' | 'json' | 'yaml';
  /** false with --no-input. */
  input: boolean;
  debug?: boolean;
  /** Seconds, from --timeout (its parser keeps it in range and to whole milliseconds). */
  timeout?: number;
  quiet?: boolean;
  /** Tables in full, however wide the terminal. */
  wide?: boolean;
  /** false with --no-pager: long tables on a terminal are not paged. */
  pager?: boolean;
  /** CA certificates to trust instead of the system's (env KSCTL_CA_FILE; src/client/config/trust.ts). */
  caFile?: string;
}

export interface Connection {
  contextName: string | undefined;
  context: ContextConfig;
  baseUrl: string;
  auth: Auth;
  timeoutMs: number;
  /** The CA certificates (PEM) trusted instead of the system's, when a CA file is in force. */
  ca?: string;
  /** That CA file and where its setting came from (`--ca-file`, `KSCTL_CA_FILE`, a context). */
  caFile?: { path: string; source: string };
  /** Where each setting in force came from, as messages name it (settingSource). */
  sources: ConnectionSources;
}

/**
 * Where a setting came from: a flag (`--base-url`), an environment variable (`KSCTL_TOKEN`), a
 * context (`context "prod"`), or undefined for none or the default.
 */
export interface ConnectionSources {
  context: '--context' | 'KSCTL_CONTEXT' | 'the current context' | undefined;
  baseUrl: string;
  auth: string | undefined;
}

/** Whether a source is the environment, which a user does not see in the command line. */
export function fromEnvironment(source: string | undefined): boolean {
  return source?.startsWith('KSCTL_') === true;
}

/** The environment variables that win over a context's settings (flag > environment > context). */
export const ENVIRONMENT_SETTINGS: Partial<Record<keyof ContextConfig, string>> = {
  baseUrl: 'KSCTL_BASE_URL',
  timeoutMs: 'KSCTL_TIMEOUT',
  caFile: 'KSCTL_CA_FILE',
  apiUrl: 'KSCTL_API_URL',
  enrollmentUrl: 'KSCTL_ENROLLMENT_URL',
  knsUrl: 'KSCTL_KNS_URL',
  keyspace: 'KSCTL_KEYSPACE',
  persistor: 'KSCTL_PERSISTOR',
  persistorPath: 'KSCTL_PERSISTOR_PATH',
  persistorAesgcmAdata: 'KSCTL_PERSISTOR_AESGCM_ADATA',
};

/** The credentials the environment gives, which win over a context's: their variables. */
export function environmentAuth(env: NodeJS.ProcessEnv): string | undefined {
  if (env.KSCTL_TOKEN) return 'KSCTL_TOKEN';
  if (env.KSCTL_USERNAME && env.KSCTL_PASSWORD) return 'KSCTL_USERNAME and KSCTL_PASSWORD';
  return undefined;
}

/** The context in force: --context > KSCTL_CONTEXT > the current one. */
export function contextName(
  globals: GlobalOptions,
  env: NodeJS.ProcessEnv,
  store: ConfigStore,
): string | undefined {
  return globals.context ?? (env.KSCTL_CONTEXT || undefined) ?? store.currentContext;
}

export function resolveContext(
  globals: GlobalOptions,
  env: NodeJS.ProcessEnv,
  store: ConfigStore,
): { name: string | undefined; context: ContextConfig } {
  const name = contextName(globals, env, store);
  // A context named on the command line or in the environment must exist; none at all is fine.
  return { name, context: name === undefined ? {} : store.get(name) };
}

/**
 * A bearer token as it goes into the Authorization header: an optional "Bearer " prefix dropped,
 * then one line of visible ASCII. `source` says where it came from; the token is never shown.
 */
export function bearerToken(text: string, source: string): string {
  const token = text.replace(/^Bearer\s+/i, '');
  const problem =
    token === ''
      ? 'is empty'
      : /[\r\n]/.test(token)
        ? 'has more than one line'
        : /[^\x21-\x7e]/.test(token)
          ? 'has a character that is not visible ASCII (a space, a control character or a non-ASCII byte)'
          : undefined;
  if (problem === undefined) return token;
  throw new UsageError(`the token in ${source} ${problem}`, {
    hint: 'a token is one line of visible ASCII characters, with nothing else around it',
  });
}

/** The bearer token of `--token-file PATH` (`-` for stdin), checked like any other. */
export async function readTokenFile(path: string, stdin: Readable): Promise<string> {
  return bearerToken(
    await readSecretFile(path, stdin, 'token'),
    path === '-' ? 'standard input (--token-file -)' : `--token-file ${path}`,
  );
}

/**
 * Where the service is and how to authenticate: flag > environment > context > default. `io.stdin`
 * is read only for `--token-file -` (opening process.stdin costs every command a few ms).
 */
export async function resolveConnection(
  globals: GlobalOptions,
  env: NodeJS.ProcessEnv,
  store: ConfigStore,
  io: { readonly stdin: Readable },
): Promise<Connection> {
  const { name, context } = resolveContext(globals, env, store);
  const inContext = `context "${name}"`;
  const baseUrl = globals.baseUrl ?? (env.KSCTL_BASE_URL || undefined) ?? context.baseUrl;
  if (!baseUrl) {
    throw new UsageError('no service to talk to', {
      hint: 'pass --base-url, set KSCTL_BASE_URL, or add a context (`ksctl context add`); `ksctl mock serve` starts a local one',
    });
  }
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new UsageError(`the base URL "${baseUrl}" is not an http(s) URL`);
  }
  let auth: Auth = { kind: 'none' };
  let authSource: string | undefined;
  if (globals.tokenFile !== undefined) {
    auth = { kind: 'bearer', token: await readTokenFile(globals.tokenFile, io.stdin) };
    authSource = '--token-file';
  } else if (env.KSCTL_TOKEN) {
    auth = { kind: 'bearer', token: bearerToken(env.KSCTL_TOKEN.trim(), 'KSCTL_TOKEN') };
    authSource = 'KSCTL_TOKEN';
  } else if (env.KSCTL_USERNAME && env.KSCTL_PASSWORD) {
    auth = { kind: 'basic', username: env.KSCTL_USERNAME, password: env.KSCTL_PASSWORD };
    authSource = 'KSCTL_USERNAME and KSCTL_PASSWORD';
  } else if (context.token) {
    auth = { kind: 'bearer', token: bearerToken(context.token, inContext) };
    authSource = inContext;
  } else if (context.username && context.password) {
    auth = { kind: 'basic', username: context.username, password: context.password };
    authSource = inContext;
  }
  const timeoutMs = resolveTimeoutMs(globals, env, name, context);
  const sources: ConnectionSources = {
    context:
      name === undefined
        ? undefined
        : globals.context !== undefined
          ? '--context'
          : env.KSCTL_CONTEXT
            ? 'KSCTL_CONTEXT'
            : 'the current context',
    baseUrl:
      globals.baseUrl !== undefined
        ? '--base-url'
        : env.KSCTL_BASE_URL
          ? 'KSCTL_BASE_URL'
          : inContext,
    auth: authSource,
  };
  const caFile = caFileSetting(globals, env, name, context);
  return {
    contextName: name,
    context,
    baseUrl,
    auth,
    timeoutMs,
    ...(caFile === undefined ? {} : { ca: await readCaFile(caFile.path, caFile.source), caFile }),
    sources,
  };
}

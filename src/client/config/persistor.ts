/**
 * The profile-file setting of `enroll`, `profiles` and `keys`, resolved to a PersistorSpec:
 * flag > environment > context > default. The default file is the Ionic tools' own
 * (`<home>/.ionicsecurity/profiles.pt|pw|aesgcm`); `KSCTL_HOME` replaces the home directory,
 * so tests and the demo never touch the real one. What it needs of profiles/ loads lazily: this
 * module shares the chunk every network command loads.
 */
import { existsSync } from 'node:fs';
import { UsageError } from '../../common/errors.js';
import {
  type PasswordFormatVersion,
  PERSISTOR_KINDS,
  type PersistorKind,
  type PersistorSpec,
} from '../profiles/types.js';
import { readSecret, type SecretAsker } from './secrets.js';
import { type GlobalOptions, resolveContext } from './settings.js';
import type { ConfigStore, ContextConfig } from './store.js';

/** The directory the default profile directory lives in: KSCTL_HOME, else the home directory. */
async function profilesHome(env: NodeJS.ProcessEnv): Promise<string> {
  return env.KSCTL_HOME || (await import('node:os')).homedir();
}

/** What the persistor flags give, under either prefix (`--persistor-*` or `--to-*`). */
export interface PersistorFlags {
  persistor?: PersistorKind;
  path?: string;
  passwordFile?: string;
  version?: PasswordFormatVersion;
  aesgcmKeyFile?: string;
  aesgcmAdata?: string;
}

/** What resolving a persistor asks of the command: its settings, stdin and a terminal. */
export interface SettingsAsker extends SecretAsker {
  readonly globals: GlobalOptions;
  readonly env: NodeJS.ProcessEnv;
  config(): Promise<ConfigStore>;
}

const EXTENSIONS: Record<string, PersistorKind> = {
  '.pt': 'plaintext',
  '.pw': 'password',
  '.aesgcm': 'aesgcm',
};

function kindOfPath(path: string | undefined): PersistorKind | undefined {
  if (path === undefined) return undefined;
  const dot = path.lastIndexOf('.');
  return dot < 0 ? undefined : EXTENSIONS[path.slice(dot).toLowerCase()];
}

function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly string[],
  name: string,
): T | undefined {
  if (value === undefined || value === '') return undefined;
  if (!allowed.includes(value)) {
    throw new UsageError(`${name} must be one of ${allowed.join(', ')}, not "${value}"`);
  }
  return value as T;
}

export interface ResolvePersistorOptions {
  /** `--persistor` or `--to-persistor`, for messages. */
  flagPrefix?: string;
  /** The environment and the context are consulted (not for a conversion target). */
  useDefaults?: boolean;
  /** Why a password or key is wanted, for the prompt ("the profile file"). */
  purpose?: string;
  /**
   * The command may write the file new (enroll, a conversion's target): its secret is asked for
   * a file not there yet, twice. A command that only reads asks nothing for a missing file.
   */
  creates?: boolean;
}

/**
 * The persistor to read and write. Kind: flag > KSCTL_PERSISTOR > context > the path's
 * extension (`.pt`, `.pw`, `.aesgcm`) > plaintext. Secrets come from their file flag or the
 * environment, else a prompt on a terminal, else a usage error naming the flag.
 */
export async function resolvePersistor(
  ctx: SettingsAsker,
  flags: PersistorFlags,
  options: ResolvePersistorOptions = {},
): Promise<PersistorSpec> {
  const prefix = options.flagPrefix ?? '--persistor';
  const useDefaults = options.useDefaults ?? true;
  const env = useDefaults ? ctx.env : {};
  const context: ContextConfig = useDefaults ? await currentContext(ctx) : {};
  const explicitPath = flags.path ?? (env.KSCTL_PERSISTOR_PATH || undefined);
  const kind: PersistorKind =
    flags.persistor ??
    oneOf<PersistorKind>(env.KSCTL_PERSISTOR, PERSISTOR_KINDS, 'KSCTL_PERSISTOR') ??
    context.persistor ??
    kindOfPath(explicitPath ?? context.persistorPath) ??
    'plaintext';
  const { defaultPersistorPath } = await import('../profiles/default-paths.js');
  const path =
    explicitPath ??
    context.persistorPath ??
    defaultPersistorPath(kind, await profilesHome(ctx.env));
  const { inputLimit } = await import('../../common/files/bounded-read.js');
  const spec: PersistorSpec = { kind, path, maxBytes: inputLimit(ctx.env, 'profile file').bytes };
  const present = existsSync(path);
  // Nothing to open: no profiles, and nothing to ask for (a mistyped path is not asked a password).
  if (!present && options.creates !== true) return spec;
  // A secret that a new file (or a conversion's target) will be written with is asked twice: a
  // typo would leave profiles nobody can open.
  const fresh = prefix === '--to' || !present;
  if (kind === 'password') {
    const { checkProfilePassword } = await import('../profiles/password-format.js');
    spec.password = await readSecret(ctx, {
      file: flags.passwordFile,
      envValue: env.KSCTL_PERSISTOR_PASSWORD,
      flag: `${prefix}-password-file`,
      envName: useDefaults ? 'KSCTL_PERSISTOR_PASSWORD' : undefined,
      what: 'profile password',
      question: fresh ? `New password for ${path}:` : `Password of ${path}:`,
      confirm: fresh,
      check: checkProfilePassword,
    });
    spec.passwordVersion = flags.version ?? (useDefaults ? context.persistorVersion : undefined);
  } else if (kind === 'aesgcm') {
    const { parseAesGcmKeyHex } = await import('../profiles/aesgcm-format.js');
    const hex = await readSecret(ctx, {
      file: flags.aesgcmKeyFile,
      envValue: env.KSCTL_PERSISTOR_AESGCM_KEY,
      flag: `${prefix}-aesgcm-key-file`,
      envName: useDefaults ? 'KSCTL_PERSISTOR_AESGCM_KEY' : undefined,
      what: 'AES-GCM persistor key',
      question: `AES-GCM key of ${path} (64 hex characters):`,
      confirm: fresh,
      check: parseAesGcmKeyHex,
    });
    spec.aesgcmKey = parseAesGcmKeyHex(hex);
    const adata =
      flags.aesgcmAdata ??
      (env.KSCTL_PERSISTOR_AESGCM_ADATA || undefined) ??
      context.persistorAesgcmAdata;
    if (adata === undefined) {
      throw new UsageError(`the aesgcm persistor ${path} needs its additional authenticated data`, {
        hint: `pass ${prefix}-aesgcm-adata${useDefaults ? ', set KSCTL_PERSISTOR_AESGCM_ADATA, or store it in the context' : ''}`,
      });
    }
    spec.aesgcmAdata = adata;
  }
  return spec;
}

async function currentContext(ctx: SettingsAsker): Promise<ContextConfig> {
  return resolveContext(ctx.globals, ctx.env, await ctx.config()).context;
}

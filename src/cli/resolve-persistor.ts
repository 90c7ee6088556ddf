/**
 * The profile-file options shared by `enroll` and `profiles`, resolved to a PersistorSpec:
 * flag > environment > context > default. The default file is the Ionic tools' own
 * (`<home>/.ionicsecurity/profiles.pt|pw|aesgcm`); `KSCTL_HOME` replaces the home directory,
 * so tests and the demo never touch the real one.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { readSecretFile, resolveContext } from '../config/settings.js';
import type { ContextConfig } from '../config/store.js';
import { UsageError } from '../errors.js';
import type { PersistorKind, PersistorSpec } from '../profiles/types.js';
import type { CommandContext } from './command-context.js';
import { KINDS, type PersistorFlags } from './persistor-flags.js';

/** The directory the default profile directory lives in: KSCTL_HOME, else the home directory. */
export function profilesHome(env: NodeJS.ProcessEnv): string {
  return env.KSCTL_HOME || homedir();
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
  allowed: readonly T[],
  name: string,
): T | undefined {
  if (value === undefined || value === '') return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
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
  ctx: CommandContext,
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
    oneOf(env.KSCTL_PERSISTOR, KINDS, 'KSCTL_PERSISTOR') ??
    context.persistor ??
    kindOfPath(explicitPath ?? context.persistorPath) ??
    'plaintext';
  const { defaultPersistorPath } = await import('../profiles/default-paths.js');
  const path =
    explicitPath ?? context.persistorPath ?? defaultPersistorPath(kind, profilesHome(ctx.env));
  const { inputLimit } = await import('../files/bounded-read.js');
  const spec: PersistorSpec = { kind, path, maxBytes: inputLimit(ctx.env, 'profile file').bytes };
  const present = existsSync(path);
  // Nothing to open: no profiles, and nothing to ask for (a mistyped path is not asked a password).
  if (!present && options.creates !== true) return spec;
  // A secret that a new file (or a conversion's target) will be written with is asked twice: a
  // typo would leave profiles nobody can open.
  const fresh = prefix === '--to' || !present;
  if (kind === 'password') {
    const { checkProfilePassword } = await import('../profiles/password-format.js');
    spec.password = await secret(ctx, {
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
    const hex = await secret(ctx, {
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

async function currentContext(ctx: CommandContext): Promise<ContextConfig> {
  return resolveContext(ctx.globals, ctx.env, await ctx.config()).context;
}

interface SecretSource {
  file: string | undefined;
  envValue: string | undefined;
  flag: string;
  envName: string | undefined;
  what: string;
  question: string;
  /** Asked on a terminal: ask again and compare (a new secret). */
  confirm?: boolean;
  /** Throws when the secret cannot be used (a password too short): before it is asked again. */
  check?: (value: string) => unknown;
}

/** A secret from its file flag, the environment, or a prompt that never echoes. */
export async function secret(ctx: CommandContext, source: SecretSource): Promise<string> {
  if (source.file !== undefined) return readSecretFile(source.file, ctx.io.stdin, source.what);
  const fromEnv = source.envValue?.trim();
  if (fromEnv) return fromEnv;
  if (ctx.canPrompt()) {
    const answer = (await ctx.prompter.secret(source.question)).trim();
    if (answer !== '') source.check?.(answer);
    if (answer !== '' && source.confirm === true) {
      const again = (await ctx.prompter.secret(`The ${source.what} again, to confirm:`)).trim();
      if (again !== answer) {
        throw new UsageError(`the two entries of the ${source.what} differ; nothing was written`);
      }
    }
    if (answer !== '') return answer;
  }
  throw new UsageError(`the ${source.what} is missing`, {
    hint: `pass ${source.flag} PATH (or - for stdin)${source.envName ? ` or set ${source.envName}` : ''}; secrets are never taken from plain flags`,
  });
}

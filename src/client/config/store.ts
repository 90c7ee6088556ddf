/**
 * Stored contexts: the configuration file, where it lives, how it is read (a plain JSON read,
 * within the input cap) and changed (read again, then replaced atomically).
 */
import { chmod } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { quoted } from '../../common/text/words.js';
import {
  ConflictError,
  InputError,
  isKsctlError,
  KsctlError,
  NotFoundError,
  UsageError,
} from '../../common/errors.js';
import { INPUT_MAX_MIB, readBoundedFile } from '../../common/files/bounded-read.js';
import { nodeBudget, parseJsonWithin } from '../../common/files/node-budget.js';
import { errnoCode } from '../../common/files/fs-errors.js';
import type { PersistorKind } from '../profiles/types.js';

/** The context `ksctl mock serve` keeps pointing at the mock, which the mock's admin commands use. */
export const MOCK_CONTEXT = 'mock';

/** What a context remembers: where the service is, how to authenticate, and per-context defaults. */
export interface ContextConfig {
  baseUrl?: string;
  /** Bearer token. */
  token?: string;
  /** Basic authentication. */
  username?: string;
  password?: string;
  timeoutMs?: number;
  /**
   * CA certificates (a PEM file) to trust for this context instead of the system's: the mock's
   * local CA (`mock serve --tls` writes it), or a company's internal CA.
   */
  caFile?: string;
  // Enrollment defaults.
  apiUrl?: string;
  enrollmentUrl?: string;
  knsUrl?: string;
  keyspace?: string;
  // Profile defaults.
  persistor?: PersistorKind;
  persistorPath?: string;
  persistorVersion?: '1.0' | '1.1';
  persistorAesgcmAdata?: string;
}

export const CONTEXT_KEYS: (keyof ContextConfig)[] = [
  'baseUrl',
  'token',
  'username',
  'password',
  'timeoutMs',
  'caFile',
  'apiUrl',
  'enrollmentUrl',
  'knsUrl',
  'keyspace',
  'persistor',
  'persistorPath',
  'persistorVersion',
  'persistorAesgcmAdata',
];

interface ConfigData {
  currentContext?: string;
  contexts: Record<string, ContextConfig>;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function contextNameProblem(name: string): string | undefined {
  return NAME.test(name)
    ? undefined
    : 'a context name is 1-64 letters, digits, dots, dashes or underscores';
}

/**
 * Contexts, stored in a 0600 JSON file (0700 directory). `KSCTL_CONFIG_DIR` moves it.
 *
 * Reading is a plain JSON read of that file: every network command reads it. A change reads the
 * file again, applies itself and replaces the file atomically (files/atomic-write.ts: a reader
 * sees the old file or the new one, a crash leaves no half-written file). A file that is not a
 * configuration is reported with its path and left as it is, never replaced.
 */
export class ConfigStore {
  /** The directory was made (0700) by this process's first change. */
  private directoryReady = false;

  private constructor(
    readonly path: string,
    private data: ConfigData,
  ) {}

  static async open(env: NodeJS.ProcessEnv): Promise<ConfigStore> {
    const path = join(env.KSCTL_CONFIG_DIR ?? (await defaultConfigDir()), CONFIG_FILE);
    return new ConfigStore(path, await readConfig(path));
  }

  get currentContext(): string | undefined {
    return this.data.currentContext;
  }

  names(): string[] {
    return Object.keys(this.data.contexts).sort();
  }

  find(name: string): ContextConfig | undefined {
    return Object.hasOwn(this.data.contexts, name) ? this.data.contexts[name] : undefined;
  }

  get(name: string): ContextConfig {
    const ctx = this.find(name);
    if (!ctx) {
      throw new NotFoundError(`context ${quoted(name)} not found`, {
        hint:
          this.names().length > 0
            ? `known contexts: ${this.names().join(', ')}`
            : 'add one with `ksctl context add NAME --base-url URL --token-file FILE`',
      });
    }
    return ctx;
  }

  async set(name: string, ctx: ContextConfig): Promise<void> {
    const problem = contextNameProblem(name);
    if (problem) throw new UsageError(`invalid context name ${quoted(name)}: ${problem}`);
    await this.change((data) => ({ ...data, contexts: { ...data.contexts, [name]: ctx } }));
  }

  /** Renames a context, keeping it current if it was; refuses a name in use. */
  async rename(from: string, to: string): Promise<void> {
    const context = this.get(from);
    const problem = contextNameProblem(to);
    if (problem) throw new UsageError(`invalid context name ${quoted(to)}: ${problem}`);
    if (this.find(to)) {
      throw new ConflictError(`context ${quoted(to)} already exists`, {
        hint: `remove it first (\`ksctl context remove ${to}\`) or choose another name`,
      });
    }
    await this.change((data) => {
      const { [from]: _old, ...rest } = data.contexts;
      const contexts = { ...rest, [to]: context };
      return data.currentContext === from
        ? { ...data, currentContext: to, contexts }
        : { ...data, contexts };
    });
  }

  async use(name: string): Promise<void> {
    this.get(name);
    await this.change((data) => ({ ...data, currentContext: name }));
  }

  async remove(name: string): Promise<void> {
    this.get(name);
    await this.change((data) => {
      const { [name]: _removed, ...contexts } = data.contexts;
      if (data.currentContext !== name) return { ...data, contexts };
      const { currentContext: _current, ...rest } = data;
      return { ...rest, contexts };
    });
  }

  /** Applies a change to the file as it is now (read again first), and keeps the result. */
  private async change(apply: (data: ConfigData) => ConfigData): Promise<void> {
    const [{ ensureDirectory }, { writeFileAtomic }] = await Promise.all([
      import('../../common/files/directories.js'),
      import('../../common/files/atomic-write.js'),
    ]);
    const dir = dirname(this.path);
    if (!this.directoryReady) {
      await ensureDirectory(dir, 0o700).catch((error: unknown) => {
        throw new InputError((error as Error).message, { hint: CANNOT_WRITE_HINT, cause: error });
      });
      await chmod(dir, 0o700).catch(() => undefined);
      this.directoryReady = true;
    }
    const data = apply(await readConfig(this.path));
    try {
      // Tab-indented, as the file has always been written.
      await writeFileAtomic(this.path, JSON.stringify(data, undefined, '\t'), 0o600);
    } catch (error) {
      const code = errnoCode(isKsctlError(error) ? error.cause : error);
      if (code === undefined || !/^E[A-Z]+$/.test(code)) throw error;
      throw new InputError(`cannot write the configuration ${this.path} (${code})`, {
        hint: CANNOT_WRITE_HINT,
        cause: error,
      });
    }
    this.data = data;
  }
}

const CONFIG_FILE = 'config.json';
const CANNOT_WRITE_HINT =
  'check the permissions of that directory, or point `KSCTL_CONFIG_DIR` elsewhere';

/** Where ksctl's file is by default: the platform's configuration directory (the env-paths rules). */
async function defaultConfigDir(): Promise<string> {
  const { homedir } = await import('node:os');
  const home = homedir();
  switch (process.platform) {
    case 'darwin':
      return join(home, 'Library', 'Preferences', 'ksctl');
    case 'win32':
      return join(process.env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'ksctl', 'Config');
    default:
      return join(process.env.XDG_CONFIG_HOME ?? join(home, '.config'), 'ksctl');
  }
}

const CONFIG_LIMIT = { bytes: INPUT_MAX_MIB * 1024 * 1024, what: 'configuration file' };

async function readConfig(path: string): Promise<ConfigData> {
  let text: string;
  try {
    // The file ksctl writes is small; a cap keeps a damaged or replaced one from filling memory.
    text = (await readBoundedFile(path, CONFIG_LIMIT)).toString('utf8');
  } catch (error) {
    if (error instanceof KsctlError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { contexts: {} };
    throw new InputError(`cannot read the configuration ${path} (${code ?? String(error)})`, {
      cause: error,
    });
  }
  let data: unknown;
  try {
    // Within NESTING_MAX levels: the file is written back whole, by recursive code.
    data = parseJsonWithin(text, path, nodeBudget(CONFIG_LIMIT));
  } catch (error) {
    if (error instanceof KsctlError) throw error;
    throw badConfig(path, (error as Error).message, error);
  }
  if (!isRecord(data)) throw badConfig(path, 'it does not hold a JSON object');
  const { currentContext, contexts = {} } = data;
  if (currentContext !== undefined && typeof currentContext !== 'string') {
    throw badConfig(path, '"currentContext" is not a string');
  }
  if (!isRecord(contexts) || !Object.values(contexts).every(isRecord)) {
    throw badConfig(path, '"contexts" is not an object of contexts');
  }
  return { ...data, contexts: contexts as Record<string, ContextConfig> } as ConfigData;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function badConfig(path: string, reason: string, cause?: unknown): InputError {
  return new InputError(`the configuration ${path} is not valid: ${reason}`, {
    hint: 'fix or move the file; `KSCTL_CONFIG_DIR` points ksctl at another directory',
    ...(cause === undefined ? {} : { cause }),
  });
}

import { chmod, readFile } from 'node:fs/promises';
import type Conf from 'conf';
import { dirname, join } from 'node:path';
import { ConflictError, InputError, isKsctlError, NotFoundError, UsageError } from '../errors.js';

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
  // Enrollment defaults.
  apiUrl?: string;
  enrollmentUrl?: string;
  knsUrl?: string;
  keyspace?: string;
  // Profile defaults.
  persistor?: 'plaintext' | 'password' | 'aesgcm';
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

type ConfInstance = Conf<ConfigData>;

/**
 * Contexts, stored with `conf` in a 0600 file (0700 directory). `KSCTL_CONFIG_DIR` moves it.
 *
 * Reading is a plain JSON read of that file: every network command reads it, and loading `conf`
 * (with its schema validator) costs more than most commands' own work. `conf` loads on the first
 * change, so the file is written the way it always is (atomically, with its modes). A file that
 * is not a configuration is reported with its path and left as it is, never replaced.
 */
export class ConfigStore {
  private conf: ConfInstance | undefined;

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
      throw new NotFoundError(`context "${name}" not found`, {
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
    if (problem) throw new UsageError(`invalid context name "${name}": ${problem}`);
    await this.change((conf) => conf.set('contexts', { ...conf.get('contexts'), [name]: ctx }));
  }

  /** Renames a context, keeping it current if it was; refuses a name in use. */
  async rename(from: string, to: string): Promise<void> {
    const context = this.get(from);
    const problem = contextNameProblem(to);
    if (problem) throw new UsageError(`invalid context name "${to}": ${problem}`);
    if (this.find(to)) {
      throw new ConflictError(`context "${to}" already exists`, {
        hint: `remove it first (\`ksctl context remove ${to}\`) or choose another name`,
      });
    }
    await this.change((conf) => {
      const { [from]: _old, ...rest } = conf.get('contexts');
      conf.set('contexts', { ...rest, [to]: context });
      if (conf.get('currentContext') === from) conf.set('currentContext', to);
    });
  }

  async use(name: string): Promise<void> {
    this.get(name);
    await this.change((conf) => conf.set('currentContext', name));
  }

  async remove(name: string): Promise<void> {
    this.get(name);
    await this.change((conf) => {
      const { [name]: _removed, ...rest } = conf.get('contexts');
      conf.set('contexts', rest);
      if (conf.get('currentContext') === name) conf.delete('currentContext');
    });
  }

  /** Applies a change through `conf` (which reads the file again first) and keeps its result. */
  private async change(apply: (conf: ConfInstance) => void): Promise<void> {
    try {
      if (!this.conf) {
        // conf would create the directory with Node's recursive mkdir, which can spin forever.
        const { ensureDirectory } = await import('../files/directories.js');
        await ensureDirectory(dirname(this.path), 0o700).catch((error: unknown) => {
          throw new InputError((error as Error).message, { hint: CANNOT_WRITE_HINT, cause: error });
        });
        const { default: Conf } = await import('conf');
        this.conf = new Conf<ConfigData>({
          projectName: 'ksctl',
          projectSuffix: '',
          configName: 'config',
          cwd: dirname(this.path),
          configFileMode: 0o600,
          defaults: { contexts: {} },
        });
        await chmod(dirname(this.path), 0o700).catch(() => undefined);
      }
      apply(this.conf);
      this.data = this.conf.store;
    } catch (error) {
      if (isKsctlError(error)) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) throw error; // errno codes only
      throw new InputError(`cannot write the configuration ${this.path} (${code})`, {
        hint: CANNOT_WRITE_HINT,
        cause: error,
      });
    }
  }
}

const CONFIG_FILE = 'config.json';
const CANNOT_WRITE_HINT =
  'check the permissions of that directory, or point `KSCTL_CONFIG_DIR` elsewhere';

/** Where `conf` keeps ksctl's file by default (the `env-paths` rules conf follows). */
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

async function readConfig(path: string): Promise<ConfigData> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { contexts: {} };
    throw new InputError(`cannot read the configuration ${path} (${code ?? String(error)})`, {
      cause: error,
    });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
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

import { chmod } from 'node:fs/promises';
import type Conf from 'conf';
import { dirname } from 'node:path';
import { NotFoundError, UsageError } from '../errors.js';

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
 * Loaded lazily: most commands need it, `--help` and `--version` do not.
 */
export class ConfigStore {
  private constructor(private readonly conf: ConfInstance) {}

  static async open(env: NodeJS.ProcessEnv): Promise<ConfigStore> {
    const { default: Conf } = await import('conf');
    const dir = env.KSCTL_CONFIG_DIR;
    const conf = new Conf<ConfigData>({
      projectName: 'ksctl',
      projectSuffix: '',
      configName: 'config',
      ...(dir ? { cwd: dir } : {}),
      configFileMode: 0o600,
      defaults: { contexts: {} },
    });
    await chmod(dirname(conf.path), 0o700).catch(() => undefined);
    return new ConfigStore(conf);
  }

  get path(): string {
    return this.conf.path;
  }

  get currentContext(): string | undefined {
    return this.conf.get('currentContext');
  }

  names(): string[] {
    return Object.keys(this.conf.get('contexts')).sort();
  }

  find(name: string): ContextConfig | undefined {
    return this.conf.get('contexts')[name];
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

  set(name: string, ctx: ContextConfig): void {
    const problem = contextNameProblem(name);
    if (problem) throw new UsageError(`invalid context name "${name}": ${problem}`);
    const contexts = { ...this.conf.get('contexts'), [name]: ctx };
    this.conf.set('contexts', contexts);
  }

  use(name: string): void {
    this.get(name);
    this.conf.set('currentContext', name);
  }

  remove(name: string): void {
    this.get(name);
    const { [name]: _removed, ...rest } = this.conf.get('contexts');
    this.conf.set('contexts', rest);
    if (this.currentContext === name) this.conf.delete('currentContext');
  }
}

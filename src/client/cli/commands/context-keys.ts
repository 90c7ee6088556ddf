import type { ContextConfig } from '../../config/store.js';
import { parseTimeoutMs, TIMEOUT_RANGE } from '../../config/timeout.js';
import { UsageError } from '../../../common/errors.js';
import type { IOStreams } from '../../output/io.js';

/**
 * The settings of a context as `context set` and `context unset` name them: the flag names of
 * `context add` without their dashes. Secrets are never given on the command line: `token-file`
 * and `password-file` name a file (or - for stdin) they are read from.
 */
interface ContextKey {
  key: string;
  field: keyof ContextConfig;
  /** What the value is, for help and errors. */
  value: string;
  /** The stored value from the text given, or a UsageError. */
  parse: (text: string, io: IOStreams) => Promise<ContextConfig[keyof ContextConfig]>;
  /** Also accepted by `unset` (the secret itself, rather than the file it came from). */
  alias?: string;
}

export function checkUrl(url: string | undefined, flag: string): void {
  if (url === undefined) return;
  try {
    const { protocol } = new URL(url);
    if (protocol === 'http:' || protocol === 'https:') return;
  } catch {
    // reported below
  }
  throw new UsageError(`${flag} "${url}" is not an http(s) URL`);
}

function url(key: string, field: keyof ContextConfig, what: string): ContextKey {
  return {
    key,
    field,
    value: what,
    parse: async (text) => {
      checkUrl(text, key);
      return text;
    },
  };
}

function oneOf<T extends string>(key: string, field: keyof ContextConfig, values: T[]): ContextKey {
  return {
    key,
    field,
    value: values.join('|'),
    parse: async (text) => {
      if (!(values as string[]).includes(text)) {
        throw new UsageError(`${key} must be one of ${values.join(', ')}, not "${text}"`);
      }
      return text as T;
    },
  };
}

// The help of `context set` lists the keys: the parsers' modules load only when a value is parsed.
const settings = () => import('../../config/settings.js');
const plainText = async (text: string) => text;

export const CONTEXT_SETTINGS: ContextKey[] = [
  url('base-url', 'baseUrl', 'markings URL'),
  {
    key: 'token-file',
    alias: 'token',
    field: 'token',
    value: 'file holding the bearer token, or -',
    parse: async (path, io) => (await settings()).readTokenFile(path, io.stdin),
  },
  { key: 'username', field: 'username', value: 'basic authentication user', parse: plainText },
  {
    key: 'password-file',
    alias: 'password',
    field: 'password',
    value: 'file holding the basic authentication password, or -',
    parse: async (path, io) => (await settings()).readSecretFile(path, io.stdin, 'password'),
  },
  {
    key: 'timeout',
    field: 'timeoutMs',
    value: 'seconds',
    parse: async (text) => {
      const ms = parseTimeoutMs(text);
      if (ms === undefined) throw new UsageError(`timeout must be ${TIMEOUT_RANGE}, not "${text}"`);
      return ms;
    },
  },
  {
    key: 'ca-file',
    field: 'caFile',
    value: "CA certificates (PEM) trusted instead of the system's",
    parse: async (path) => {
      const [{ resolve }, { readCaFile }] = await Promise.all([
        import('node:path'),
        import('../../config/trust.js'),
      ]);
      // Checked now, and kept absolute: the context is used from any directory.
      await readCaFile(path, 'ca-file');
      return resolve(path);
    },
  },
  url('api-url', 'apiUrl', 'enrollment API URL'),
  url('enrollment-url', 'enrollmentUrl', 'enrollment server URL'),
  url('kns-url', 'knsUrl', 'key naming lookup URL'),
  {
    key: 'keyspace',
    field: 'keyspace',
    value: '4 letters or digits',
    parse: async (text) => {
      const { isKeyspace } = await import('../../../common/enrollment/device-id.js');
      if (!isKeyspace(text)) {
        throw new UsageError(`keyspace "${text}" is not 4 letters or digits`);
      }
      return text;
    },
  },
  oneOf('persistor', 'persistor', ['plaintext', 'password', 'aesgcm']),
  { key: 'persistor-path', field: 'persistorPath', value: 'profile file', parse: plainText },
  oneOf('persistor-version', 'persistorVersion', ['1.0', '1.1']),
  {
    key: 'persistor-aesgcm-adata',
    field: 'persistorAesgcmAdata',
    value: 'aesgcm additional authenticated data',
    parse: plainText,
  },
];

/** The setting a user named, or a usage error listing the known ones. */
export function contextSetting(name: string, forUnset = false): ContextKey {
  const found = CONTEXT_SETTINGS.find(
    (k) => k.key === name || (forUnset && k.alias !== undefined && k.alias === name),
  );
  if (found) return found;
  const secret = CONTEXT_SETTINGS.find((k) => k.alias === name);
  throw new UsageError(`unknown context setting "${name}"`, {
    hint: secret
      ? `secrets are read from a file: use ${secret.key} PATH (or - for stdin)`
      : `known settings: ${CONTEXT_SETTINGS.map((k) => k.key).join(', ')}`,
  });
}

/** How a setting is shown in messages: secrets by name only, the others with their value. */
export function describeSetting(field: keyof ContextConfig, value: unknown): string {
  const key = CONTEXT_SETTINGS.find((k) => k.field === field)!;
  const name = key.alias ?? key.key;
  if (key.alias !== undefined) return name;
  return field === 'timeoutMs' ? `${name} ${Number(value) / 1000} s` : `${name} ${String(value)}`;
}

/** A context may authenticate one way: a bearer token, or a user with a password. */
export function checkAuth(context: ContextConfig): void {
  if (context.token !== undefined && context.username !== undefined) {
    throw new UsageError(
      'choose a bearer token (token-file) or basic authentication (username), not both',
      { hint: 'unset the other one: `ksctl context unset NAME token` or `... username password`' },
    );
  }
  if ((context.username === undefined) !== (context.password === undefined)) {
    throw new UsageError('username and password-file go together');
  }
}

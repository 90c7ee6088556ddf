/**
 * The actions of `ksctl context`: add, set and unset settings, rename, use, list, show and remove
 * stored contexts. Secrets come from files (or stdin) and are never shown.
 */
import { quoted } from '../../../common/text/words.js';
import {
  ENVIRONMENT_SETTINGS,
  environmentAuth,
  readSecretFile,
  readTokenFile,
  secondsToMs,
} from '../../config/settings.js';
import {
  CONTEXT_KEYS,
  contextNameProblem,
  type ConfigStore,
  type ContextConfig,
} from '../../config/store.js';
import { ConflictError, UsageError } from '../../../common/errors.js';
import type { CommandContext } from '../kit/command-context.js';
import { checkAuth, checkUrl, contextSetting, describeSetting } from './context-keys.js';

/** The settings `add` stores as given take their names and types from ContextConfig. */
export interface ContextAddOptions extends Pick<
  ContextConfig,
  'username' | 'apiUrl' | 'enrollmentUrl' | 'knsUrl' | 'keyspace' | 'persistor' | 'persistorPath'
> {
  baseUrl?: string;
  tokenFile?: string;
  passwordFile?: string;
  use?: boolean;
  force?: boolean;
}

export async function add(
  ctx: CommandContext,
  name: string,
  options: ContextAddOptions,
): Promise<void> {
  const problem = contextNameProblem(name);
  if (problem) throw new UsageError(`invalid context name ${quoted(name)}: ${problem}`);
  const store = await ctx.config();
  if (store.find(name) && !options.force) {
    throw new ConflictError(`context ${quoted(name)} already exists`, {
      hint: 'pass --force to replace it',
    });
  }
  const { baseUrl, tokenFile, timeout, caFile } = ctx.globals;
  for (const [url, flag] of [
    [baseUrl, '--base-url'],
    [options.apiUrl, '--api-url'],
    [options.enrollmentUrl, '--enrollment-url'],
    [options.knsUrl, '--kns-url'],
  ] as const) {
    checkUrl(url, flag);
  }
  if ((options.username === undefined) !== (options.passwordFile === undefined)) {
    throw new UsageError('--username and --password-file go together');
  }
  if (tokenFile !== undefined && options.username !== undefined) {
    throw new UsageError(
      'choose a bearer token (--token-file) or basic authentication (--username), not both',
    );
  }
  // Checked before the secrets are read: a context that names no service is refused here, not
  // stored to fail at its first use.
  if (
    [baseUrl, options.apiUrl, options.enrollmentUrl, options.knsUrl].every((u) => u === undefined)
  ) {
    throw new UsageError(`context ${quoted(name)} needs the URL of the service: --base-url URL`, {
      hint: 'the markings API: --base-url https://HOST/v2/TENANT; a context for enrollment alone may give --kns-url (or --api-url and --enrollment-url) instead',
    });
  }
  const context: ContextConfig = {
    baseUrl,
    token: tokenFile !== undefined ? await readTokenFile(tokenFile, ctx.io.stdin) : undefined,
    username: options.username,
    password:
      options.passwordFile !== undefined
        ? await readSecretFile(options.passwordFile, ctx.io.stdin, 'password')
        : undefined,
    timeoutMs: timeout !== undefined ? secondsToMs(timeout) : undefined,
    caFile: caFile !== undefined ? await checkedCaFile(caFile) : undefined,
    apiUrl: options.apiUrl,
    enrollmentUrl: options.enrollmentUrl,
    knsUrl: options.knsUrl,
    keyspace: options.keyspace,
    persistor: options.persistor,
    persistorPath: options.persistorPath,
  };
  const replaced = store.find(name);
  const stored = JSON.parse(JSON.stringify(context)) as ContextConfig;
  await store.set(name, stored);
  if (options.use || store.currentContext === undefined) await store.use(name);
  const current = store.currentContext === name ? ' (current)' : '';
  await ctx.outcome(contextSummary(store, name));
  if (replaced === undefined) {
    ctx.say(`added context ${name}${current}`);
    return;
  }
  // --force replaces the whole context: say what of the old one is gone or different.
  const lost = CONTEXT_KEYS.filter(
    (field) => replaced[field] !== undefined && replaced[field] !== stored[field],
  );
  ctx.warn(
    `replaced context ${name}${current}` +
      (lost.length === 0
        ? '.'
        : `; its previous ${lost.map((f) => describeSetting(f, replaced[f])).join(', ')} ${lost.length === 1 ? 'is' : 'are'} gone (\`ksctl context set\` changes single settings).`),
  );
}

export async function use(ctx: CommandContext, name: string): Promise<void> {
  const store = await ctx.config();
  await store.use(name);
  ctx.say(`switched to context ${name}`);
  await ctx.outcome(contextSummary(store, name));
}

function authKind(c: ContextConfig): string {
  if (c.token) return 'bearer token';
  if (c.username) return `basic (${c.username})`;
  return 'none';
}

/** A context as `context list -o json` shows it: what a command that changed it prints. */
function contextSummary(store: ConfigStore, name: string) {
  const c = store.get(name);
  return {
    name,
    current: name === store.currentContext,
    baseUrl: c.baseUrl ?? null,
    auth: authKind(c),
  };
}

export async function list(ctx: CommandContext): Promise<void> {
  const store = await ctx.config();
  const rows = store
    .names()
    .map((name) => ({ name, current: name === store.currentContext, ...store.get(name) }));
  await ctx.render({
    kind: 'table',
    data: rows.map((r) => ({
      name: r.name,
      current: r.current,
      baseUrl: r.baseUrl ?? null,
      auth: authKind(r),
    })),
    rows,
    empty: 'no contexts; add one with ksctl context add NAME --base-url URL --token-file FILE',
    columns: [
      { header: 'CURRENT', value: (r) => (r.current ? '*' : '') },
      { header: 'NAME', value: (r) => r.name, id: true },
      { header: 'BASE URL', value: (r) => r.baseUrl ?? '' },
      { header: 'AUTH', value: (r) => authKind(r) },
    ],
  });
}

export async function show(ctx: CommandContext, name: string | undefined): Promise<void> {
  const store = await ctx.config();
  const envContext = ctx.env.KSCTL_CONTEXT || undefined;
  const chosen = name ?? ctx.globals.context ?? envContext ?? store.currentContext;
  if (chosen === undefined) {
    throw new UsageError('there is no current context', {
      hint: 'add one with `ksctl context add`',
    });
  }
  const c = store.get(chosen);
  const { token: _token, password: _password, ...visible } = c;
  // What the environment sets wins over the context: each such setting names its variable.
  const overrides: Partial<Record<keyof ContextConfig | 'auth', string>> = {};
  for (const [field, variable] of Object.entries(ENVIRONMENT_SETTINGS)) {
    if (ctx.env[variable]) overrides[field as keyof ContextConfig] = variable;
  }
  const authVariable = environmentAuth(ctx.env);
  if (authVariable !== undefined) overrides.auth = authVariable;
  const shown = (field: keyof ContextConfig | 'auth', text: string): string => {
    const variable = overrides[field];
    if (variable === undefined) return text;
    return text === '' ? `none stored; ${variable} sets it` : `${text} (${variable} overrides it)`;
  };
  const byEnvironment = name === undefined && ctx.globals.context === undefined && !!envContext;
  const data = {
    name: chosen,
    current: chosen === store.currentContext,
    auth: authKind(c),
    ...visible,
    configFile: store.path,
    ...(byEnvironment ? { chosenBy: 'KSCTL_CONTEXT' } : {}),
    ...(Object.keys(overrides).length > 0 ? { overriddenBy: overrides } : {}),
  };
  await ctx.render({
    kind: 'record',
    data,
    fields: [
      ['Name', byEnvironment ? `${chosen} (from KSCTL_CONTEXT)` : chosen],
      ['Current', data.current ? 'yes' : 'no'],
      ['Base URL', shown('baseUrl', c.baseUrl ?? '')],
      ['Auth', shown('auth', authKind(c))],
      ['Timeout', shown('timeoutMs', c.timeoutMs !== undefined ? `${c.timeoutMs / 1000} s` : '')],
      ['CA file', shown('caFile', c.caFile ?? '')],
      ['API URL', shown('apiUrl', c.apiUrl ?? '')],
      ['Enrollment URL', shown('enrollmentUrl', c.enrollmentUrl ?? '')],
      ['KNS URL', shown('knsUrl', c.knsUrl ?? '')],
      ['Keyspace', shown('keyspace', c.keyspace ?? '')],
      ['Persistor', shown('persistor', c.persistor ?? '')],
      ['Persistor path', shown('persistorPath', c.persistorPath ?? '')],
      ['Config file', store.path],
    ],
  });
}

export async function remove(
  ctx: CommandContext,
  name: string,
  yes: boolean | undefined,
): Promise<void> {
  const store = await ctx.config();
  store.get(name);
  await ctx.confirm(`Remove context "${name}" and the credentials stored with it?`, yes);
  await store.remove(name);
  ctx.say(`removed context ${name}`);
  await ctx.outcome({ name, removed: true, current: store.currentContext ?? null });
}

/** `context set NAME KEY VALUE...`: changes single settings, keeping the others. */
export async function set(ctx: CommandContext, name: string, pairs: string[]): Promise<void> {
  if (pairs.length === 0 || pairs.length % 2 !== 0) {
    throw new UsageError('give settings as KEY VALUE pairs', {
      hint: 'ksctl context set NAME timeout 60 keyspace ABcd',
    });
  }
  const store = await ctx.config();
  const before = store.get(name);
  const keys: ReturnType<typeof contextSetting>[] = [];
  for (let i = 0; i < pairs.length; i += 2) {
    const key = contextSetting(pairs[i]!);
    if (keys.includes(key)) throw new UsageError(`${key.key} is given twice`);
    keys.push(key);
  }
  if (keys.filter((k) => k.key === 'token-file' || k.key === 'password-file').length > 1) {
    throw new UsageError('only one secret can be read per command (standard input is read once)');
  }
  const after: ContextConfig = { ...before };
  for (const [i, key] of keys.entries()) {
    (after as Record<string, unknown>)[key.field] = await key.parse(pairs[i * 2 + 1]!, ctx.io);
  }
  // A new way to authenticate replaces the other one, and says so.
  const setting = (field: keyof ContextConfig) => keys.some((k) => k.field === field);
  const dropped: (keyof ContextConfig)[] = [];
  if (setting('token') && !setting('username')) dropped.push('username', 'password');
  if (setting('username') && !setting('token')) dropped.push('token');
  const removed = dropped.filter((field) => after[field] !== undefined);
  for (const field of removed) delete after[field];
  checkAuth(after);
  await store.set(name, after);
  const changes = keys.map((k) => describeSetting(k.field, after[k.field]));
  ctx.say(
    `updated context ${name}: set ${changes.join(', ')}` +
      (removed.length > 0
        ? `; removed ${removed.map((f) => describeSetting(f, before[f])).join(', ')}`
        : ''),
  );
  await ctx.outcome(contextSummary(store, name));
}

/** `context unset NAME KEY...`: removes settings (a user and its password go together). */
export async function unset(ctx: CommandContext, name: string, names: string[]): Promise<void> {
  const store = await ctx.config();
  const before = store.get(name);
  const fields = new Set(names.map((n) => contextSetting(n, true).field));
  if (fields.has('username') || fields.has('password')) fields.add('username').add('password');
  const removed = CONTEXT_KEYS.filter((field) => fields.has(field) && before[field] !== undefined);
  if (removed.length === 0) {
    ctx.say(`context ${name} has none of these settings; nothing changed`);
    await ctx.outcome(contextSummary(store, name));
    return;
  }
  const after: ContextConfig = { ...before };
  for (const field of removed) delete after[field];
  await store.set(name, after);
  ctx.say(
    `updated context ${name}: removed ${removed.map((f) => describeSetting(f, before[f])).join(', ')}`,
  );
  await ctx.outcome(contextSummary(store, name));
}

/** `context rename OLD NEW`: the current context follows. */
export async function rename(ctx: CommandContext, from: string, to: string): Promise<void> {
  const store = await ctx.config();
  await store.rename(from, to);
  ctx.say(`renamed context ${from} to ${to}${store.currentContext === to ? ' (current)' : ''}`);
  await ctx.outcome(contextSummary(store, to));
}

/** `--ca-file` as `context add` stores it: checked to hold certificates, and absolute. */
async function checkedCaFile(path: string): Promise<string> {
  const [{ resolve }, { readCaFile }] = await Promise.all([
    import('node:path'),
    import('../../config/trust.js'),
  ]);
  await readCaFile(path, '--ca-file');
  return resolve(path);
}

import { readSecretFile, readTokenFile, secondsToMs } from '../../config/settings.js';
import type { ContextConfig } from '../../config/store.js';
import { ConflictError, UsageError } from '../../errors.js';
import type { CommandContext } from '../context.js';
import type { ContextAddOptions } from './context.js';

function checkUrl(url: string | undefined, flag: string): void {
  if (url === undefined) return;
  try {
    const { protocol } = new URL(url);
    if (protocol === 'http:' || protocol === 'https:') return;
  } catch {
    // reported below
  }
  throw new UsageError(`${flag} "${url}" is not an http(s) URL`);
}

export async function add(ctx: CommandContext, name: string, o: ContextAddOptions): Promise<void> {
  const store = await ctx.config();
  if (store.find(name) && !o.force) {
    throw new ConflictError(`context "${name}" already exists`, {
      hint: 'pass --force to replace it',
    });
  }
  const { baseUrl, tokenFile, timeout } = ctx.globals;
  for (const [url, flag] of [
    [baseUrl, '--base-url'],
    [o.apiUrl, '--api-url'],
    [o.enrollmentUrl, '--enrollment-url'],
    [o.knsUrl, '--kns-url'],
  ] as const) {
    checkUrl(url, flag);
  }
  if ((o.username === undefined) !== (o.passwordFile === undefined)) {
    throw new UsageError('--username and --password-file go together');
  }
  if (tokenFile !== undefined && o.username !== undefined) {
    throw new UsageError(
      'choose a bearer token (--token-file) or basic authentication (--username), not both',
    );
  }
  const context: ContextConfig = {
    baseUrl,
    token: tokenFile !== undefined ? await readTokenFile(tokenFile, ctx.io.stdin) : undefined,
    username: o.username,
    password:
      o.passwordFile !== undefined
        ? await readSecretFile(o.passwordFile, ctx.io.stdin, 'password')
        : undefined,
    timeoutMs: timeout !== undefined ? secondsToMs(timeout) : undefined,
    apiUrl: o.apiUrl,
    enrollmentUrl: o.enrollmentUrl,
    knsUrl: o.knsUrl,
    keyspace: o.keyspace,
    persistor: o.persistor,
    persistorPath: o.persistorPath,
  };
  await store.set(name, JSON.parse(JSON.stringify(context)) as ContextConfig);
  if (o.use || store.currentContext === undefined) await store.use(name);
  ctx.say(`Added context ${name}${store.currentContext === name ? ' (current)' : ''}.`);
}

export async function use(ctx: CommandContext, name: string): Promise<void> {
  await (await ctx.config()).use(name);
  ctx.say(`Switched to context ${name}.`);
}

function authKind(c: ContextConfig): string {
  if (c.token) return 'bearer token';
  if (c.username) return `basic (${c.username})`;
  return 'none';
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
    columns: [
      { header: 'CURRENT', value: (r) => (r.current ? '*' : '') },
      { header: 'NAME', value: (r) => r.name },
      { header: 'BASE URL', value: (r) => r.baseUrl ?? '' },
      { header: 'AUTH', value: (r) => authKind(r) },
    ],
  });
}

export async function show(ctx: CommandContext, name: string | undefined): Promise<void> {
  const store = await ctx.config();
  const chosen =
    name ?? ctx.globals.context ?? (ctx.env.KSCTL_CONTEXT || undefined) ?? store.currentContext;
  if (chosen === undefined) {
    throw new UsageError('there is no current context', {
      hint: 'add one with `ksctl context add`',
    });
  }
  const c = store.get(chosen);
  const { token: _token, password: _password, ...visible } = c;
  const data = {
    name: chosen,
    current: chosen === store.currentContext,
    auth: authKind(c),
    ...visible,
    configFile: store.path,
  };
  await ctx.render({
    kind: 'record',
    data,
    fields: [
      ['Name', chosen],
      ['Current', data.current ? 'yes' : 'no'],
      ['Base URL', c.baseUrl ?? ''],
      ['Auth', authKind(c)],
      ['Timeout', c.timeoutMs !== undefined ? `${c.timeoutMs / 1000} s` : ''],
      ['API URL', c.apiUrl ?? ''],
      ['Enrollment URL', c.enrollmentUrl ?? ''],
      ['KNS URL', c.knsUrl ?? ''],
      ['Keyspace', c.keyspace ?? ''],
      ['Persistor', c.persistor ?? ''],
      ['Persistor path', c.persistorPath ?? ''],
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
  ctx.say(`Removed context ${name}.`);
}

import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ApiClient } from '../../api/client.js';
import type {
  FaultRule,
  JournalEntry,
  MockInfo,
  MockUserInfo,
  RequestJournal,
  TokenPair,
} from '../../api/wire.js';
import { InputError, KsctlError, UsageError } from '../../errors.js';
import { writeFileAtomic } from '../../files/atomic-write.js';
import { ensureDirectory } from '../../files/directories.js';
import { errnoCode, fileError } from '../../files/fs-errors.js';
import type { CommandContext } from '../context.js';
import type { DeviceRecord, OutboxMessage } from '../../mock/enrollment/state.js';
import type { Column } from '../../output/render.js';
import type { OutboxOptions, RequestsOptions, ServeOptions, TokensOptions } from './mock.js';

export const MOCK_CONTEXT = 'mock';

/** Users listed in the banner; a large seed is summarised. */
const BANNER_USERS = 8;

function userLine(user: MockUserInfo): string {
  const facts = [
    user.enabled ? 'enabled' : 'disabled: enrolling fails with 40101',
    user.password === undefined ? undefined : `password ${user.password}`,
    user.email,
  ].filter((fact) => fact !== undefined);
  return `${user.name} (${facts.join(', ')})`;
}

function usersSection(users: MockUserInfo[]): string {
  if (users.length === 0) return '';
  const lines = users.slice(0, BANNER_USERS).map(userLine);
  if (users.length > BANNER_USERS) lines.push(`… and ${users.length - BANNER_USERS} more`);
  const signIn = users.find((u) => u.enabled && u.password !== undefined) ?? users[0]!;
  const indent = `\n${' '.repeat(19)}`;
  const ways: [command: string, note: string][] = [
    [`ksctl enroll --mock-user ${signIn.name}`, 'a fresh token pair'],
    [
      `ksctl enroll --username ${signIn.name} --password-file F`,
      'portal sign-in, F holds the password',
    ],
    ...(signIn.email === undefined
      ? []
      : [
          [`ksctl enroll --email ${signIn.email}`, 'the code: ksctl mock outbox'] as [
            string,
            string,
          ],
        ]),
  ];
  const width = Math.max(...ways.map(([command]) => command.length));
  const enroll = ways.map(([command, note]) => `${command.padEnd(width)}  # ${note}`);
  return `  Users:           ${lines.join(indent)}\n  Enroll as one:   ${enroll.join(indent)}\n`;
}

/** Where the state lives, for the banner's first lines. */
function stateNote(o: ServeOptions, restored: boolean): string {
  if (o.state === undefined) return 'its state lives in memory.';
  if (!restored) {
    return `its state is kept in ${o.state}\n(a new state${o.seed ? ', seeded from ' + o.seed : ''}: restarts with --state ${o.state} continue from here).`;
  }
  const seedNote = o.seed
    ? `; --seed applies only to a new state, or after \`ksctl mock reset\``
    : '';
  return `its state is kept in ${o.state}\n(restored${seedNote}).`;
}

function banner(info: MockInfo, contextNote: string, state: string): string {
  return `ksctl mock service is running. Press Ctrl-C to stop it; ${state}

  URL:             ${info.url}
  Markings API:    ${info.baseUrl}
  Enrollment API:  ${info.apiUrl}
  Enrollment URL:  ${info.enrollmentUrl}
  Key naming:      ${info.knsUrl}
  Tenant:          ${info.tenantId}
  Keyspace:        ${info.keyspace}
  Dev token:       ${info.token}
${usersSection(info.users)}
${contextNote}
For other shells and tools:

  export KSCTL_BASE_URL='${info.baseUrl}'
  export KSCTL_TOKEN='${info.token}'
`;
}

/** Adds or refreshes the `mock` context; makes it current unless another context is. */
async function refreshContext(ctx: CommandContext, info: MockInfo): Promise<string> {
  const store = await ctx.config();
  await store.set(MOCK_CONTEXT, {
    ...store.find(MOCK_CONTEXT),
    baseUrl: info.baseUrl,
    token: info.token,
    apiUrl: info.apiUrl,
    enrollmentUrl: info.enrollmentUrl,
    knsUrl: info.knsUrl,
    keyspace: info.keyspace,
  });
  const current = store.currentContext;
  if (current === undefined || current === MOCK_CONTEXT) {
    await store.use(MOCK_CONTEXT);
    return `The context "${MOCK_CONTEXT}" is current and points here, so in another terminal:\n\n  ksctl markings list\n`;
  }
  return `The context "${MOCK_CONTEXT}" points here (the current one is "${current}"):\n\n  ksctl --context ${MOCK_CONTEXT} markings list\n`;
}

/**
 * Fault rules given on the command line: a bad one is a usage error (exit 2), as any bad argument
 * is; the same rule in a seed file or a request body is invalid input (exit 3).
 */
async function faultRulesFromArguments(
  texts: string[],
  message: (text: string, problem: string) => string,
): Promise<FaultRule[]> {
  const { parseFaultText } = await import('../../mock/admin/faults.js');
  return texts.map((text) => {
    const rule = parseFaultText(text);
    if (typeof rule === 'string') throw new UsageError(message(text, rule));
    return rule;
  });
}

/**
 * Makes sure the ready file can be written once the server listens, before anything happens: a
 * failure then would leave the `mock` context pointing at a server that is gone. Creates the
 * missing parent directories, as the write itself would.
 */
async function prepareReadyFile(path: string): Promise<void> {
  const dir = dirname(path);
  await ensureDirectory(dir, 0o755);
  let isDirectory = false;
  try {
    isDirectory = (await stat(path)).isDirectory();
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw fileError('write', path, error);
  }
  if (isDirectory) {
    throw new InputError(`cannot write the ready file ${path}: it is a directory`, {
      hint: 'name a file, for example ready.json inside that directory',
    });
  }
  try {
    await access(dir, constants.W_OK);
  } catch (error) {
    throw fileError('write', path, error);
  }
}

export async function serve(ctx: CommandContext, o: ServeOptions): Promise<void> {
  const [{ MockServer }, { parseLatency }, { readSeedFile }] = await Promise.all([
    import('../../mock/server.js'),
    import('../../mock/admin/faults.js'),
    import('../../mock/state/seed.js'),
  ]);
  const latency = o.latency === undefined ? undefined : parseLatency(o.latency);
  if (o.latency !== undefined && !latency) {
    throw new UsageError(`--latency "${o.latency}" is not MS or MIN-MAX`);
  }
  const faults = await faultRulesFromArguments(
    o.fault ?? [],
    (text, problem) => `--fault "${text}": ${problem}`,
  );
  const seed = o.seed === undefined ? undefined : await readSeedFile(o.seed);
  if (o.readyFile) await prepareReadyFile(o.readyFile);
  let server: Awaited<ReturnType<typeof MockServer.start>>;
  try {
    server = await MockServer.start({
      host: o.host,
      port: o.port,
      devToken: o.devToken,
      stateDir: o.state,
      // Not silenced by --quiet: it tells of something skipped in the user's data.
      onWarning: (message) => ctx.io.stderr.write(`warning: ${message}\n`),
      seed,
      latency,
      faults: faults.length > 0 ? faults : undefined,
      onRequest: o.log
        ? (r) => ctx.say(`${r.method} ${r.path} ${r.status} ${r.durationMs} ms`)
        : undefined,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new UsageError(`port ${o.port} on ${o.host} is already in use`, {
        hint: 'pick another with --port, or --port 0 for any free port',
      });
    }
    // Only listen's own EACCES is about the address: a state file's is named as a file below.
    const listening = (error as NodeJS.ErrnoException).syscall === 'listen';
    if (listening && (code === 'EADDRNOTAVAIL' || code === 'EACCES')) {
      throw new UsageError(`cannot listen on ${o.host}:${o.port} (${code})`);
    }
    if (o.state !== undefined && code !== undefined && !(error instanceof KsctlError)) {
      throw fileError('use the state directory', o.state, error);
    }
    throw error;
  }
  try {
    const info = server.info;
    const note = o.context ? await refreshContext(ctx, info) : '';
    if (o.json) ctx.io.stdout.write(`${JSON.stringify(info)}\n`);
    else ctx.say(banner(info, note, stateNote(o, server.durable?.fresh === false)));
    // The ready file comes last: whoever waits for it may rely on everything above having happened.
    if (o.readyFile) await writeFileAtomic(o.readyFile, `${JSON.stringify(info, null, 2)}\n`);
  } catch (error) {
    await server.close();
    throw error;
  }

  ctx.stopsGracefully();
  const stopKeepingAlive = keepServingOnStrayErrors(ctx);
  try {
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    ctx.say('stopping: finishing requests in flight…');
    await server.close();
    ctx.say('stopped');
  } finally {
    stopKeepingAlive();
  }
}

/**
 * The last resort of DESIGN.md 3.2.1: the server answers every failure of a request itself, but
 * an error that escapes it (a stray callback, a promise nobody awaits) is logged, without its
 * stack or data that could hold secrets, and the mock keeps serving instead of dying.
 */
function keepServingOnStrayErrors(ctx: CommandContext): () => void {
  const log = (kind: string) => (error: unknown) => {
    const e = error instanceof Error ? error : new Error(String(error));
    const code = (e as NodeJS.ErrnoException).code;
    const message = (e.message.split('\n')[0] ?? '').slice(0, 200);
    ctx.io.stderr.write(
      `ksctl mock: ${kind} (${e.name}${code ? ` ${code}` : ''}: ${message}); still serving\n`,
    );
  };
  const onException = log('internal error');
  const onRejection = log('internal error in a promise');
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}

/**
 * A client for a running mock's `/_mock` endpoints, at the root of its URL. Without an explicit
 * --context, --base-url or KSCTL_BASE_URL, the `mock` context that `mock serve` maintains is used.
 */
async function adminClient(ctx: CommandContext): Promise<ApiClient> {
  const givenUrl = ctx.globals.baseUrl ?? (ctx.env.KSCTL_BASE_URL || undefined);
  const explicit = ctx.globals.context ?? givenUrl ?? (ctx.env.KSCTL_CONTEXT || undefined);
  if (explicit === undefined && (await ctx.config()).find(MOCK_CONTEXT))
    ctx.globals.context = MOCK_CONTEXT;
  const connection = await ctx.connection();
  // A URL from the flag or the environment outranks everything in the context (DESIGN.md 5).
  const contextRoot = givenUrl === undefined ? connection.context.apiUrl : undefined;
  return ctx.client({ ...connection, baseUrl: contextRoot ?? new URL(connection.baseUrl).origin });
}

/** A GET of a running mock's admin endpoint, its JSON answer. */
async function adminGet<T>(ctx: CommandContext, path: string, what: string): Promise<T> {
  const client = await adminClient(ctx);
  return (await client.request<T>('GET', path, { what })).body;
}

export async function tokens(ctx: CommandContext, o: TokensOptions): Promise<void> {
  const client = await adminClient(ctx);
  const { body } = await client.request<TokenPair>('POST', '/_mock/tokens', {
    body: { user: o.user, keyspace: o.keyspace },
    what: 'mint tokens',
  });
  const format = ctx.format();
  if (format === 'table') {
    // Shell-friendly: `eval "$(ksctl mock tokens --user alice)"` exports both for `ksctl enroll`
    // (the tokens are Base64url and `I.`/`,I` prefixes: nothing in them needs quoting but quotes).
    ctx.io.stdout.write(
      `export KSCTL_STOKEN='${body.stoken}'\nexport KSCTL_UIDAUTH='${body.uidauth}'\n`,
    );
    if (ctx.io.stdoutIsTTY) ctx.say('single use: eval this output before `ksctl enroll`');
    return;
  }
  await ctx.render({ kind: 'text', data: body, text: '' });
}

export async function faultsList(ctx: CommandContext): Promise<void> {
  await renderFaults(ctx, await adminGet<FaultRule[]>(ctx, '/_mock/faults', 'list faults'));
}

export async function faultsSet(ctx: CommandContext, texts: string[]): Promise<void> {
  const rules = await faultRulesFromArguments(
    texts,
    (text, problem) => `fault rule "${text}": ${problem}; nothing was sent`,
  );
  const client = await adminClient(ctx);
  const { body } = await client.request<FaultRule[]>('PUT', '/_mock/faults', {
    body: rules,
    what: 'set faults',
  });
  ctx.say(
    rules.length === 0
      ? 'cleared the fault rules'
      : `set ${rules.length} fault rule${rules.length === 1 ? '' : 's'}`,
  );
  await renderFaults(ctx, body);
}

async function renderFaults(ctx: CommandContext, rules: FaultRule[]): Promise<void> {
  await ctx.render({
    kind: 'table',
    data: rules,
    rows: rules,
    empty: 'no fault rules',
    columns: [
      { header: 'METHOD', value: (r) => r.method ?? '*' },
      { header: 'PATH', value: (r) => r.path ?? '*' },
      { header: 'STATUS', value: (r) => r.status ?? '' },
      { header: 'CODE', value: (r) => r.code ?? '' },
      { header: 'PROBABILITY', value: (r) => r.probability ?? 1 },
      { header: 'TIMES LEFT', value: (r) => r.times ?? 'unlimited' },
    ],
  });
}

export async function reset(ctx: CommandContext, yes: boolean | undefined): Promise<void> {
  const client = await adminClient(ctx);
  await ctx.confirm(
    `Reset the mock at ${client.baseUrl}? Everything created since it started is lost`,
    yes,
  );
  await client.request('POST', '/_mock/reset', { what: 'reset the mock' });
  ctx.say('the mock is back to its start-up state');
}

export async function outbox(ctx: CommandContext, o: OutboxOptions): Promise<void> {
  const body = await adminGet<OutboxMessage[]>(ctx, '/_mock/outbox', 'read the outbox');
  const wanted = o.to?.trim().toLowerCase();
  const messages = wanted === undefined ? body : body.filter((m) => m.to.toLowerCase() === wanted);
  await ctx.render({
    kind: 'table',
    data: messages,
    rows: messages,
    columns: [
      { header: 'TIME', value: (m) => m.time },
      { header: 'TO', value: (m) => m.to },
      { header: 'KEYSPACE', value: (m) => m.keyspace },
      { header: 'CODE', value: (m) => m.code },
    ],
  });
}

export async function devices(ctx: CommandContext): Promise<void> {
  const body = await adminGet<DeviceRecord[]>(ctx, '/_mock/devices', 'list devices');
  await ctx.render({
    kind: 'table',
    data: body,
    rows: body,
    columns: [
      { header: 'DEVICE ID', value: (d) => d.deviceId },
      { header: 'USER', value: (d) => d.user },
      { header: 'KEYSPACE', value: (d) => d.keyspace },
      { header: 'TENANT', value: (d) => d.tenant },
      { header: 'CREATED', value: (d) => d.createdAt },
    ],
  });
}

const REQUEST_COLUMNS: Column<JournalEntry>[] = [
  { header: 'TIME', value: (r) => r.time },
  { header: 'METHOD', value: (r) => r.method },
  { header: 'PATH', value: (r) => r.path },
  { header: 'STATUS', value: (r) => r.status },
  { header: 'MS', value: (r) => r.durationMs },
  { header: 'BYTES', value: (r) => r.requestBytes },
  { header: 'CID', value: (r) => r.cid },
];

/**
 * The journal since `seen` (a running count of requests): the new entries the mock still holds.
 * The admin endpoints are left out unless asked for (following polls one of them).
 */
function newEntries(journal: RequestJournal, seen: number, admin: boolean): JournalEntry[] {
  const fresh = Math.min(journal.total - seen, journal.requests.length);
  const entries = fresh > 0 ? journal.requests.slice(-fresh) : [];
  return admin ? entries : entries.filter((r) => !r.path.startsWith('/_mock/'));
}

export async function requests(ctx: CommandContext, o: RequestsOptions): Promise<void> {
  const client = await adminClient(ctx);
  const read = async () =>
    (await client.request<RequestJournal>('GET', '/_mock/requests', { what: 'read the journal' }))
      .body;
  const first = await read();
  const shown = newEntries(first, 0, o.admin === true);
  const tail = o.tail === 0 ? [] : shown.slice(-o.tail);
  if (!o.follow) {
    await ctx.render({ kind: 'table', data: tail, rows: tail, columns: REQUEST_COLUMNS });
    return;
  }
  ctx.stopsGracefully();
  const print = await followPrinter(ctx);
  print(tail);
  let seen = first.total;
  while (!ctx.signal.aborted) {
    await abortableSleep(o.interval, ctx.signal);
    if (ctx.signal.aborted) break;
    const journal = await read();
    // A reset starts the count again: everything it holds is new.
    if (journal.total < seen) seen = 0;
    print(newEntries(journal, seen, o.admin === true));
    seen = journal.total;
  }
}

/**
 * Entries as they arrive: one JSON object per line with -o json, one YAML document each with
 * -o yaml, aligned columns on a terminal, tab-separated lines when piped.
 */
async function followPrinter(ctx: CommandContext): Promise<(entries: JournalEntry[]) => void> {
  const format = ctx.format();
  const write = (text: string) => ctx.io.stdout.write(text);
  if (format === 'json') {
    return (entries) => {
      for (const entry of entries) write(`${JSON.stringify(entry)}\n`);
    };
  }
  if (format === 'yaml') {
    const { stringify } = await import('yaml');
    return (entries) => {
      for (const entry of entries) write(`---\n${stringify(entry)}`);
    };
  }
  if (!ctx.io.stdoutIsTTY) {
    return (entries) => {
      for (const entry of entries)
        write(`${REQUEST_COLUMNS.map((c) => String(c.value(entry))).join('\t')}\n`);
    };
  }
  const widths = [24, 7, 48, 6, 8, 9];
  const line = (cells: string[]) =>
    `${cells.map((cell, i) => (i < widths.length ? cell.padEnd(widths[i]!) : cell)).join(' ')}\n`;
  write(line(REQUEST_COLUMNS.map((c) => c.header)));
  return (entries) => {
    for (const entry of entries) write(line(REQUEST_COLUMNS.map((c) => String(c.value(entry)))));
  };
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The commands that talk to a running mock's `/_mock` endpoints: tokens, faults, reset, outbox,
 * devices, requests (with --follow) and console.
 */
import type { ApiClient } from '../../api/client.js';
import type { TokenPair } from '../../../common/enrollment/wire.js';
import type {
  FaultRule,
  JournalEntry,
  JournalEntryWithBodies,
  RequestDetail,
} from '../../../common/mock/wire.js';
import { NotFoundError, UsageError } from '../../../common/errors.js';
import { sleepUntilAborted } from '../../../common/sleep.js';
import type { CommandContext } from '../kit/command-context.js';
import { MOCK_CONTEXT } from '../../config/store.js';
import type { MockDeviceMessages } from '../../../common/device/wire.js';
import type { DeviceRecord, OutboxMessage } from '../../usecases/mock.js';
import { type Column, isoCell } from '../../output/render.js';

export interface TokensOptions {
  user: string;
  keyspace?: string;
}

export interface RequestsOptions {
  follow?: boolean;
  tail: number;
  admin?: boolean;
  bodies?: boolean;
  interval: number;
}

export interface ConsoleOptions {
  /** Print the link, never open it. */
  print?: boolean;
}

export interface OutboxOptions {
  to?: string;
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
  // A URL from the flag or the environment outranks everything in the context (docs/design.md 5).
  const contextRoot = givenUrl === undefined ? connection.context.apiUrl : undefined;
  return ctx.client(
    { ...connection, baseUrl: contextRoot ?? new URL(connection.baseUrl).origin },
    { markingsBase: false },
  );
}

/** A GET of a running mock's admin endpoint, its JSON answer. */
async function adminGet<T>(ctx: CommandContext, path: string, what: string): Promise<T> {
  const client = await adminClient(ctx);
  return (await client.request<T>('GET', path, { what })).body;
}

export async function tokens(ctx: CommandContext, options: TokensOptions): Promise<void> {
  const client = await adminClient(ctx);
  const { body } = await client.request<TokenPair>('POST', '/_mock/tokens', {
    body: { user: options.user, keyspace: options.keyspace },
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

/**
 * A fresh sign-in link of the mock's console, opened in the browser where there is one, else
 * printed on stdout (alone on its line, for `$(ksctl mock console --print)`).
 */
export async function consoleLink(ctx: CommandContext, options: ConsoleOptions): Promise<void> {
  const client = await adminClient(ctx);
  let consoleUrl: string;
  try {
    ({ consoleUrl } = (
      await client.request<{ consoleUrl: string }>('POST', '/_mock/console/links', {
        what: 'make a console link',
      })
    ).body);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    throw new NotFoundError(`the mock at ${client.baseUrl} serves no console`, {
      hint: 'it was started with --no-console, or is an older ksctl: restart it without',
    });
  }
  if (!options.print) {
    const { canOpenBrowser, openBrowser } = await import('../kit/browser.js');
    if (canOpenBrowser(ctx.env) && (await openBrowser(consoleUrl, ctx.env))) {
      ctx.say('opened the console in your browser (the link signs in once)');
      await ctx.outcome({ consoleUrl, opened: true });
      return;
    }
  }
  if (ctx.format() === 'table') ctx.io.stdout.write(`${consoleUrl}\n`);
  else await ctx.outcome({ consoleUrl, opened: false });
  if (!options.print && ctx.io.stdoutIsTTY) {
    ctx.say('open it in a browser: it signs in once (and expires unused after a day)');
  }
}

export async function faultsList(ctx: CommandContext): Promise<void> {
  await renderFaults(ctx, await adminGet<FaultRule[]>(ctx, '/_mock/faults', 'list faults'));
}

export async function faultsSet(ctx: CommandContext, texts: string[]): Promise<void> {
  const { faultRulesFromArguments } = await import('../../usecases/mock.js');
  const rules = faultRulesFromArguments(
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
  await ctx.outcome({ url: client.baseUrl, reset: true });
}

export async function outbox(ctx: CommandContext, options: OutboxOptions): Promise<void> {
  const body = await adminGet<OutboxMessage[]>(ctx, '/_mock/outbox', 'read the outbox');
  const wanted = options.to?.trim().toLowerCase();
  const messages = wanted === undefined ? body : body.filter((m) => m.to.toLowerCase() === wanted);
  await ctx.render({
    kind: 'table',
    data: messages,
    rows: messages,
    empty: wanted === undefined ? 'no messages in the outbox' : `no messages to ${options.to}`,
    columns: [
      { header: 'TIME', value: (m) => isoCell(m.time) },
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
    empty: 'no enrolled devices',
    columns: [
      { header: 'DEVICE ID', value: (d) => d.deviceId },
      { header: 'USER', value: (d) => d.user },
      { header: 'KEYSPACE', value: (d) => d.keyspace },
      { header: 'TENANT', value: (d) => d.tenant },
      { header: 'CREATED', value: (d) => isoCell(d.createdAt) },
    ],
  });
}

/** Piped, every column in this order; on a terminal the path is never cut, the cid is --wide. */
export async function messages(ctx: CommandContext): Promise<void> {
  const body = await adminGet<MockDeviceMessages>(ctx, '/_mock/messages', 'list device messages');
  await ctx.render({
    kind: 'table',
    data: body.messages,
    rows: body.messages,
    empty: 'no device has logged a message',
    columns: [
      { header: 'TIME', value: (m) => isoCell(m.time) },
      { header: 'DEVICE ID', value: (m) => m.deviceId },
      { header: 'TYPE', value: (m) => m.type },
      { header: 'DATA', value: (m) => JSON.stringify(m.data) },
    ],
  });
}

const REQUEST_COLUMNS: Column<JournalEntry>[] = [
  { header: 'TIME', value: (r) => isoCell(r.time) },
  { header: 'METHOD', value: (r) => r.method },
  { header: 'PATH', value: (r) => r.path, id: true },
  { header: 'STATUS', value: (r) => r.status },
  { header: 'MS', value: (r) => r.durationMs },
  { header: 'BYTES', value: (r) => r.requestBytes },
  { header: 'CID', value: (r) => r.cid, wide: true },
  // Last, so scripts that read the columns before it by position keep working.
  { header: 'ID', value: (r) => r.id },
];

/** A page of the journal, as `GET /_mock/requests` gives it (`?bodies=true`: with messages). */
interface JournalPage<T extends JournalEntry> {
  total: number;
  requests: T[];
  /** The path and query of the next page, when more entries match. */
  next?: string;
}

/**
 * The journal a page at a time (the mock pages it, with or without bodies): the last `tail`
 * entries shown, paging back from the newest as far as they need, and then, to follow it, the
 * entries after the last one seen (ids only grow, across resets too). The admin endpoints are
 * left out unless asked for (following polls one of them).
 */
async function journalReader<T extends JournalEntry>(
  ctx: CommandContext,
  options: RequestsOptions,
) {
  const client = await adminClient(ctx);
  const journalPath = (params: Record<string, string>) => {
    const query = new URLSearchParams(options.bodies ? { bodies: 'true', ...params } : params);
    return `/_mock/requests${query.size > 0 ? `?${query.toString()}` : ''}`;
  };
  const read = async (path: string) =>
    (await client.request<JournalPage<T>>('GET', path, { what: 'read the journal' })).body;
  const shown = (entries: T[]) =>
    options.admin === true ? entries : entries.filter((r) => !r.path.startsWith('/_mock/'));
  let last = 0;
  return {
    /** The last `options.tail` entries shown, oldest first. */
    async tail(): Promise<T[]> {
      let entries: T[] = [];
      let path: string | undefined = journalPath(options.tail === 0 ? { limit: '1' } : {});
      let first = true;
      while (path !== undefined) {
        const page = await read(path);
        if (first) last = page.requests.at(-1)?.id ?? 0;
        first = false;
        entries = [...shown(page.requests), ...entries];
        path = entries.length < options.tail ? page.next : undefined;
      }
      return options.tail === 0 ? [] : entries.slice(-options.tail);
    },
    /** Prints the entries after the last one seen, as they come, until Ctrl-C. */
    async follow(print: (entries: T[]) => void): Promise<void> {
      let next: string | undefined;
      while (!ctx.signal.aborted) {
        // A page that names a next one is followed at once; the newest is polled for.
        if (next === undefined) await sleepUntilAborted(options.interval, ctx.signal);
        if (ctx.signal.aborted) break;
        const page = await read(next ?? journalPath({ after: String(last) }));
        print(shown(page.requests));
        last = page.requests.at(-1)?.id ?? last;
        next = page.next;
      }
    },
  };
}

export async function requests(ctx: CommandContext, options: RequestsOptions): Promise<void> {
  if (options.bodies) return requestsWithBodies(ctx, options);
  const journal = await journalReader<JournalEntry>(ctx, options);
  const tail = await journal.tail();
  if (!options.follow) {
    await ctx.render({
      kind: 'table',
      data: tail,
      rows: tail,
      columns: REQUEST_COLUMNS,
      empty: 'no requests yet',
    });
    return;
  }
  ctx.stopsGracefully();
  const print = await followPrinter(ctx);
  print(tail);
  await journal.follow(print);
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
        write(
          `${[entry.time, ...REQUEST_COLUMNS.slice(1).map((c) => String(c.value(entry)))].join('\t')}\n`,
        );
    };
  }
  // One line a request at 80 columns: the clock time (relative times say "just now" to every
  // row), short columns of fixed width, the path last and whole; bytes and cid with --wide.
  const wide = ctx.globals.wide === true;
  const clock = (iso: string) =>
    Number.isNaN(Date.parse(iso)) ? iso : new Date(iso).toTimeString().slice(0, 8);
  const widths = [8, 6, 6, 5];
  const line = (cells: string[]) =>
    `${cells.map((cell, i) => (i < widths.length ? cell.padEnd(widths[i]!) : cell)).join('  ')}\n`;
  const cells = (r: JournalEntry) => [
    clock(r.time),
    r.method,
    String(r.status),
    String(Math.round(r.durationMs)),
    r.path,
    ...(wide ? [String(r.requestBytes), r.cid] : []),
  ];
  write(line(['TIME', 'METHOD', 'STATUS', 'MS', 'PATH', ...(wide ? ['BYTES', 'CID'] : [])]));
  return (entries) => {
    for (const entry of entries) write(line(cells(entry)));
  };
}

/**
 * `--bodies`: each request with its headers and bodies, as text blocks on a terminal and in full
 * with -o json|yaml. Following asks for the requests after the last one shown (ids only grow,
 * across resets too).
 */
async function requestsWithBodies(ctx: CommandContext, options: RequestsOptions): Promise<void> {
  const journal = await journalReader<JournalEntryWithBodies>(ctx, options);
  const tail = await journal.tail();
  const { requestText, textFit } = await import('../../output/requests.js');
  // Within the terminal, or 80 columns in a pipe; -o json and -o yaml are the data, whole.
  const to = await textFit(ctx.io.columns);
  if (!options.follow) {
    if (tail.length === 0 && ctx.format() === 'table') {
      ctx.say('no requests yet');
      return;
    }
    await ctx.render({
      kind: 'text',
      data: tail,
      text: tail.map((entry) => `${requestText(entry, to)}\n`).join('\n'),
    });
    return;
  }
  ctx.stopsGracefully();
  const format = ctx.format();
  const write = (text: string) => ctx.io.stdout.write(text);
  const { stringify } = format === 'yaml' ? await import('yaml') : { stringify: undefined };
  const print = (list: JournalEntryWithBodies[]) => {
    for (const entry of list) {
      if (format === 'json') write(`${JSON.stringify(entry)}\n`);
      else if (stringify) write(`---\n${stringify(entry)}`);
      else write(`${requestText(entry, to)}\n\n`);
    }
  };
  print(tail);
  await journal.follow(print);
}

/** `mock requests show ID`: one request described, its envelopes opened by the mock. */
export async function requestShow(ctx: CommandContext, id: string): Promise<void> {
  if (!/^\d{1,15}$/.test(id) || Number(id) === 0) {
    throw new UsageError(
      `a request id is a whole number from 1 (the ID column of ksctl mock requests), not "${id.slice(0, 50)}"`,
    );
  }
  const detail = await adminGet<RequestDetail>(
    ctx,
    `/_mock/requests/${id}`,
    `describe request ${id}`,
  );
  const { requestDetailText, textFit } = await import('../../output/requests.js');
  // Within the terminal, or 80 columns in a pipe: the lines to send it again break with ` \`
  // and still run as they are; -o json has each whole.
  const to = await textFit(ctx.io.columns);
  await ctx.render({ kind: 'text', data: detail, text: requestDetailText(detail, to) });
}

/**
 * `ksctl mock serve`: runs the embedded mock until Ctrl-C, prints how to reach it (a banner, or
 * JSON), keeps the `mock` context pointing at it, and writes the ready file last.
 */
import { constants } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { MockServer, TlsIdentity } from '../../usecases/mock.js';
import type { MockInfo, MockUserInfo } from '../../../common/mock/wire.js';
import { InputError, NotFoundError, UsageError } from '../../../common/errors.js';
import { writeFileAtomic } from '../../../common/files/atomic-write.js';
import { ensureDirectory } from '../../../common/files/directories.js';
import { errnoCode, fileError } from '../../../common/files/fs-errors.js';
import type { CommandContext } from '../kit/command-context.js';
import { fill, proseWidth, wrapCommand, wrapLines } from '../../../common/text/wrap.js';
import { type ConfigStore, MOCK_CONTEXT } from '../../config/store.js';

export interface ServeOptions {
  host: string;
  port: number;
  seed?: string;
  state?: string;
  devToken?: string;
  latency?: string;
  fault?: string[];
  json?: boolean;
  readyFile?: string;
  context: boolean;
  log: boolean;
  /** Answer browsers' cross-origin requests (--no-cors turns it off). */
  cors: boolean;
  /** Serve the console at /_mock/console/ (--no-console turns it off). */
  console: boolean;
  /** HTTPS with the mock's local CA (or with --tls-cert and --tls-key). */
  tls?: boolean;
  /** More names for the local CA's server certificate (repeatable). */
  tlsName?: string[];
  tlsCert?: string;
  tlsKey?: string;
}

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
  const longest = Math.max(...ways.map(([command]) => command.length));
  // Notes aligned when every line fits 80 columns; else each right after its command (and on a
  // line of its own under it where the two do not fit: fitBanner says).
  const aligned = ways.every(([, note]) => 19 + longest + 4 + note.length <= 80);
  const enroll = ways.map(
    ([command, note]) => `${aligned ? command.padEnd(longest) : command}  # ${note}`,
  );
  return `  Users:           ${lines.join(indent)}\n  Enroll as one:   ${enroll.join(indent)}\n`;
}

/** A command line of the banner: what may be copied to a shell (not prose that names one). */
const BANNER_COMMAND = /^(ksctl|curl|keytool|export|java) /;

/**
 * The banner within `width`, in a pipe as on a terminal: a line that fits stays as it is; a
 * command beside its label breaks with ` \` under itself, so it still runs when copied; a
 * command's note (`# …`) goes under it; anything else goes on under its text.
 */
export function fitBanner(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if (line.length <= width) return [line];
      // The column where the value starts: after "  Label:   ", or under it.
      const lead = /^( *)(?:[A-Za-z][A-Za-z ]{0,20}: +)?/.exec(line)![0];
      const value = line.slice(lead.length);
      const pad = ' '.repeat(lead.length);
      const noted = /^(.*?) {2}(# .*)$/.exec(value);
      const command = noted?.[1] ?? value;
      // A line of prose may start with a command's name; a command is indented. Beside a label
      // in a narrow terminal, a command goes on between words as prose does, its words whole.
      if (lead.length === 0 || !BANNER_COMMAND.test(command) || width - lead.length < 40) {
        return wrapLines(line, width).split('\n');
      }
      const lines = wrapCommand(pad + command, width, { pairs: true, split: true });
      lines[0] = lead + lines[0]!.slice(lead.length);
      if (noted) {
        const note = fill(noted[2]!, width, { first: `${pad}  `, rest: `${pad}    ` });
        const last = lines.at(-1)!;
        if (last.length + 2 + noted[2]!.length <= width)
          lines[lines.length - 1] = `${last}  ${noted[2]}`;
        else lines.push(...note);
      }
      return lines;
    })
    .join('\n');
}

/** Where the state lives, for the banner's first lines. */
function stateNote(options: ServeOptions, restored: boolean): string {
  if (options.state === undefined) return 'its state lives in memory.';
  if (!restored) {
    return `its state is kept in ${options.state}\n(a new state${options.seed ? ', seeded from ' + options.seed : ''}: restarts with --state ${options.state} continue from here).`;
  }
  const seedNote = options.seed
    ? `; --seed applies only to a new state, or after \`ksctl mock reset\``
    : '';
  return `its state is kept in ${options.state}\n(restored${seedNote}).`;
}

function consoleSection(info: MockInfo): string {
  if (info.consoleUrl === undefined) return '';
  // The link on a line of its own: beside its label it would run past 80 columns.
  return `  Console:         signs one browser in; another link: ksctl mock console\n    ${info.consoleUrl}\n`;
}

/**
 * What the banner starts with when the mock listens beyond this machine: who can use what, and
 * how to make it safer.
 */
function exposureWarning(options: ServeOptions, info: MockInfo, restored: boolean): string {
  const port = new URL(info.url).port;
  // A restored state keeps its users as they were stored; a reset gives them random ones.
  const random = restored
    ? ' Its users keep the passwords stored in the state (a reset gives the default users random ones): check them below.'
    : " Its default users (alice, bob) got random passwords for this run, shown below once; users a seed names keep the seed's.";
  const tls = info.url.startsWith('https:')
    ? ''
    : ' Add --tls so that tokens and passwords do not cross the network in clear text.';
  return `WARNING: the mock listens on ${options.host}, beyond this machine: every device that can reach port ${port} can use the dev token and sign in as the mock's users.${random}${tls}`;
}

function tlsSection(info: MockInfo, width: number): string {
  if (info.caFile === undefined || info.trust === undefined) return '';
  const indent = `\n${' '.repeat(19)}`;
  const { node, curl, java, android, ios } = info.trust;
  const section = `  CA certificate:  ${info.caFile}${indent}(ksctl trusts it for the context it writes; ksctl mock ca --pem prints it)
  Trust it:        Node:    ${node}${indent}curl:    ${curl}${indent}Java:    ${java}${indent}Android: ${android}${indent}iOS:     ${ios}
`;
  if (section.split('\n').every((line) => line.length <= width)) return section;
  // Too narrow for the columns (a CA file under a home folder is 70 columns of `export …`):
  // each kind's lines under its name, a command broken as one that still runs when copied.
  const commands = (...lines: string[]) =>
    lines.flatMap((line) => wrapCommand(`      ${line}`, width, { pairs: true, split: true }));
  const prose = (text: string) => fill(text, width, { first: '      ', rest: '      ' });
  const [keytool, ...then] = java.split(', then ');
  return [
    ...(19 + info.caFile.length <= width
      ? [`  CA certificate:  ${info.caFile}`]
      : ['  CA certificate:', `    ${info.caFile}`]),
    ...fill('(ksctl trusts it for the context it writes; ksctl mock ca --pem prints it)', width, {
      first: '    ',
    }),
    '  Trust it:',
    '    Node:',
    ...commands(node),
    '    curl:',
    ...commands(curl),
    '    Java:',
    ...commands(keytool!, ...then.map((next) => `then ${next}`)),
    '    Android:',
    ...prose(android),
    '    iOS:',
    ...prose(ios),
    '',
  ].join('\n');
}

function banner(
  info: MockInfo,
  contextNote: string,
  state: string,
  warning: string | undefined,
  width: number,
): string {
  const caExports =
    info.caFile === undefined
      ? ''
      : `  export KSCTL_CA_FILE='${info.caFile}'\n  export NODE_EXTRA_CA_CERTS='${info.caFile}'\n`;
  return `${warning === undefined ? '' : `${warning}\n\n`}ksctl mock service is running. Press Ctrl-C to stop it; ${state}

  URL:             ${info.url}
  Markings API:    ${info.baseUrl}
  Enrollment API:  ${info.apiUrl}
  Enrollment URL:  ${info.enrollmentUrl}
  Key naming:      ${info.knsUrl}
  Tenant:          ${info.tenantId}
  Keyspace:        ${info.keyspace}
  Dev token:       ${info.token}
${tlsSection(info, width)}${consoleSection(info)}${usersSection(info.users)}
${contextNote}
For other shells and tools:

  export KSCTL_BASE_URL='${info.baseUrl}'
  export KSCTL_TOKEN='${info.token}'
${caExports}`;
}

/** How long a mock named by a context has to answer before it counts as gone. */
const PROBE_TIMEOUT_MS = 500;

/**
 * What answers `/_mock/health` at the origin of `baseUrl` (the mock's open health endpoint): the
 * HTTP status, or undefined when nothing answers (within a short while).
 */
async function healthStatus(baseUrl: string, caFile?: string): Promise<number | undefined> {
  let url: URL;
  try {
    url = new URL('/_mock/health', baseUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const ca =
    caFile === undefined ? undefined : await readFile(caFile, 'utf8').catch(() => undefined);
  const { get } = await import(url.protocol === 'https:' ? 'node:https' : 'node:http');
  return new Promise((resolve) => {
    const request = get(
      url,
      { timeout: PROBE_TIMEOUT_MS, agent: false, ...(ca === undefined ? {} : { ca }) },
      (response: IncomingMessage) => {
        response.resume();
        resolve(response.statusCode);
      },
    );
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(undefined));
  });
}

/**
 * The context this mock is written to: `mock`, unless another mock that still answers is there
 * (taking it over would leave whoever uses it with a dead port once this one stops); then the
 * first `mock-N` that is free, or names a server that is gone: one the user made, or a mock
 * still running, is left alone.
 */
async function contextFor(store: ConfigStore, info: MockInfo): Promise<string> {
  const mock = store.find(MOCK_CONTEXT);
  if (
    mock?.baseUrl === undefined ||
    mock.baseUrl === info.baseUrl ||
    (await healthStatus(mock.baseUrl, mock.caFile)) !== 200
  ) {
    return MOCK_CONTEXT;
  }
  for (let n = 2; ; n++) {
    const name = `${MOCK_CONTEXT}-${n}`;
    const found = store.find(name);
    if (found === undefined || found.baseUrl === info.baseUrl) return name;
    if (
      found.baseUrl !== undefined &&
      (await healthStatus(found.baseUrl, found.caFile)) === undefined
    ) {
      return name;
    }
  }
}

/**
 * Adds or refreshes the `mock` context (or, while another mock answers there, a `mock-N`); makes
 * it current unless another context is. Returns what to tell the user, and whether the context
 * is another than `mock`.
 */
async function refreshContext(
  ctx: CommandContext,
  info: MockInfo,
): Promise<{ note: string; elsewhere: boolean }> {
  const store = await ctx.config();
  const name = await contextFor(store, info);
  await store.set(name, {
    ...store.find(name),
    baseUrl: info.baseUrl,
    token: info.token,
    apiUrl: info.apiUrl,
    enrollmentUrl: info.enrollmentUrl,
    knsUrl: info.knsUrl,
    keyspace: info.keyspace,
    // The mock's CA, trusted for this context only; a plain HTTP mock leaves none behind.
    caFile: info.caFile,
  });
  if (name !== MOCK_CONTEXT) {
    const other = new URL(store.find(MOCK_CONTEXT)?.baseUrl ?? '').origin;
    return {
      note: `The context "${MOCK_CONTEXT}" is left as it is: the mock at ${other}\nstill answers there. This one is written as the context "${name}", so in\nanother terminal:\n\n  ksctl --context ${name} markings list\n`,
      elsewhere: true,
    };
  }
  const current = store.currentContext;
  if (current === undefined || current === MOCK_CONTEXT) {
    await store.use(MOCK_CONTEXT);
    return {
      note: `The context "${MOCK_CONTEXT}" is current and points here, so in another terminal:\n\n  ksctl markings list\n`,
      elsewhere: false,
    };
  }
  return {
    note: `The context "${MOCK_CONTEXT}" points here (the current one is "${current}"):\n\n  ksctl --context ${MOCK_CONTEXT} markings list\n`,
    elsewhere: false,
  };
}

/**
 * Makes sure the ready file can be written once the server listens, before anything happens: a
 * failure then would leave the `mock` context pointing at a server that is gone. Creates the
 * missing parent directories, as the write itself would.
 */
export async function prepareReadyFile(path: string): Promise<void> {
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

/**
 * Tells who is listening where: the banner (or the info as JSON) and, last, the ready file, on
 * which whoever waits for it may rely on everything before it having happened.
 */
async function announce(
  ctx: CommandContext,
  options: ServeOptions,
  server: MockServer,
  exposed: boolean,
) {
  const info = server.info;
  const warning = exposed
    ? exposureWarning(options, info, server.durable?.fresh === false)
    : undefined;
  const { note, elsewhere } = options.context
    ? await refreshContext(ctx, info)
    : { note: '', elsewhere: false };
  if (options.json) {
    if (warning !== undefined) ctx.warn(warning);
    ctx.io.stdout.write(`${JSON.stringify(info)}\n`);
    // Standard output holds the JSON alone; a context other than "mock" is still told.
    if (elsewhere) ctx.warn(note.trimEnd());
  } else {
    // Within the terminal, or 80 columns in a pipe or a log.
    const width = proseWidth(ctx.io.columns);
    const state = stateNote(options, server.durable?.fresh === false);
    const text = fitBanner(banner(info, note, state, warning, width), width);
    // --quiet keeps the warning.
    if (warning !== undefined && ctx.quiet) ctx.warn(warning);
    ctx.say(text);
  }
  if (options.readyFile)
    await writeFileAtomic(options.readyFile, `${JSON.stringify(info, null, 2)}\n`);
}

export async function serve(ctx: CommandContext, options: ServeOptions): Promise<void> {
  const { faultRulesFromArguments, isLoopbackHost, parseLatency, readSeed, startMockServer } =
    await import('../../usecases/mock.js');
  const exposed = !isLoopbackHost(options.host);
  const latency = options.latency === undefined ? undefined : parseLatency(options.latency);
  if (options.latency !== undefined && !latency) {
    throw new UsageError(`--latency "${options.latency}" is not MS or MIN-MAX`);
  }
  const faults = faultRulesFromArguments(
    options.fault ?? [],
    (text, problem) => `--fault "${text}": ${problem}`,
  );
  const { inputLimit } = await import('../../../common/files/bounded-read.js');
  const seed =
    options.seed === undefined
      ? undefined
      : await readSeed(options.seed, inputLimit(ctx.env, 'seed file'));
  if (options.readyFile) await prepareReadyFile(options.readyFile);
  const tls = await tlsIdentity(ctx, options);
  // From here on, Ctrl-C, SIGTERM or a reader gone away stop the mock cleanly, its state closed;
  // one that comes while it starts is acted on once it has started (a second Ctrl-C ends it now).
  ctx.stopsGracefully();
  const server = await startMockServer({
    host: options.host,
    port: options.port,
    devToken: options.devToken,
    stateDir: options.state,
    // Not silenced by --quiet: it tells of something skipped in the user's data.
    onWarning: (message) => ctx.io.stderr.write(`warning: ${message}\n`),
    seed,
    latency,
    faults: faults.length > 0 ? faults : undefined,
    cors: options.cors,
    console: options.console,
    tls,
    randomUserPasswords: exposed,
    onRequest: options.log
      ? (r) => {
          // The console's own requests (it polls) would drown the client's.
          if (!r.path.startsWith('/_mock/console/'))
            ctx.say(`${r.method} ${r.path} ${r.status} ${r.durationMs} ms`);
        }
      : undefined,
  });
  try {
    if (!ctx.signal.aborted) await announce(ctx, options, server, exposed);
  } catch (error) {
    await server.close();
    throw error;
  }

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

/** `ksctl mock ca`: the local CA certificate's path, or with --pem the certificate. */
export async function caCertificate(
  ctx: CommandContext,
  options: { pem?: boolean },
): Promise<void> {
  const { localCaFile } = await import('../../usecases/mock.js');
  const caFile = await localCaFile(dirname((await ctx.config()).path));
  let pem: string;
  try {
    pem = await readFile(caFile, 'utf8');
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw fileError('read', caFile, error);
    throw new NotFoundError(`the mock has no local CA yet (${caFile})`, {
      hint: '`ksctl mock serve --tls` makes it',
    });
  }
  ctx.io.stdout.write(options.pem ? pem : `${caFile}\n`);
}

/**
 * The certificate and key the mock speaks HTTPS with: the user's own (--tls-cert, --tls-key), or
 * the local CA's for the loopback names, the --host when it names one address, and --tls-name.
 */
async function tlsIdentity(
  ctx: CommandContext,
  options: ServeOptions,
): Promise<TlsIdentity | undefined> {
  const own = options.tlsCert !== undefined || options.tlsKey !== undefined;
  const names = options.tlsName ?? [];
  if (own && (options.tlsCert === undefined || options.tlsKey === undefined)) {
    throw new UsageError('--tls-cert and --tls-key go together');
  }
  if (own && names.length > 0) {
    throw new UsageError(
      '--tls-name names what the local CA certifies; with --tls-cert the certificate names itself',
    );
  }
  if (!options.tls && !own && names.length > 0) {
    throw new UsageError('--tls-name needs --tls');
  }
  if (!options.tls && !own) return undefined;
  const { mockTlsIdentity } = await import('../../usecases/mock.js');
  if (own) {
    return mockTlsIdentity({ kind: 'files', certFile: options.tlsCert!, keyFile: options.tlsKey! });
  }
  return mockTlsIdentity({
    kind: 'local',
    configDir: dirname((await ctx.config()).path),
    host: options.host,
    names,
    nameLabel: () => '--tls-name',
    note: (message) => ctx.say(message),
  });
}

/**
 * The last resort of docs/design.md 3.2.1: the server answers every failure of a request itself, but
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

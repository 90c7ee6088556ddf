/**
 * `ksctl mock serve`: runs the embedded mock until Ctrl-C, prints how to reach it (the banner of
 * mock-serve-banner.ts, or JSON), keeps the `mock` context pointing at it, and writes the ready
 * file last. And `ksctl mock ca`.
 */
import { constants } from 'node:fs';
import { access, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { MockServer, TlsIdentity } from '../../usecases/mock.js';
import type { MockInfo } from '../../../common/mock/wire.js';
import { InputError, NotFoundError, UsageError } from '../../../common/errors.js';
import { writeFileAtomic } from '../../../common/files/atomic-write.js';
import { ensureDirectory } from '../../../common/files/directories.js';
import { errnoCode, fileError } from '../../../common/files/fs-errors.js';
import type { CommandContext } from '../kit/command-context.js';
import { proseWidth } from '../../../common/text/wrap.js';
import { type ConfigStore, MOCK_CONTEXT } from '../../config/store.js';
import { banner, exposureWarning, fitBanner, stateNote } from './mock-serve-banner.js';

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
  const caFile = localCaFile(dirname((await ctx.config()).path));
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

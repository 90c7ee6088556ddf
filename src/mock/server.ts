/**
 * MockServer, the embedded mock of the whole service side: a factory that wires the state, the
 * routes of each side, faults, latency and the durable state to an HTTP server. The `mock serve`
 * command and the tests only choose where it listens.
 */
import type { KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type FaultRule, MarkingsErrorCode, type MockInfo } from '../api/wire.js';
import { adminRoutes } from './admin/routes.js';
import { CauseCode } from '../enroll/causes.js';
import { deviceRoutes, unservedDeviceEndpoint } from './device/routes.js';
import { CryptoPool } from './enrollment/crypto-pool.js';
import { corsOrigin, isPreflight, preflightAnswer, withCors } from './cors.js';
import { causeError, faultCause } from './enrollment/errors.js';
import { loadKeyServerKey } from './enrollment/key-server-key.js';
import { ENROLLMENT_PATH } from './enrollment/portal.js';
import { enrollmentRoutes } from './enrollment/routes.js';
import { introspectionRoutes } from './introspect.js';
import { openApiRoute } from './admin/openapi.js';
import { type Latency, latencyDelay } from './admin/faults.js';
import { MockHttpError, type MockRequest, type MockResponse, Router } from './http.js';
import { answerProtocolError, answerUnmetExpectation } from './protocol-errors.js';
import {
  BodyReader,
  conversationId,
  errorAnswer,
  mockRequest,
  requestTarget,
  writableHeaders,
} from './request.js';
import { redactQuery } from './request-journal.js';
import { markingsRoutes } from './markings/routes.js';
import { jsonChunks } from './json-pieces.js';
import { Pacer } from './pacing.js';
import { DurableState } from './durable-state.js';
import type { ConsoleApp } from './console/app.js';
import { ConsoleSignIn, isConsolePath, signInLink } from './console/sign-in.js';
import { RequestStats } from './console/stats.js';
import { applySeed, type Seed } from './seed.js';
import { DEFAULT_KEYSPACE, DEFAULT_TENANT, MockState, newDevToken } from './state.js';
import { fileReason } from '../files/fs-errors.js';
import { sleep } from '../sleep.js';

export interface MockServerOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  devToken?: string;
  seed?: Seed;
  latency?: Latency;
  faults?: FaultRule[];
  /**
   * The key server's RSA private key (PEM or KeyObject). Without it one is generated in the
   * background (seconds); the enrollment endpoints wait for it, everything else answers at once.
   */
  keyServerKey?: string | KeyObject;
  /**
   * Without a given key, make it when an enrollment endpoint first needs it rather than at
   * start: for mocks that may never enroll (a test file's), which then cost no key generation.
   */
  keyServerKeyOnFirstUse?: boolean;
  /** Time a client has to send the request headers (default 20 s). */
  headersTimeoutMs?: number;
  /** Time a client has to send the whole request, body included (default 60 s). */
  requestTimeoutMs?: number;
  /**
   * Connections served at once (default 512). At the cap a new connection takes the place of the
   * oldest one that has sent nothing yet; when every connection has sent something it is refused.
   */
  maxConnections?: number;
  /** A connection that sends no byte in this time is closed (default 5 s). */
  firstByteTimeoutMs?: number;
  /** close() waits this long for requests in flight, then cuts them off (default 10 s). */
  closeGraceMs?: number;
  /**
   * Keep the state in this directory (docs/design.md 3.2): restored at start, every change on disk
   * before it is acknowledged. On an existing state `seed` is not applied (a reset applies it);
   * `devToken` and `faults`, when given, replace the stored ones.
   */
  stateDir?: string;
  /** Journal bytes below which the state is never compacted (tests make it small). */
  compactAfterBytes?: number;
  /** Told about what a restart forgave (a torn last journal line) and failed compactions. */
  onWarning?: (message: string) => void;
  /**
   * Answer browsers' cross-origin requests (default true): the JS SDK runs in web pages served
   * from another origin than the mock. See cors.ts.
   */
  cors?: boolean;
  /**
   * Serve the console at /_mock/console/ (default true), with a sign-in link in `info.consoleUrl`;
   * false: no console, its paths are not found.
   */
  console?: boolean;
  /** Called after every answer (the serve command logs them). */
  onRequest?: (entry: { method: string; path: string; status: number; durationMs: number }) => void;
  /**
   * Shown every answer as it was written, with the request it answers (the tests check each one
   * against schema/openapi.yaml). Answers to requests Node could not parse are not shown.
   */
  onAnswer?: (answer: AnswerSeen) => void;
}

/** An answer as the client receives it. */
export interface AnswerSeen {
  method: string;
  /** The request path, without its query. */
  path: string;
  status: number;
  /** As sent, names in lower case. */
  headers: Record<string, string>;
  /** The body's text; undefined when there is none. */
  body: string | undefined;
}

/** Zero configuration: a tenant, keyspace ABcd, alice (enabled) and bob (disabled). */
function loadDefaults(state: MockState, seed: Seed | undefined): void {
  state.addTenant(DEFAULT_TENANT);
  state.keyspaces.set(DEFAULT_KEYSPACE, {
    id: DEFAULT_KEYSPACE,
    tenant: DEFAULT_TENANT,
    enrollment: true,
    online: true,
  });
  state.users.set('alice', {
    name: 'alice',
    tenant: DEFAULT_TENANT,
    enabled: true,
    password: 'alice-password',
    email: 'alice@example.com',
  });
  state.users.set('bob', {
    name: 'bob',
    tenant: DEFAULT_TENANT,
    enabled: false,
    password: 'bob-password',
    email: 'bob@example.com',
  });
  if (seed) applySeed(state, seed);
}

interface ConnectionUse {
  /** When it was taken in (performance.now()). */
  since: number;
  /** A request of it is being answered. */
  busy: boolean;
  answered: number;
}

/** close() stops taking connections in once none has come for this long: the queue is empty. */
const QUEUE_QUIET_MS = 100;
/** A connection that has sent nothing this long after it came is not waited for by close(). */
const SILENT_WAIT_MS = 500;

/**
 * The embedded mock of the whole service side. A factory: the `mock serve` command and the tests
 * only choose where it listens.
 */
export class MockServer {
  readonly state: MockState;
  private readonly router = new Router();
  private readonly crypto = new CryptoPool();
  private readonly http: Server;
  private infoValue: MockInfo | undefined;
  /** Open connections; those that had sent nothing when last looked at are `silent`, oldest first. */
  private connections = 0;
  private readonly silent = new Set<Socket>();
  /** What each open connection has done: when it came, whether a request is in hand, answers. */
  private readonly uses = new Map<Socket, ConnectionUse>();
  /** When the last connection was taken in (performance.now()). */
  private lastAccepted = 0;
  /** close() has begun: requests from now on get a 503, every answer closes its connection. */
  private closing = false;
  /** Set while the console is on. */
  private readonly signIn: ConsoleSignIn | undefined;
  private readonly stats: RequestStats | undefined;
  /** The console itself, loaded when a browser first asks for it. */
  private consoleApp: Promise<ConsoleApp> | undefined;

  private constructor(
    private readonly options: MockServerOptions,
    /** Set with `stateDir`. */
    readonly durable: DurableState | undefined,
  ) {
    this.state = new MockState(options.devToken ?? newDevToken());
    if (options.console !== false) {
      // The port names the session cookie; known once listening, and kept while closing.
      this.signIn = new ConsoleSignIn(() => Number(new URL(this.info.url).port));
      const stats = new RequestStats();
      this.state.journal.subscribe((entry) =>
        stats.add(entry.side, entry.status, entry.durationMs),
      );
      this.stats = stats;
    }
    if (!durable || durable.fresh) {
      loadDefaults(this.state, options.seed);
      if (options.faults) this.state.faults.replace(options.faults);
    }
    this.router.add(
      ...markingsRoutes(this.state),
      ...adminRoutes(this.state, () => this.reset()),
      ...enrollmentRoutes(this.state, () => this.info, this.crypto),
      ...deviceRoutes(this.state),
      ...introspectionRoutes(this.state),
      openApiRoute(() => this.info),
    );
    const headersTimeout = options.headersTimeoutMs ?? 20_000;
    const requestTimeout = Math.max(options.requestTimeoutMs ?? 60_000, headersTimeout);
    this.http = createServer(
      {
        keepAliveTimeout: 5_000,
        headersTimeout,
        requestTimeout,
        // How often Node looks for connections past those times (its default is 30 s).
        connectionsCheckingInterval: Math.min(1_000, Math.max(50, headersTimeout / 4)),
      },
      (req, res) => {
        const use = this.uses.get(req.socket);
        if (use) {
          use.busy = true;
          res.once('close', () => {
            use.busy = false;
            use.answered++;
          });
        }
        // handle() answers every failure itself; this catch is the boundary of last resort.
        this.handle(req, res).catch(() => res.destroy());
      },
    );
    this.http.on('connection', (socket: Socket) => this.admit(socket));
    this.http.on('clientError', answerProtocolError);
    this.http.on('checkExpectation', answerUnmetExpectation);
  }

  /**
   * The connection cap, and the first-byte timeout. Node's own cap refuses a new client while the
   * connections it counts have sent nothing at all, so 512 idle sockets locked everybody out until
   * the header timeout (20 s): here a silent connection gives way to a new one, and is closed
   * after a few seconds anyway. A client that has started its request is never cut off for this.
   */
  private admit(socket: Socket): void {
    this.connections++;
    this.lastAccepted = performance.now();
    this.uses.set(socket, { since: this.lastAccepted, busy: false, answered: 0 });
    socket.once('close', () => {
      this.connections--;
      this.silent.delete(socket);
      this.uses.delete(socket);
    });
    if (this.connections > (this.options.maxConnections ?? 512)) {
      const idle = this.oldestSilent();
      if (idle === undefined) {
        socket.destroy();
        return;
      }
      idle.destroy();
    }
    this.silent.add(socket);
    const timer = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
      this.silent.delete(socket);
    }, this.options.firstByteTimeoutMs ?? 5_000);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  }

  private oldestSilent(): Socket | undefined {
    for (const socket of this.silent) {
      // Node's parser reads the socket natively; its byte count still says whether data came.
      if (socket.bytesRead === 0) return socket;
      this.silent.delete(socket);
    }
    return undefined;
  }

  static async start(options: MockServerOptions = {}): Promise<MockServer> {
    const given =
      options.keyServerKey !== undefined ? await loadKeyServerKey(options.keyServerKey) : undefined;
    const durable =
      options.stateDir === undefined
        ? undefined
        : await DurableState.open({
            dir: options.stateDir,
            compactAfterBytes: options.compactAfterBytes,
            warn: options.onWarning,
          });
    try {
      const server = new MockServer(options, durable);
      await durable?.attach(server.state);
      // What the command line says explicitly wins over a stored state; a seed only fills a new one.
      if (options.devToken !== undefined) server.state.setDevToken(options.devToken);
      if (durable?.fresh === false && options.faults) server.state.faults.replace(options.faults);
      // A stored key pair is kept. A given key is checked now; a generated one takes seconds, so
      // the mock listens meanwhile and only the enrollment endpoints wait for it.
      if (!server.state.enrollment.hasKeyServerKey) {
        server.state.enrollment.setKeyServerKey(
          given ?? (options.keyServerKeyOnFirstUse ? () => loadKeyServerKey() : loadKeyServerKey()),
        );
      }
      await server.listen();
      return server;
    } catch (error) {
      await durable?.close();
      throw error;
    }
  }

  /** Every route the mock serves, as method and pattern (`:name` captures a segment). */
  routes(): { method: string; pattern: string }[] {
    return this.router.list();
  }

  get info(): MockInfo {
    if (!this.infoValue) throw new Error('the mock is not listening');
    return this.infoValue;
  }

  /** Back to the start-up state (defaults and seed); the dev token stays the same. */
  reset(): void {
    this.state.clear();
    loadDefaults(this.state, this.options.seed);
    if (this.options.faults) this.state.faults.replace(this.options.faults);
    // The journal holds the reset already; a snapshot lets it drop the history before it.
    this.durable?.compact().catch((error: unknown) => {
      this.options.onWarning?.(`compacting the state failed: ${fileReason(error)}`);
    });
  }

  private listen(): Promise<void> {
    const host = this.options.host ?? '127.0.0.1';
    return new Promise((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.options.port ?? 0, host, () => {
        this.http.off('error', reject);
        const { port } = this.http.address() as AddressInfo;
        const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
        this.infoValue = {
          url,
          baseUrl: `${url}/v2/${this.state.defaultTenant}`,
          apiUrl: url,
          enrollmentUrl: `${url}${ENROLLMENT_PATH}`,
          knsUrl: url,
          tenantId: this.state.defaultTenant,
          keyspace: this.state.defaultKeyspace,
          token: this.state.devToken,
          ...(this.signIn ? { consoleUrl: signInLink(url, this.signIn.newCode()) } : {}),
          users: [...this.state.users.values()].map(
            ({ name, tenant, enabled, email, password }) => ({
              name,
              tenant,
              enabled,
              email,
              password,
            }),
          ),
        };
        resolve();
      });
    });
  }

  /**
   * Stops accepting, lets requests in flight finish, flushes the state, then resolves. No client
   * that got in meets a reset connection: requests that arrive once closing has begun, those
   * still in the listen queue among them, are answered 503 with Retry-After (drainQueue).
   * Connections still busy after the grace time (a client that stalls mid-request) are cut off.
   * The crypto pool ends last.
   */
  async close(): Promise<void> {
    this.closing = true;
    // Event streams never end by themselves.
    if (this.consoleApp) (await this.consoleApp).close();
    const deadline = performance.now() + (this.options.closeGraceMs ?? 10_000);
    await this.drainQueue(deadline);
    await new Promise<void>((resolve) => {
      const cutOff = setTimeout(
        () => this.http.closeAllConnections(),
        Math.max(0, deadline - performance.now()),
      );
      // Also closes the connections between requests: none is left that waits for an answer.
      this.http.close(() => {
        clearTimeout(cutOff);
        resolve();
      });
    });
    await this.durable?.close();
    await this.crypto.close();
  }

  /**
   * Closing the listening socket resets the connections still in its queue, and Node's close
   * also drops connections whose request it has not read yet. So the socket keeps taking them
   * in until none has come for a moment, and every connection that has not sent its request yet
   * is waited for (a silent one a short while): each then gets its answer. Connections between
   * requests are closed meanwhile, as Node would.
   */
  private async drainQueue(deadline: number): Promise<void> {
    for (;;) {
      const now = performance.now();
      let waiting = false;
      for (const [socket, use] of this.uses) {
        if (use.busy) continue;
        const silent = socket.bytesRead === 0;
        if (use.answered > 0 || (silent && now - use.since > SILENT_WAIT_MS)) socket.destroy();
        else waiting = true;
      }
      const quiet = now - this.lastAccepted >= QUEUE_QUIET_MS;
      if ((quiet && !waiting) || now >= deadline) return;
      await sleep(10);
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const cid = conversationId(req);
    const method = req.method ?? 'GET';
    const target = requestTarget(req.url);
    const body = new BodyReader(req);
    // The console is for its own pages only: no other origin may read its answers.
    const cors =
      this.options.cors === false || (target !== undefined && isConsolePath(target.pathname))
        ? undefined
        : corsOrigin(req);
    let answer: MockResponse;
    try {
      if (this.closing) throw stopping();
      if (cors !== undefined && isPreflight(req)) answer = preflightAnswer(req, cors);
      else if (!target) {
        throw new MockHttpError(
          400,
          MarkingsErrorCode.badRequest,
          'the request target is not a path',
        );
      } else answer = await this.answer(mockRequest(req, method, target, cid, body));
    } catch (error) {
      answer = errorAnswer(cid, error, target?.pathname ?? '');
    }
    // Acknowledged only once on disk: what this request changed, and whatever it has seen.
    if (this.durable) {
      try {
        await this.durable.sync();
      } catch {
        answer = errorAnswer(cid, stateNotWritten(target?.pathname ?? ''), '');
      }
    }
    const sent = cors === undefined ? answer : withCors(answer, cors);
    // Bytes that cannot be made (a body JSON cannot write) are answered with the 500 below.
    const bytes = await bodyBytes(sent).catch(() => undefined);
    const written = this.send(res, cid, sent, bytes, method, target?.pathname ?? '');
    const durationMs = Math.round((performance.now() - started) * 10) / 10;
    // A target that does not parse is kept without its query, which could hold secrets.
    const pathname = target?.pathname ?? (req.url ?? '').split('?')[0]!;
    this.state.journal.record({
      time: new Date().toISOString(),
      method,
      path: target ? pathname + redactQuery(target.searchParams) : pathname,
      status: written?.status ?? answer.status,
      cid,
      durationMs,
      requestBytes: body.bytesRead || Number(req.headers['content-length']) || 0,
      responseBytes: written?.bytes ?? 0,
      requestHeaders: req.headers,
      responseHeaders: written?.headers ?? {},
      requestBody: body.received,
      responseBody: written?.chunks ?? [],
    });
    this.options.onRequest?.({ method, path: pathname, status: answer.status, durationMs });
  }

  private async answer(req: MockRequest): Promise<MockResponse> {
    if (this.signIn && isConsolePath(req.path)) return (await this.console()).answer(req);
    if (!req.path.startsWith('/_mock/')) {
      const delay = latencyDelay(this.options.latency);
      if (delay > 0) await sleep(delay);
      const fault = this.state.faults.fire(req.method, req.path);
      if (fault) throw faultError(fault);
    }
    return this.route(req);
  }

  /** The console, loaded the first time it is asked for. */
  private console(): Promise<ConsoleApp> {
    this.consoleApp ??= import('./console/app.js').then(
      ({ ConsoleApp }) =>
        new ConsoleApp({
          state: this.state,
          signIn: this.signIn!,
          stats: this.stats!,
          info: () => this.info,
          feed: (listener) => this.state.journal.subscribe(listener),
          route: (req) => this.route(req),
          entries: () => this.state.requests().requests,
        }),
    );
    return this.consoleApp;
  }

  /** The answer of the route a request names (no faults or latency). */
  private async route(req: MockRequest): Promise<MockResponse> {
    const match = this.router.match(req.method, req.path);
    if (!match) {
      // A device's request to an endpoint the mock lacks: sealed for the device when it can be.
      const sealed = await unservedDeviceEndpoint(this.state, req);
      if (sealed) return sealed;
      throw new MockHttpError(404, MarkingsErrorCode.notFound, `no such resource: ${req.path}`);
    }
    if ('allowed' in match) {
      throw new MockHttpError(
        405,
        MarkingsErrorCode.methodNotAllowed,
        `${req.method} is not allowed here`,
        undefined,
        { allow: match.allowed.join(', ') },
      );
    }
    Object.assign(req.params, match.params);
    return match.handler(req);
  }

  /**
   * Writes the answer. A header Node refuses to write (a character outside Latin-1, say in a
   * Location built from an odd tenant id) is sent percent-encoded; if writing still fails, the
   * client gets a bare 500 error body, and a connection that cannot take even that is closed.
   */
  private send(
    res: ServerResponse,
    cid: string,
    answer: MockResponse,
    bytes: Buffer[] | undefined,
    method: string,
    path: string,
  ): Written | undefined {
    if (res.headersSent || res.destroyed) return undefined;
    let written: Written;
    // While the mock stops, each answer is the last on its connection.
    if (this.closing) answer = { ...answer, headers: { ...answer.headers, connection: 'close' } };
    try {
      if (bytes === undefined) throw new Error('no body');
      written = writeAnswer(res, cid, answer, bytes);
    } catch {
      try {
        const fallback = errorAnswer(cid, new Error('the answer could not be written'), '');
        res.statusMessage = '';
        for (const name of res.getHeaderNames()) res.removeHeader(name);
        written = writeAnswer(res, cid, fallback, bytesNow(fallback));
      } catch {
        res.destroy();
        return undefined;
      }
    }
    if (!this.options.onAnswer) return written;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(written.headers))
      headers[name.toLowerCase()] = value;
    this.options.onAnswer({
      method,
      path,
      status: written.status,
      headers,
      body: written.body,
    });
    return written;
  }
}

/**
 * The answer's body as UTF-8 chunks (none without a body): a JSON body made in slices
 * (json-pieces.ts), so a body of tens of megabytes never holds the mock.
 */
async function bodyBytes(answer: MockResponse): Promise<Buffer[]> {
  if (answer.text === undefined && answer.body !== undefined) {
    return jsonChunks(answer.body, new Pacer());
  }
  return bytesNow(answer);
}

/** The body of a small answer (the mock's own 500), made at once. */
function bytesNow(answer: MockResponse): Buffer[] {
  if (answer.bytes !== undefined) return [answer.bytes];
  if (answer.text !== undefined) return [Buffer.from(answer.text, 'utf8')];
  if (answer.body !== undefined) return [Buffer.from(JSON.stringify(answer.body), 'utf8')];
  return [];
}

/** An answer as written: its status, headers as sent and body bytes. */
interface Written {
  status: number;
  headers: Record<string, string>;
  /** The body's text; undefined when there is none. */
  readonly body: string | undefined;
  chunks: Buffer[];
  bytes: number;
}

function writeAnswer(
  res: ServerResponse,
  cid: string,
  answer: MockResponse,
  bytes: Buffer[],
): Written {
  const headers: Record<string, string> = { 'x-conversation-id': cid, ...answer.headers };
  if (answer.stream) {
    if (answer.reason) res.statusMessage = answer.reason;
    const sent = writableHeaders(headers);
    res.writeHead(answer.status, sent);
    answer.stream(res);
    return { status: answer.status, headers: sent, body: undefined, chunks: [], bytes: 0 };
  }
  if (answer.text !== undefined) headers['content-type'] ??= 'text/plain; charset=utf-8';
  else if (answer.body !== undefined) headers['content-type'] = 'application/json';
  // Bytes, not a string: Node sends a string body in one write with the headers, all in UTF-8,
  // which would re-encode a Latin-1 conversation id instead of echoing its bytes.
  const length = bytes.reduce((sum, chunk) => sum + chunk.length, 0);
  headers['content-length'] = String(length);
  if (answer.reason) res.statusMessage = answer.reason;
  const sent = writableHeaders(headers);
  res.writeHead(answer.status, sent);
  for (const chunk of bytes.slice(0, -1)) res.write(chunk);
  res.end(bytes.at(-1));
  const hasBody =
    answer.text !== undefined || answer.body !== undefined || answer.bytes !== undefined;
  return {
    status: answer.status,
    headers: sent,
    chunks: bytes,
    bytes: length,
    get body() {
      return hasBody ? Buffer.concat(bytes).toString('utf8') : undefined;
    },
  };
}

const retryAfter = (status: number): Record<string, string> =>
  status === 429 || status === 503 ? { 'retry-after': '1' } : {};

/**
 * A rule whose `code` is an enrollment cause (docs/design.md 2.3) answers, on whatever path it
 * matches, exactly as the service does for that cause: its status, reason phrase and message
 * (a `status` in the rule is then ignored). Other rules answer with their status.
 */
function faultError(rule: FaultRule): MockHttpError {
  const cause = faultCause(rule.code);
  if (cause !== undefined) return causeError(cause.code, retryAfter(cause.status));
  const status = rule.status ?? 500;
  return new MockHttpError(
    status,
    rule.code ?? status * 100,
    `injected fault: ${rule.method ?? 'any method'} ${rule.path ?? 'any path'} answers ${status}`,
    undefined,
    retryAfter(status),
  );
}

/** A request that came once the mock began to stop: to be sent again when it is back. */
function stopping(): MockHttpError {
  return new MockHttpError(
    503,
    MarkingsErrorCode.unavailable,
    'the mock is stopping; send the request again once it is back',
    undefined,
    retryAfter(503),
  );
}

/** The change may or may not persist; enrollment says so with its own cause (docs/design.md 2.3). */
function stateNotWritten(path: string): MockHttpError {
  if (/^\/v2\.[34]\/register\//.test(path)) return causeError(CauseCode.deviceNotStored);
  return new MockHttpError(
    500,
    MarkingsErrorCode.internal,
    'the mock could not write its state to disk; the change may not survive a restart',
  );
}

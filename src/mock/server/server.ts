/**
 * MockServer, the embedded mock of the whole service side: a factory that wires the state, the
 * routes of each side, faults, latency and the durable state to an HTTP server. The `mock serve`
 * command and the tests only choose where it listens.
 */
import { type KeyObject, randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Server as NetServer } from 'node:net';
import { MarkingsErrorCode } from '../../common/markings/wire.js';
import type { FaultRule, MockInfo } from '../../common/mock/wire.js';
import { CryptoPool } from '../model/enrollment/crypto-pool.js';
import { corsOrigin, isPreflight, preflightAnswer, withCors } from '../kit/cors.js';
import { loadKeyServerKey } from '../model/enrollment/key-server-key.js';
import { ENROLLMENT_PATH } from '../model/enrollment/errors.js';
import { type Latency, latencyDelay } from '../model/admin/faults.js';
import { MockHttpError, type MockRequest, type MockResponse } from '../kit/http.js';
import { answerProtocolError, answerUnmetExpectation } from '../request/protocol-errors.js';
import {
  BodyReader,
  conversationId,
  errorAnswer,
  mockRequest,
  requestTarget,
} from '../request/request.js';
import { isoTime, redactQuery } from '../journal/entry.js';
import { mockRouteTable, mockRoutes } from '../routes/table.js';
import type { Access, Route, RouteTable } from '../request/route.js';
import { DurableState } from '../model/durable-state.js';
import type { ConsoleApp } from '../routes/console/app.js';
import { ConsoleSignIn, isConsolePath, signInLink } from '../model/console/sign-in.js';
import { RequestStats } from '../routes/console/stats.js';
import { loadDefaults, type Seed } from '../model/seed.js';
import { MockState, newDevToken } from '../model/state.js';
import { type BodyChunks, bodyBytes, sendAnswer, type Written } from './answers.js';
import { Connections } from './connections.js';
import { createListener, type MockListener, type TlsIdentity, trustLines } from './tls.js';
import { faultError, stateNotWritten, stopping } from './errors.js';
import { fileReason } from '../../common/files/fs-errors.js';
import { sleep } from '../../common/sleep.js';

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
  /**
   * Speak HTTPS with this certificate and key (src/mock/kit/local-ca.ts makes them): every URL of
   * `info` is then https, and `info.caFile` names the CA file clients trust.
   */
  tls?: TlsIdentity;
  /**
   * Give the default users (alice, bob) random passwords instead of the documented ones, kept
   * across resets and shown once in `info.users`: for a mock that listens beyond this machine.
   * Users a seed names keep the seed's passwords.
   */
  randomUserPasswords?: boolean;
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

/**
 * The embedded mock of the whole service side. A factory: the `mock serve` command and the tests
 * only choose where it listens.
 */
export class MockServer {
  readonly state: MockState;
  /** The service's routes, as `routes()` lists them. */
  private readonly serviceRoutes: Route[];
  private readonly table: RouteTable;
  private readonly crypto = new CryptoPool();
  private readonly http: MockListener;
  /** What listens on the port: the server itself, or with TLS the front that routes to it. */
  private readonly listening: Server | NetServer;
  private infoValue: MockInfo | undefined;
  private readonly connections: Connections;
  /** close() has begun: requests from now on get a 503, every answer closes its connection. */
  private closing = false;
  /** Set while the console is on. */
  private readonly signIn: ConsoleSignIn | undefined;
  private readonly stats: RequestStats | undefined;
  /** The default users' passwords when they are random (randomUserPasswords). */
  private readonly passwords: { alice: string; bob: string } | undefined;
  /** The console itself, loaded when a browser first asks for it. */
  private consoleApp: Promise<ConsoleApp> | undefined;

  private constructor(
    private readonly options: MockServerOptions,
    /** Set with `stateDir`. */
    readonly durable: DurableState | undefined,
  ) {
    this.state = new MockState(options.devToken ?? newDevToken());
    this.passwords = options.randomUserPasswords
      ? { alice: randomPassword(), bob: randomPassword() }
      : undefined;
    if (options.console !== false) {
      // The port names the session cookie; known once listening, and kept while closing.
      this.signIn = new ConsoleSignIn(
        () => Number(new URL(this.info.url).port),
        Date.now,
        options.tls !== undefined,
        (secret) => this.state.journal.secrets.add(secret),
      );
      const stats = new RequestStats();
      this.state.journal.subscribe((entry) =>
        stats.add(entry.side, entry.status, entry.durationMs),
      );
      this.stats = stats;
    }
    if (!durable || durable.fresh) {
      loadDefaults(this.state, options.seed, this.passwords);
      if (options.faults) this.state.faults.replace(options.faults);
    }
    this.serviceRoutes = mockRoutes(this.state, {
      reset: () => this.reset(),
      info: () => this.info,
      crypto: this.crypto,
    });
    this.table = mockRouteTable(
      this.state,
      this.serviceRoutes,
      this.signIn && { signIn: this.signIn, app: () => this.console() },
    );
    this.connections = new Connections(options);
    const headersTimeout = options.headersTimeoutMs ?? 20_000;
    const requestTimeout = Math.max(options.requestTimeoutMs ?? 60_000, headersTimeout);
    const listener = createListener(
      options.tls,
      {
        keepAliveTimeout: 5_000,
        headersTimeout,
        requestTimeout,
        // How often Node looks for connections past those times (its default is 30 s).
        connectionsCheckingInterval: Math.min(1_000, Math.max(50, headersTimeout / 4)),
        handshakeTimeoutMs: Math.max(options.firstByteTimeoutMs ?? 5_000, 10_000),
        maxPendingConnections: 2 * (options.maxConnections ?? 512),
      },
      this.connections,
      (req, res) => {
        this.connections.answering(req.socket, res);
        // handle() answers every failure itself; this catch is the boundary of last resort.
        this.handle(req, res).catch(() => res.destroy());
      },
    );
    this.http = listener.server;
    this.listening = listener.listening;
    this.http.on('clientError', answerProtocolError);
    this.http.on('checkExpectation', answerUnmetExpectation);
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

  /**
   * Every route of the service the mock serves, as method and pattern (`:name` captures a
   * segment), with who may call it.
   */
  routes(): { method: string; pattern: string; access: Access }[] {
    return this.serviceRoutes.map(({ method, pattern, access }) => ({ method, pattern, access }));
  }

  get info(): MockInfo {
    if (!this.infoValue) throw new Error('the mock is not listening');
    return this.infoValue;
  }

  /** Back to the start-up state (defaults and seed); the dev token stays the same. */
  reset(): void {
    this.state.clear();
    loadDefaults(this.state, this.options.seed, this.passwords);
    if (this.options.faults) this.state.faults.replace(this.options.faults);
    // The journal holds the reset already; a snapshot lets it drop the history before it.
    this.durable?.compact().catch((error: unknown) => {
      this.options.onWarning?.(`compacting the state failed: ${fileReason(error)}`);
    });
  }

  private listen(): Promise<void> {
    const host = this.options.host ?? '127.0.0.1';
    return new Promise((resolve, reject) => {
      this.listening.once('error', reject);
      this.listening.listen(this.options.port ?? 0, host, () => {
        this.listening.off('error', reject);
        const { port } = this.listening.address() as AddressInfo;
        const scheme = this.options.tls ? 'https' : 'http';
        const url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
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
          ...(this.options.tls?.caFile === undefined
            ? {}
            : { caFile: this.options.tls.caFile, trust: trustLines(this.options.tls.caFile, url) }),
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
   * still in the listen queue among them, are answered 503 with Retry-After (Connections.drain).
   * Connections still busy after the grace time (a client that stalls mid-request) are cut off.
   * The crypto pool ends last.
   */
  async close(): Promise<void> {
    this.closing = true;
    // Event streams never end by themselves.
    if (this.consoleApp) (await this.consoleApp).close();
    const deadline = performance.now() + (this.options.closeGraceMs ?? 10_000);
    await this.connections.drain(deadline);
    await new Promise<void>((resolve) => {
      const cutOff = setTimeout(
        () => this.http.closeAllConnections(),
        Math.max(0, deadline - performance.now()),
      );
      // Also closes the connections between requests: none is left that waits for an answer.
      // With TLS the front listens: it closes once every connection it took in has ended.
      if (this.listening !== this.http) this.http.close();
      this.listening.close(() => {
        clearTimeout(cutOff);
        resolve();
      });
    });
    await this.durable?.close();
    await this.crypto.close();
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
      time: isoTime(Date.now()),
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
      ...(answer.deviceCode === undefined ? {} : { deviceCode: answer.deviceCode }),
    });
    this.options.onRequest?.({ method, path: pathname, status: answer.status, durationMs });
  }

  private async answer(req: MockRequest): Promise<MockResponse> {
    if (!req.path.startsWith('/_mock/')) {
      const delay = latencyDelay(this.options.latency);
      if (delay > 0) await sleep(delay);
      const fault = this.state.faults.fire(req.method, req.path);
      if (fault) throw faultError(fault);
    }
    return this.table.answer(req);
  }

  /** The console, loaded the first time it is asked for. */
  private console(): Promise<ConsoleApp> {
    this.consoleApp ??= import('../routes/console/app.js').then(
      ({ ConsoleApp }) =>
        new ConsoleApp({
          signIn: this.signIn!,
          devToken: this.state.devToken,
          url: () => this.info.url,
          journal: this.state.journal,
          feed: (listener) => this.state.journal.subscribe(listener),
          describe: async (id, req) => {
            const { describeRequestAt, hostOf } =
              await import('../request-detail/request-detail.js');
            return describeRequestAt(this.state, id, this.info, hostOf(req));
          },
          mock: {
            state: this.state,
            stats: this.stats!,
            info: () => this.info,
            route: (req) => this.table.answer(req),
            entries: () => this.state.requests().requests,
          },
        }),
    );
    return this.consoleApp;
  }

  /** Writes the answer (sendAnswer) and shows it to `onAnswer`. */
  private send(
    res: ServerResponse,
    cid: string,
    answer: MockResponse,
    bytes: BodyChunks | undefined,
    method: string,
    path: string,
  ): Written | undefined {
    // While the mock stops, each answer is the last on its connection.
    const written = sendAnswer(res, cid, answer, bytes, this.closing);
    if (!written || !this.options.onAnswer) return written;
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

/** A password no one can guess from the documentation: 16 characters of base64url. */
function randomPassword(): string {
  return randomBytes(12).toString('base64url');
}

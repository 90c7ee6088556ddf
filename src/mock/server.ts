import { type KeyObject, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BODY_MAX_BYTES, type FaultRule, MarkingsErrorCode, type MockInfo } from '../api/wire.js';
import { adminRoutes } from './admin/routes.js';
import { causeError, faultCause } from './enrollment/errors.js';
import { loadKeyServerKey } from './enrollment/key-server-key.js';
import { ENROLLMENT_PATH } from './enrollment/portal.js';
import { enrollmentRoutes } from './enrollment/routes.js';
import { type Latency, latencyDelay } from './admin/faults.js';
import { MockHttpError, type MockRequest, type MockResponse, Router } from './http.js';
import { markingsRoutes } from './markings/routes.js';
import { applySeed, type Seed } from './state/seed.js';
import { DEFAULT_KEYSPACE, DEFAULT_TENANT, MockState, newDevToken } from './state/state.js';

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
  /** Called after every answer (the serve command logs them). */
  onRequest?: (entry: { method: string; path: string; status: number; durationMs: number }) => void;
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function errorBody(cid: string, error: MockHttpError) {
  return {
    error: {
      cid,
      code: error.code,
      message: error.message,
      ...(error.details && error.details.length > 0 ? { details: error.details } : {}),
    },
  };
}

/**
 * The embedded mock of the whole service side. A factory: the `mock serve` command and the tests
 * only choose where it listens.
 */
export class MockServer {
  readonly state: MockState;
  private readonly router = new Router();
  private readonly http: Server;
  private infoValue: MockInfo | undefined;

  private constructor(private readonly options: MockServerOptions) {
    this.state = new MockState(options.devToken ?? newDevToken());
    loadDefaults(this.state, options.seed);
    if (options.faults) this.state.faults.replace(options.faults);
    this.router.add(
      ...markingsRoutes(this.state),
      ...adminRoutes(this.state, () => this.reset()),
      ...enrollmentRoutes(this.state, () => this.info),
    );
    this.http = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
      void this.handle(req, res);
    });
  }

  static async start(options: MockServerOptions = {}): Promise<MockServer> {
    const server = new MockServer(options);
    // A given key is checked now; a generated one takes seconds, so the mock listens meanwhile
    // and only the enrollment endpoints wait for it.
    server.state.enrollment.setKeyServerKey(
      options.keyServerKey !== undefined
        ? await loadKeyServerKey(options.keyServerKey)
        : loadKeyServerKey(),
    );
    await server.listen();
    return server;
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
        };
        resolve();
      });
    });
  }

  /** Stops accepting, lets requests in flight finish, then resolves. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.http.close(() => resolve());
      this.http.closeIdleConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const url = new URL(req.url ?? '/', 'http://mock');
    const method = req.method ?? 'GET';
    const headerCid = req.headers['x-conversation-id'];
    const cid = typeof headerCid === 'string' && headerCid !== '' ? headerCid : randomUUID();
    let requestBytes = 0;
    let bodyPromise: Promise<Buffer> | undefined;
    const readBody = (): Promise<Buffer> => {
      bodyPromise ??= readLimited(req).then((buf) => {
        requestBytes = buf.length;
        return buf;
      });
      return bodyPromise;
    };
    const request: MockRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      params: {},
      cid,
      body: readBody,
      json: async () => {
        const type = req.headers['content-type'] ?? '';
        if (!/^application\/(.+\+)?json\b/i.test(type)) {
          throw new MockHttpError(
            415,
            MarkingsErrorCode.unsupportedMediaType,
            `Content-Type must be application/json, not ${type || 'missing'}`,
          );
        }
        const text = (await readBody()).toString('utf8');
        try {
          return JSON.parse(text);
        } catch {
          throw new MockHttpError(400, MarkingsErrorCode.badRequest, 'the body is not valid JSON');
        }
      },
    };

    let answer: MockResponse;
    try {
      answer = await this.answer(request);
    } catch (error) {
      const e =
        error instanceof MockHttpError
          ? error
          : new MockHttpError(500, MarkingsErrorCode.internal, 'internal error in the mock');
      answer = { status: e.status, body: errorBody(cid, e), headers: e.headers, reason: e.reason };
    }
    this.send(res, cid, answer);
    const durationMs = Math.round((performance.now() - started) * 10) / 10;
    const length = Number(req.headers['content-length'] ?? 0);
    this.state.record({
      time: new Date().toISOString(),
      method,
      path: url.pathname + url.search,
      status: answer.status,
      cid,
      durationMs,
      requestBytes: requestBytes || length,
    });
    this.options.onRequest?.({ method, path: url.pathname, status: answer.status, durationMs });
  }

  private async answer(req: MockRequest): Promise<MockResponse> {
    if (!req.path.startsWith('/_mock/')) {
      const delay = latencyDelay(this.options.latency);
      if (delay > 0) await sleep(delay);
      const fault = this.state.faults.fire(req.method, req.path);
      if (fault) throw faultError(fault);
    }
    const match = this.router.match(req.method, req.path);
    if (!match) {
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

  private send(res: ServerResponse, cid: string, answer: MockResponse): void {
    const headers: Record<string, string> = { 'x-conversation-id': cid, ...answer.headers };
    let payload: string | undefined;
    if (answer.text !== undefined) {
      payload = answer.text;
      headers['content-type'] ??= 'text/plain; charset=utf-8';
    } else if (answer.body !== undefined) {
      payload = JSON.stringify(answer.body);
      headers['content-type'] = 'application/json';
    }
    headers['content-length'] = String(payload === undefined ? 0 : Buffer.byteLength(payload));
    if (answer.reason) res.statusMessage = answer.reason;
    res.writeHead(answer.status, headers);
    res.end(payload);
  }
}

const retryAfter = (status: number): Record<string, string> =>
  status === 429 || status === 503 ? { 'retry-after': '1' } : {};

/**
 * A rule whose `code` is an enrollment cause (DESIGN.md 2.3) answers, on whatever path it
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

function readLimited(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  const tooLarge = () =>
    new MockHttpError(
      413,
      MarkingsErrorCode.payloadTooLarge,
      `the body is larger than ${BODY_MAX_BYTES} bytes`,
    );
  if (declared > BODY_MAX_BYTES) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_MAX_BYTES) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => (over ? reject(tooLarge()) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

/**
 * The HTTP client for every endpoint of the service: JSON in and out, a conversation id on every
 * request, a timeout per attempt, retries with backoff and jitter, redacted traces, typed errors.
 */
import { Agent, compileWasmForShortProcess, type Dispatcher, request } from './transport.js';
import { attemptTimeout } from './attempt-timeout.js';
import { type KsctlError, ServiceError, UnreachableError } from '../../common/errors.js';
import {
  describeAnswer,
  errorFromAnswer,
  withCredentialsSource,
  withTenantHint,
} from './errors.js';
import { redactHeaders, redactJson, redactUrl } from '../../common/http/redact.js';
import { nestedDeeperThan } from '../../common/encoding/json.js';
import { randomUuid } from '../../common/encoding/random-pool.js';
import { sleep } from '../../common/sleep.js';
import {
  ACCEPTED_ENCODINGS,
  ANSWER_MAX_BYTES,
  ANSWER_MAX_DEPTH,
  AnswerNotDecodable,
  AnswerTooLarge,
  headerText,
  parseBody,
  readBody,
} from './answer-body.js';
import { isTlsRefusal, networkMessage, type Tries, unreachableHint } from './network-failures.js';
import { isAbsolute, type Query, RequestUrls } from './request-url.js';
import { notDecodableError, redirectError, tooLargeError } from './answer-errors.js';
import {
  backoffDelay,
  IDEMPOTENT,
  parseRetryAfter,
  RETRY_STATUS_ANY,
  RETRY_STATUS_IDEMPOTENT,
  retryMessage,
} from './retry-policy.js';

export type Auth =
  | { kind: 'bearer'; token: string }
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'none' };

export interface ClientOptions {
  /**
   * What relative paths are under: the markings base URL, `{server}/v2/{tenant}`. Left out, the
   * client takes absolute URLs only (enrollment, portal and device endpoints live elsewhere).
   */
  baseUrl?: string;
  auth: Auth;
  /** Per-attempt timeout in milliseconds. */
  timeoutMs?: number;
  /** Extra attempts after the first. */
  retries?: number;
  /** Base of the exponential backoff in milliseconds. */
  backoffMs?: number;
  /** Longest wait honoured from a Retry-After header. */
  maxRetryAfterMs?: number;
  /** Receives one line per traced event; secrets are already redacted. */
  trace?: (line: string) => void;
  /**
   * Told when a request starts (with what it is for, "get marking classification"); the handle
   * hears of each wait to retry ("503, retrying in 2 s (attempt 2 of 4)") and of the end. A terminal shows
   * a spinner with it, so no wait on the service is silent.
   */
  activity?: (what: string) => RequestActivity;
  /**
   * False when the base URL is not the markings API's `{base_url}` (the admin and enrollment
   * endpoints live on the origin): a 404 then says nothing about a tenant missing from it.
   */
  markingsBase?: boolean;
  userAgent?: string;
  /**
   * Where the credentials came from when a user may not think of it (an environment variable,
   * `KSCTL_TOKEN`): a 401 names it in its hint.
   */
  credentialsFrom?: string;
  /**
   * The process is a short command (the CLI): WebAssembly is compiled for a quick exit rather
   * than for speed, which sets a V8 flag of the whole process (src/client/api/transport.ts).
   */
  shortLived?: boolean;
  /**
   * CA certificates (PEM) to trust instead of the system's (src/client/config/trust.ts): a server whose
   * certificate does not chain to them is refused.
   */
  ca?: string;
}

export interface RequestActivity {
  retrying(message: string): void;
  done(): void;
}

export interface RequestOptions {
  /** Query parameters; an array sends the parameter once per item (repeated filter terms). */
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  /** Overrides the generated `X-Conversation-ID` (enrollment sends `Basic <uuid>`). */
  conversationId?: string;
  /** What the request was for, used in error messages ("get marking classification"). */
  what?: string;
  /** Turns an error answer into a typed error; the default reads docs/design.md 1.4. */
  mapError?: (status: number, body: unknown, cid: string) => KsctlError;
  /** Statuses that are answers, not errors (for example 404 while resolving a name). */
  okStatuses?: number[];
  /**
   * Checks the body of a success answer and says what is wrong with it, so an answer of the wrong
   * shape (a proxy's page, a truncated document) is a clear error, never a crash further on.
   */
  expect?: (body: unknown) => string | undefined;
  signal?: AbortSignal;
  /** The most the answer's body may hold (default ANSWER_MAX_BYTES; listing pages take more). */
  maxAnswerBytes?: number;
  /**
   * Attempts after the first for this request instead of the client's own (0 for a request that
   * must never be sent twice, such as a device's registration).
   */
  retries?: number;
}

export interface Answer<T> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  conversationId: string;
  /** Bytes of the answer body as received. */
  bytes: number;
}

/**
 * Milliseconds on a monotonic clock. Not `performance.now()`: the first use of that global loads
 * node:perf_hooks, a millisecond of every command's start-up for a duration in a trace line.
 */
function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

function authHeader(auth: Auth): string | undefined {
  if (auth.kind === 'bearer') return `Bearer ${auth.token}`;
  if (auth.kind === 'basic') {
    return `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
  }
  return undefined;
}

/** How a request's messages name it: what it does, its URL as shown, its conversation id. */
interface AttemptNames {
  what: string;
  shownUrl: string;
  cid: string;
}

/**
 * The HTTP client for every endpoint of the service: JSON in and out, a conversation id on every
 * request, per-attempt timeout, retries with backoff and jitter, typed errors.
 */
export class ApiClient {
  readonly baseUrl: string | undefined;
  private readonly dispatcher: Agent;
  private readonly urls: RequestUrls;
  private readonly options: Required<
    Omit<
      ClientOptions,
      | 'baseUrl'
      | 'trace'
      | 'userAgent'
      | 'activity'
      | 'markingsBase'
      | 'shortLived'
      | 'credentialsFrom'
      | 'ca'
    >
  > &
    Pick<ClientOptions, 'trace' | 'userAgent' | 'activity' | 'markingsBase' | 'credentialsFrom'>;

  constructor(options: ClientOptions) {
    if (options.shortLived === true) compileWasmForShortProcess();
    this.baseUrl = options.baseUrl?.replace(/\/+$/, '');
    this.urls = new RequestUrls(this.baseUrl);
    this.options = {
      timeoutMs: 30_000,
      retries: 3,
      backoffMs: 250,
      maxRetryAfterMs: 30_000,
      ...options,
    };
    // Node's timers take whole milliseconds; seconds times 1000 can land a hair off one.
    this.options.timeoutMs = Math.max(1, Math.round(this.options.timeoutMs));
    this.dispatcher = new Agent({
      keepAliveTimeout: 10_000,
      connections: 16,
      headersTimeout: this.options.timeoutMs,
      bodyTimeout: this.options.timeoutMs,
      connect: {
        timeout: Math.min(this.options.timeoutMs, 10_000),
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      },
    });
  }

  /** A path relative to the base URL, or an absolute URL (enrollment and portal endpoints). */
  url(path: string, query?: RequestOptions['query']): string {
    return this.urls.resolve(path, query).href;
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<Answer<T>> {
    const activity = this.options.activity?.(options.what ?? `${method} ${redactUrl(path)}`);
    try {
      return await this.attempts<T>(method, path, options, activity);
    } finally {
      activity?.done();
    }
  }

  private async attempts<T>(
    method: string,
    path: string,
    options: RequestOptions,
    activity: RequestActivity | undefined,
  ): Promise<Answer<T>> {
    const target = this.urls.resolve(path, options.query);
    const { href: url, shown: shownUrl } = target;
    const cid = options.conversationId ?? randomUuid();
    const headers: Record<string, string> = {
      accept: 'application/json',
      'accept-encoding': ACCEPTED_ENCODINGS,
      'x-conversation-id': cid,
      'user-agent': this.options.userAgent ?? 'ksctl',
      ...options.headers,
    };
    const auth = authHeader(this.options.auth);
    if (auth && headers.authorization === undefined) headers.authorization = auth;
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const what = options.what ?? `${method} ${redactUrl(path)}`;
    const idempotent = IDEMPOTENT.has(method);
    const retries = options.retries ?? this.options.retries;

    const began = nowMs();
    for (let attempt = 0; ; attempt++) {
      const started = nowMs();
      if (this.options.trace) {
        this.trace(`> ${method} ${shownUrl}`);
        for (const [k, v] of Object.entries(redactHeaders(headers))) this.trace(`> ${k}: ${v}`);
        if (payload !== undefined) this.traceBody('>', payload);
      }
      let status: number | undefined;
      let responseHeaders: Dispatcher.ResponseData['headers'];
      let text: string;
      // The agent's header and body timeouts have a resolution of about a second and the body
      // one restarts with every chunk; this bounds the whole attempt.
      const timeout = attemptTimeout(this.options.timeoutMs, options.signal);
      try {
        const response = await request(target, {
          method: method as Dispatcher.HttpMethod,
          headers,
          body: payload,
          dispatcher: this.dispatcher,
          signal: timeout.signal,
        });
        status = response.statusCode;
        responseHeaders = response.headers;
        text = await readBody(response, options.maxAnswerBytes ?? ANSWER_MAX_BYTES);
      } catch (error) {
        if (options.signal?.aborted) throw error;
        if (error instanceof AnswerTooLarge) {
          throw tooLargeError(what, shownUrl, status ?? 0, cid, error);
        }
        if (error instanceof AnswerNotDecodable) {
          throw notDecodableError(what, shownUrl, status ?? 0, cid, error);
        }
        const reason = networkMessage(error);
        this.trace(`< ${reason} after ${Math.round(nowMs() - started)} ms`);
        if (idempotent && attempt < retries && !isTlsRefusal(error)) {
          const wait = backoffDelay(attempt, this.options.backoffMs);
          activity?.retrying(retryMessage(wait, reason, attempt + 2, retries + 1));
          await sleep(wait, options.signal);
          continue;
        }
        const tries = { count: attempt + 1, ms: nowMs() - began };
        throw this.failedAttempt(error, reason, status, tries, {
          method,
          path,
          url,
          what,
          shownUrl,
          cid,
        });
      } finally {
        timeout.clear();
      }
      if (this.options.trace) {
        const ms = Math.round(nowMs() - started);
        this.trace(`< ${status} (${ms} ms, ${Buffer.byteLength(text)} bytes)`);
        for (const [k, v] of Object.entries(redactHeaders(responseHeaders)))
          this.trace(`< ${k}: ${v}`);
      }
      const body = parseBody(text, responseHeaders['content-type']);
      if (nestedDeeperThan(body, ANSWER_MAX_DEPTH)) {
        throw new ServiceError(
          `${what}: the answer from ${shownUrl} (HTTP ${status}) is JSON nested deeper than ${ANSWER_MAX_DEPTH} levels; the service sends nothing like it`,
          {
            hint: 'check the URL: it should point at the service itself, not at a web page or a proxy',
            conversationId: cid,
            status,
          },
        );
      }
      if (text.length > 0) this.traceBody('<', text);

      const retryable = (idempotent ? RETRY_STATUS_IDEMPOTENT : RETRY_STATUS_ANY).has(status);
      if (retryable && attempt < retries) {
        const after = parseRetryAfter(responseHeaders['retry-after']);
        const wait =
          after !== undefined
            ? Math.min(after, this.options.maxRetryAfterMs)
            : backoffDelay(attempt, this.options.backoffMs);
        this.trace(`  retrying in ${wait} ms (attempt ${attempt + 2} of ${retries + 1})`);
        activity?.retrying(retryMessage(wait, String(status), attempt + 2, retries + 1));
        await sleep(wait, options.signal);
        continue;
      }
      this.checkAnswer(status, responseHeaders, body, options, { path, url, what, shownUrl, cid });
      return {
        status,
        headers: responseHeaders,
        body: body as T,
        conversationId: cid,
        bytes: Buffer.byteLength(text),
      };
    }
  }

  /** The error of an attempt that got no whole answer (and is not retried). */
  private failedAttempt(
    error: unknown,
    reason: string,
    status: number | undefined,
    tries: Tries,
    {
      method,
      path,
      url,
      what,
      shownUrl,
      cid,
    }: AttemptNames & {
      method: string;
      path: string;
      url: string;
    },
  ): KsctlError {
    if (status !== undefined) {
      // The service answered, but its body broke off (a proxy or a crash mid-answer).
      return new ServiceError(
        `${what}: the answer from ${shownUrl} (HTTP ${status}) was cut short: ${reason}`,
        {
          hint: 'the service or a proxy in front of it broke off; try again, and if it persists quote the conversation id to its operators',
          conversationId: cid,
          status,
          cause: error,
        },
      );
    }
    return new UnreachableError(
      what,
      reason,
      `${what}: cannot reach the service at ${new URL(url).origin}: ${reason}`,
      {
        hint: unreachableHint(reason, method, this.options.timeoutMs, !isAbsolute(path), tries),
        conversationId: cid,
        cause: error,
      },
    );
  }

  /** Throws for an answer the caller must not take: a redirect, an error, an unexpected body. */
  private checkAnswer(
    status: number,
    responseHeaders: Dispatcher.ResponseData['headers'],
    body: unknown,
    options: RequestOptions,
    { path, url, what, shownUrl, cid }: AttemptNames & { path: string; url: string },
  ): void {
    const contentType = headerText(responseHeaders['content-type']);
    const expected = options.okStatuses?.includes(status) === true;
    if (status >= 300 && status < 400 && !expected) {
      throw redirectError(what, url, status, headerText(responseHeaders.location), cid);
    }
    if (status >= 400 && !expected) {
      const received = { url: shownUrl, contentType };
      const mapped = (options.mapError ?? ((s, b, c) => errorFromAnswer(s, b, c, what, received)))(
        status,
        body,
        cid,
      );
      const { credentialsFrom } = this.options;
      const error =
        credentialsFrom === undefined ? mapped : withCredentialsSource(mapped, credentialsFrom);
      const tenantBase =
        isAbsolute(path) || this.options.markingsBase === false ? undefined : this.baseUrl;
      throw status === 404 && tenantBase !== undefined ? withTenantHint(error, tenantBase) : error;
    }
    const problem = status < 300 ? options.expect?.(body) : undefined;
    if (problem !== undefined) {
      throw new ServiceError(
        `${what}: the answer from ${shownUrl} is not what the service sends (${problem}); it is ${describeAnswer(body, contentType)}`,
        {
          hint: 'check the URL: it should point at the service itself, not at a web page or a proxy',
          conversationId: cid,
          status,
        },
      );
    }
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private trace(line: string): void {
    this.options.trace?.(line);
  }

  private traceBody(direction: string, text: string): void {
    if (!this.options.trace) return;
    let shown: string;
    try {
      shown = JSON.stringify(redactJson(JSON.parse(text)));
    } catch {
      shown = '[non-JSON body]';
    }
    const limit = 2000;
    this.trace(
      `${direction} ${shown.length > limit ? `${shown.slice(0, limit)}… (${shown.length} chars)` : shown}`,
    );
  }
}

/**
 * The recording proxy of `ksctl mock record`: an app pointed at it reaches the real service
 * through it, and each exchange is journaled by the mock's own request journal (so its secrets
 * are redacted as the mock redacts its own), served at the same `/_mock/requests` endpoints as
 * the mock's (so `ksctl mock requests` works against it), and, with a spool, kept for the
 * recording that `--out` writes (src/common/mock/wire.ts `Recording`).
 *
 * - A request that bears the recorder's dev token is sent on with the target's credentials
 *   instead: the real token stays in this process, and the context `mock record` writes holds
 *   only the dev token. Any other credentials (the app's own) are sent on as they are.
 * - The recording keeps the first RECORDING_BODY_KEPT_BYTES of each body (a replay sends them
 *   again; a listing of 100,000 values fits), the journal that `ksctl mock requests` reads the
 *   first 64 KiB as the mock's does. A body longer than that is marked `truncated`.
 * - Bodies are asked for without compression (`Accept-Encoding: identity`) so that they are
 *   recorded as the JSON they are.
 * - The spool is a file of one redacted exchange a line, so memory stays that of the exchanges in
 *   flight however long the recording runs.
 * - The mock's console is served at `/_mock/console/` over the recorder's journal (its Requests
 *   page, live; the pages of a mock's state are not there): signed in with a link `consoleUrl()`
 *   makes, with the dev token, or with a link `ksctl mock console` asks for. Its sign-in codes,
 *   sessions and CSRF tokens are told to the journal's secrets; its own requests are not journaled.
 */
import { once } from 'node:events';
import type { FileHandle } from 'node:fs/promises';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { MarkingsErrorCode } from '../../common/markings/wire.js';
import { ConsoleSignIn, isConsolePath, signInLink } from '../model/console/sign-in.js';
import type { DeviceKeyring } from '../request-detail/device.js';
import { isoTime, redactQuery } from '../journal/entry.js';
import { Journal } from '../journal/request-journal.js';
import { errorBody, header, RecorderEndpoints } from './recorder-endpoints.js';
import type { JournalEntry, Recording } from '../../common/mock/wire.js';

/** How much of each body the recording keeps; the rest is marked `truncated`. */
export const RECORDING_BODY_KEPT_BYTES = 16 * 1024 * 1024;

/** Headers of one hop only (RFC 9110 7.6.1), and those the proxy sets itself (Host, Accept-Encoding). */
const NOT_SENT_ON = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'accept-encoding',
]);

export interface RecorderOptions {
  host: string;
  port: number;
  /** The origin of the service recorded (`https://tenant.example`). */
  target: string;
  /** The tenant whose markings paths the journal's `ksctl` lines write under the base URL. */
  tenant: string;
  /** The recorder's own token: reads `/_mock/requests`, and stands for the target's credentials. */
  devToken: string;
  /** The `Authorization` the dev token stands for, when the target's context has credentials. */
  targetAuthorization?: string;
  /** Values scrubbed wherever they appear in what is journaled (the target's token). */
  secrets: string[];
  /** An open file the recording's exchanges are appended to, one JSON line each. */
  spool?: FileHandle;
  /** Told of each exchange once it is journaled. */
  onExchange?: (entry: JournalEntry) => void;
  /**
   * The keys of the app's devices (`--profiles`): `/_mock/requests/{id}` opens a device request
   * with them as the mock opens its own. Without them device requests stay sealed.
   */
  keyring?: DeviceKeyring;
  /** Serve the console at /_mock/console/ (default true); false: its paths are not found. */
  console?: boolean;
}

interface Kept {
  chunks: Buffer[];
  kept: number;
  bytes: number;
}

function keep(into: Kept, chunk: Buffer): void {
  into.bytes += chunk.length;
  const room = RECORDING_BODY_KEPT_BYTES - into.kept;
  if (room <= 0) return;
  const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
  into.chunks.push(part);
  into.kept += part.length;
}

const bodyOf = (kept: Kept) => Buffer.concat(kept.chunks, kept.kept);

export class Recorder {
  /** What `ksctl mock requests` and `/_mock/requests` read: bodies cut at 64 KiB. */
  readonly journal: Journal;
  /** The same exchanges with more of each body, each let go once it is in the spool. */
  private readonly recording: Journal;
  private readonly inFlight = new Set<Promise<void>>();
  private spoolWrites: Promise<unknown> = Promise.resolve();
  private spooled = 0;
  /** Why an exchange could not be spooled (a full disk): the recording must not be written. */
  spoolFailure: unknown = undefined;
  readonly startedAt = new Date().toISOString();
  /** Set while the console is on. */
  private readonly signIn: ConsoleSignIn | undefined;
  /** `/_mock/health`, `/_mock/requests` and the console. */
  private readonly endpoints: RecorderEndpoints;
  private closing = false;

  private constructor(
    private readonly server: Server,
    private readonly options: RecorderOptions,
  ) {
    this.journal = new Journal();
    this.recording = new Journal({
      bodyKeptBytes: RECORDING_BODY_KEPT_BYTES,
      bodiesMaxBytes: Number.POSITIVE_INFINITY,
    });
    for (const secret of [options.devToken, ...options.secrets]) {
      this.journal.secrets.add(secret);
      this.recording.secrets.add(secret);
    }
    if (options.console !== false) {
      this.signIn = new ConsoleSignIn(
        () => Number(new URL(this.url).port),
        Date.now,
        false,
        (secret) => {
          this.journal.secrets.add(secret);
          this.recording.secrets.add(secret);
        },
      );
    }
    this.endpoints = new RecorderEndpoints({
      journal: this.journal,
      target: options.target,
      tenant: options.tenant,
      devToken: options.devToken,
      keyring: options.keyring,
      signIn: this.signIn,
      url: () => this.url,
      closing: () => this.closing,
    });
  }

  /** A fresh one-time sign-in link to the console, or undefined when it is off. */
  consoleUrl(): string | undefined {
    return this.signIn && signInLink(this.url, this.signIn.newCode());
  }

  static async start(options: RecorderOptions): Promise<Recorder> {
    const server = createServer();
    const recorder = new Recorder(server, options);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const exchange = recorder.answer(req, res).catch(() => {
        // Every failure is answered inside; a socket gone meanwhile leaves nothing to do.
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      recorder.inFlight.add(exchange);
      void exchange.finally(() => recorder.inFlight.delete(exchange));
    });
    server.listen(options.port, options.host);
    await Promise.race([
      once(server, 'listening'),
      once(server, 'error').then(([error]) => Promise.reject(error as Error)),
    ]);
    return recorder;
  }

  /** `http://host:port` of the proxy. */
  get url(): string {
    const { address, port } = this.server.address() as AddressInfo;
    const host = address.includes(':') ? `[${address}]` : address;
    return `http://${host}:${port}`;
  }

  /** Exchanges written to the spool. */
  get recorded(): number {
    return this.spooled;
  }

  /** Stops taking connections and waits for the exchanges in flight to be journaled. */
  async close(): Promise<void> {
    this.closing = true;
    await this.endpoints.close();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    await Promise.allSettled([...this.inFlight]);
    this.server.closeAllConnections();
    await closed;
    await this.spoolWrites;
  }

  /**
   * The recording as JSON text in chunks, its exchanges read back from the spool (`path`) one
   * line at a time. Call after close().
   */
  static async *recordingText(
    header: Omit<Recording, 'exchanges'>,
    spool: AsyncIterable<string>,
  ): AsyncIterable<string> {
    const head = JSON.stringify({ ...header, exchanges: [] }, null, 2);
    yield `${head.slice(0, head.lastIndexOf('[') + 1)}`;
    let first = true;
    for await (const line of spool) {
      if (line === '') continue;
      yield `${first ? '\n' : ',\n'}    ${line}`;
      first = false;
    }
    yield first ? ']\n}\n' : '\n  ]\n}\n';
  }

  /**
   * The spool's lines, read once iterated: a readline made earlier would read an empty spool to
   * its end before anyone listens, and its iterator would then wait forever.
   */
  static async *spoolLines(handle: FileHandle): AsyncIterable<string> {
    yield* createInterface({
      input: handle.createReadStream({ start: 0, autoClose: false }),
      crlfDelay: Infinity,
    });
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    const path = target.split('?', 1)[0]!;
    // Only a path goes on, and only to the target: an absolute URL (a forward proxy's request
    // form) or a path read as another host (`//elsewhere/`) would send the app's credentials there.
    const upstream = target.startsWith('/') ? urlOf(`${this.options.target}${target}`) : undefined;
    if (upstream === undefined || upstream.origin !== this.options.target) {
      const body = errorBody(
        header(req.headers, 'x-conversation-id') ?? '',
        MarkingsErrorCode.badRequest,
        'ksctl mock record takes a path on the service it records, not a URL',
      );
      res.writeHead(400, { 'content-type': 'application/json' }).end(body);
      return;
    }
    if (this.signIn && isConsolePath(path)) return this.endpoints.console(req, res, target);
    if (path === '/_mock' || path.startsWith('/_mock/'))
      return this.endpoints.admin(req, res, target);
    return this.forward(req, res, upstream);
  }

  /** Sends the request on to the target and its answer back, journaling both. */
  private async forward(
    req: IncomingMessage,
    res: ServerResponse,
    upstreamUrl: URL,
  ): Promise<void> {
    const started = Date.now();
    const method = req.method ?? 'GET';
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !NOT_SENT_ON.has(name)) headers[name] = value;
    }
    headers['accept-encoding'] = 'identity';
    if (
      this.options.targetAuthorization !== undefined &&
      header(req.headers, 'authorization') === `Bearer ${this.options.devToken}`
    ) {
      headers.authorization = this.options.targetAuthorization;
    }
    const sent: Kept = { chunks: [], kept: 0, bytes: 0 };
    const answered: Kept = { chunks: [], kept: 0, bytes: 0 };
    let status = 502;
    let responseHeaders: Record<string, string> = {};
    const cid = header(req.headers, 'x-conversation-id') ?? '';
    try {
      const request = upstreamUrl.protocol === 'https:' ? httpsRequest : httpRequest;
      await new Promise<void>((resolve, reject) => {
        const upstream = request(upstreamUrl, { method, headers }, (answer) => {
          status = answer.statusCode ?? 502;
          responseHeaders = {};
          for (const [name, value] of Object.entries(answer.headers)) {
            if (value === undefined || NOT_SENT_ON.has(name)) continue;
            responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          res.writeHead(status, answer.statusMessage, responseHeaders);
          answer.on('data', (chunk: Buffer) => {
            keep(answered, chunk);
            if (!res.write(chunk)) {
              answer.pause();
              res.once('drain', () => answer.resume());
            }
          });
          answer.once('end', () => {
            res.end();
            resolve();
          });
          answer.once('error', reject);
        });
        upstream.once('error', reject);
        req.on('data', (chunk: Buffer) => keep(sent, chunk));
        req.once('error', reject);
        res.once('close', () => {
          if (!res.writableFinished) {
            upstream.destroy();
            reject(new Error('the client went away'));
          }
        });
        req.pipe(upstream);
      });
    } catch (error) {
      if (res.headersSent) {
        res.destroy();
      } else {
        status = 502;
        const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        const body = errorBody(
          cid,
          MarkingsErrorCode.internal,
          `ksctl mock record: the service at ${this.options.target} did not answer (${String(reason).slice(0, 100)})`,
        );
        responseHeaders = { 'content-type': 'application/json' };
        answered.chunks = [Buffer.from(body)];
        answered.kept = answered.bytes = Buffer.byteLength(body);
        res.writeHead(502, responseHeaders).end(body);
      }
    }
    this.journalExchange({
      time: isoTime(started),
      method,
      path: `${upstreamUrl.pathname}${redactQuery(upstreamUrl.searchParams)}`,
      status,
      cid,
      durationMs: Date.now() - started,
      requestBytes: sent.bytes,
      responseBytes: answered.bytes,
      requestHeaders: req.headers,
      responseHeaders,
      requestBody: sent.bytes === 0 ? undefined : bodyOf(sent),
      responseBody: [bodyOf(answered)],
    });
  }

  private journalExchange(exchange: Parameters<Journal['record']>[0]): void {
    const entry = this.journal.record(exchange);
    const spool = this.options.spool;
    if (spool !== undefined) {
      // The requestBody given is at most RECORDING_BODY_KEPT_BYTES; its size is requestBytes.
      const kept = this.recording.record(exchange);
      const line = `${JSON.stringify(this.recording.get(kept.id))}\n`;
      this.recording.clear();
      this.spoolWrites = this.spoolWrites.then(async () => {
        // After a failed write the recording is incomplete: nothing more is spooled.
        if (this.spoolFailure !== undefined) return;
        try {
          await spool.appendFile(line);
          this.spooled += 1;
        } catch (error) {
          this.spoolFailure = error;
        }
      });
    }
    this.options.onExchange?.(entry);
  }
}

function urlOf(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

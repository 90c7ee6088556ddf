/**
 * From Node's request to the router's MockRequest, and from any failure to a JSON error answer:
 * every step here copes with whatever a client sends (docs/design.md 3.2.1).
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, validateHeaderName, validateHeaderValue } from 'node:http';
import {
  BODY_MAX_BYTES,
  DESCRIPTION_MAX_LENGTH,
  MarkingsErrorCode,
  VALUES_MAX_PER_MARKING,
} from '../../common/markings/wire.js';
import { CauseCode } from '../../common/enrollment/causes.js';
import { causeError, ENROLLMENT_PATH } from '../model/enrollment/errors.js';
import { MockHttpError, type MockRequest, type MockResponse } from '../kit/http.js';
import {
  type JsonLimits,
  MAX_JSON_DEPTH,
  OFF_THREAD_BYTES,
  overLimit,
  parseJsonBody,
  type ParsedJson,
} from '../kit/json-worker.js';

/**
 * The request's X-Conversation-ID, to echo byte for byte: Node reads header bytes as Latin-1 and
 * writes Latin-1 strings back as the same bytes. A new UUID when there is none.
 */
export function conversationId(req: IncomingMessage): string {
  const header = req.headers['x-conversation-id'];
  return typeof header === 'string' && header !== '' ? header : randomUUID();
}

/** The path and query of a request target. */
export type RequestTarget = Pick<URL, 'pathname' | 'searchParams'>;

/**
 * A path of unreserved characters only and without `.` or `..` segments: the URL parser neither
 * encodes nor resolves anything in it.
 */
const PLAIN_PATH = /^(?:\/(?!\.\.?(?:\/|$))[A-Za-z0-9_.~-]*)+$/;

/**
 * The path and query of the request target: origin form (`/path?q`, including `//` and
 * `//x:99999/`, which are paths here, not URLs) or absolute form (`http://host/path`).
 * Undefined for anything else (`*`, `http://[/`).
 */
export function requestTarget(target: string | undefined): RequestTarget | undefined {
  if (target === undefined) return undefined;
  // Most targets are a plain path, which the URL parser gives back as it is: read without it.
  if (PLAIN_PATH.test(target)) return { pathname: target, searchParams: new URLSearchParams() };
  try {
    if (target.startsWith('/')) return new URL(`http://mock${target}`);
    return /^https?:\/\//i.test(target) ? new URL(target) : undefined;
  } catch {
    return undefined;
  }
}

function tooLarge(maxBytes: number): MockHttpError {
  return new MockHttpError(
    413,
    MarkingsErrorCode.payloadTooLarge,
    `the body is larger than ${maxBytes} bytes`,
  );
}

/**
 * The request body, read once, checked while it streams in: at most BODY_MAX_BYTES, or the
 * smaller bound of the first `read` (device requests have their own).
 */
export class BodyReader {
  bytesRead = 0;
  /** The body once read whole (the request journal keeps its start). */
  received: Buffer | undefined;
  private body: Promise<Buffer> | undefined;

  constructor(private readonly req: IncomingMessage) {}

  read(maxBytes = BODY_MAX_BYTES): Promise<Buffer> {
    this.body ??= this.readLimited(Math.min(maxBytes, BODY_MAX_BYTES));
    return this.body;
  }

  private readLimited(maxBytes: number): Promise<Buffer> {
    const req = this.req;
    if (Number(req.headers['content-length']) > maxBytes) {
      req.resume();
      return Promise.reject(tooLarge(maxBytes));
    }
    // A large body of known size is gathered in shared memory as it arrives: the parsing thread
    // then reads it where it is, and no step copies 32 MiB at once on the main thread.
    const declared = Number(req.headers['content-length']);
    const shared =
      Number.isInteger(declared) && declared > OFF_THREAD_BYTES
        ? Buffer.from(new SharedArrayBuffer(declared))
        : undefined;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let over = false;
      req.on('data', (chunk: Buffer) => {
        const at = this.bytesRead;
        this.bytesRead += chunk.length;
        // The rest is drained, not kept: the answer (413) waits for the client to finish.
        if (this.bytesRead > maxBytes) over = true;
        if (over) return;
        if (shared && this.bytesRead <= shared.length) chunk.copy(shared, at);
        else chunks.push(chunk);
      });
      req.on('end', () => {
        if (over) reject(tooLarge(maxBytes));
        else {
          this.received = shared ? shared.subarray(0, this.bytesRead) : Buffer.concat(chunks);
          resolve(this.received);
        }
      });
      req.on('error', reject);
      req.on('close', () => {
        if (!req.complete) {
          reject(new MockHttpError(400, MarkingsErrorCode.badRequest, 'the body was cut short'));
        }
      });
    });
  }
}

/**
 * What the JSON bodies of the service can hold at most: the values of one marking (100,000) are
 * its longest array, a description (4,096 characters, each up to two UTF-16 units) its longest
 * string. More is rejected while parsing, off the main thread.
 */
const BODY_LIMITS: JsonLimits = {
  maxArrayLength: VALUES_MAX_PER_MARKING,
  maxStringLength: 2 * DESCRIPTION_MAX_LENGTH,
};

function unreadable(parsed: Exclude<ParsedJson, { ok: true }>): MockHttpError {
  const message = {
    encoding: 'the body is not valid UTF-8',
    syntax: 'the body is not valid JSON',
    depth: `the body is nested deeper than ${MAX_JSON_DEPTH} levels`,
    array: overLimit('array', BODY_LIMITS, 'the body'),
    string: overLimit('string', BODY_LIMITS, 'the body'),
    values: overLimit('values', BODY_LIMITS, 'the body'),
  }[parsed.problem];
  const code =
    parsed.problem === 'array' || parsed.problem === 'string'
      ? MarkingsErrorCode.validation
      : MarkingsErrorCode.badRequest;
  return new MockHttpError(400, code, message);
}

export function mockRequest(
  req: IncomingMessage,
  method: string,
  target: RequestTarget,
  cid: string,
  body: BodyReader,
): MockRequest {
  const parsedBody = async () => parseJsonBody(await body.read());
  return {
    method,
    path: target.pathname,
    query: target.searchParams,
    headers: req.headers,
    secure: (req.socket as { encrypted?: boolean }).encrypted === true,
    params: {},
    cid,
    body: (maxBytes) => body.read(maxBytes),
    parsedBody,
    json: async () => {
      const type = req.headers['content-type'] ?? '';
      if (!/^application\/([\w.-]+\+)?json(?![\w.+-])/i.test(type)) {
        throw new MockHttpError(
          415,
          MarkingsErrorCode.unsupportedMediaType,
          `Content-Type must be application/json, not ${type.slice(0, 100) || 'missing'}`,
        );
      }
      const parsed = await parseJsonBody(await body.read(), BODY_LIMITS);
      if (!parsed.ok) throw unreadable(parsed);
      return parsed.value;
    },
  };
}

/** The enrollment side answers unexpected failures with its own code (docs/design.md 2.3). */
function isEnrollmentPath(path: string): boolean {
  return path.startsWith('/v2.') || path.startsWith(`${ENROLLMENT_PATH}/`);
}

/**
 * The answer for a failure: an expected MockHttpError as it is; anything else is a bug in the
 * mock, answered as an internal error (50005 on enrollment paths), never a crash.
 */
export function errorAnswer(cid: string, error: unknown, path: string): MockResponse {
  const e =
    error instanceof MockHttpError
      ? error
      : isEnrollmentPath(path)
        ? causeError(CauseCode.internalError)
        : new MockHttpError(500, MarkingsErrorCode.internal, 'internal error in the mock');
  const body = {
    error: {
      cid,
      code: e.code,
      message: e.message,
      ...(e.details && e.details.length > 0 ? { details: e.details } : {}),
    },
  };
  return { status: e.status, body, headers: e.headers, reason: e.reason };
}

/** Characters Node refuses in a header value, percent-encoded as UTF-8. */
function percentEncode(value: string): string {
  return value.replace(/[^\t\x20-\x7e\x80-\xff]/gu, (c) =>
    Array.from(
      Buffer.from(c, 'utf8'),
      (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    ).join(''),
  );
}

/** A header name Node writes (an HTTP token), and a value it writes as it is. */
const HEADER_NAME = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The headers as Node will write them: invalid values percent-encoded, invalid names left out. */
export function writableHeaders(headers: Record<string, string>): Record<string, string> {
  // Nearly always every one is fine as it is: the same object, without a check that throws.
  let plain = true;
  for (const name in headers) {
    const value = headers[name];
    if (typeof value !== 'string' || !HEADER_NAME.test(name) || !HEADER_VALUE.test(value)) {
      plain = false;
      break;
    }
  }
  if (plain) return headers;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    try {
      validateHeaderName(name);
    } catch {
      continue;
    }
    try {
      validateHeaderValue(name, value);
      out[name] = value;
    } catch {
      out[name] = percentEncode(value);
    }
  }
  return out;
}

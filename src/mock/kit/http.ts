import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorDetailWire } from '../../common/http/error-body.js';
import { MarkingsErrorCode } from '../../common/markings/wire.js';
import type { ParsedJson } from './json-worker.js';

/** An expected error answer: becomes a JSON error body with the request's conversation id. */
export class MockHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly details?: ErrorDetailWire[],
    readonly headers: Record<string, string> = {},
    /** Reason phrase when it differs from the standard one (the enrollment table has some). */
    readonly reason?: string,
  ) {
    super(message);
  }
}

/** 405 for a method the path does not take, with the methods it does in `Allow`. */
export function methodNotAllowed(method: string, allowed: readonly string[]): MockHttpError {
  return new MockHttpError(
    405,
    MarkingsErrorCode.methodNotAllowed,
    `${method} is not allowed here`,
    undefined,
    { allow: allowed.join(', ') },
  );
}

export interface MockResponse {
  status: number;
  body?: unknown;
  /** Sent as is, instead of JSON (the key server's public key is text/plain). */
  text?: string;
  /**
   * Bytes sent as they are, whole or in chunks (the console's files, a page of the journal); the
   * headers give their Content-Type.
   */
  bytes?: Buffer | readonly Buffer[];
  /**
   * An answer that goes on after its head (the console's server-sent events): called with the
   * response once the status and headers are written, without a Content-Length.
   */
  stream?: (res: ServerResponse) => void;
  headers?: Record<string, string>;
  reason?: string;
  /** The error code sealed in a device answer: kept in the journal, never sent. */
  deviceCode?: number;
}

export interface MockRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** It came over TLS (`mock serve --tls`); absent on requests made up inside the mock. */
  secure?: boolean;
  params: Record<string, string>;
  cid: string;
  /** The body, read once, bounded by the size limit or by `maxBytes` if smaller. */
  body(maxBytes?: number): Promise<Buffer>;
  /**
   * The body as JSON; 415 unless it is application/json, 400 when it is not UTF-8 JSON or is
   * nested too deeply. Large bodies are parsed off the main thread.
   */
  json(): Promise<unknown>;
  /** The body parsed as json() does, whatever its Content-Type, for handlers with own errors. */
  parsedBody(): Promise<ParsedJson>;
}

export function json(
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): MockResponse {
  return { status, body, headers };
}

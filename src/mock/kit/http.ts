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

export type Handler = (req: MockRequest) => MockResponse | Promise<MockResponse>;

export interface Route {
  method: string;
  /** Segments; `:name` captures one segment. */
  pattern: string;
  handler: Handler;
}

export function route(method: string, pattern: string, handler: Handler): Route {
  return { method, pattern, handler };
}

export function json(
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): MockResponse {
  return { status, body, headers };
}

interface CompiledRoute extends Route {
  segments: string[];
}

/** Routes as values, matched by segments; answers 404 or 405 when nothing matches. */
export class Router {
  private readonly routes: CompiledRoute[] = [];

  add(...routes: Route[]): this {
    for (const r of routes)
      this.routes.push({ ...r, segments: r.pattern.split('/').filter(Boolean) });
    return this;
  }

  /** Every route's method and pattern, in the order they were added. */
  list(): { method: string; pattern: string }[] {
    return this.routes.map(({ method, pattern }) => ({ method, pattern }));
  }

  match(
    method: string,
    path: string,
  ): { handler: Handler; params: Record<string, string> } | { allowed: string[] } | undefined {
    const parts = path.split('/').filter(Boolean);
    const allowed: string[] = [];
    for (const r of this.routes) {
      const params = matchSegments(r.segments, parts);
      if (!params) continue;
      if (r.method === method) return { handler: r.handler, params };
      allowed.push(r.method);
    }
    return allowed.length > 0 ? { allowed } : undefined;
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const part = parts[i]!;
    if (p.startsWith(':')) {
      try {
        params[p.slice(1)] = decodeURIComponent(part);
      } catch {
        return undefined;
      }
    } else if (p !== part) return undefined;
  }
  return params;
}

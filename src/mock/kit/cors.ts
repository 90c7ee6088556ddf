/**
 * Cross-origin requests from browsers (on by default; `mock serve --no-cors` turns it off). The
 * vendor's JS SDK runs in web pages, served from another origin than the mock, so a browser lets
 * it read an answer only when the answer names its origin, and sends a preflight `OPTIONS`
 * before a request with JSON or its own headers. The mock names the request's origin (never
 * `*`, never with credentials: it has no cookies), answers every preflight with 204 and the
 * methods and headers asked for, and lets pages read every answer header (the portal's
 * `X-Ionic-Reg-*` among them).
 */
import type { IncomingMessage } from 'node:http';
import type { MockResponse } from './http.js';

/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;
const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
/** `scheme://host[:port]` or `null` (a sandboxed or file page), and nothing a header could not carry. */
const ORIGIN = /^(?:null|[a-z][a-z0-9+.-]*:\/\/[A-Za-z0-9._~:[\]%-]+)$/;
/** A list of header names as a preflight asks for them. */
const HEADER_NAMES = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;
const MAX_HEADER_TEXT = 1000;

/** The request's Origin, when it is one the mock can name back. */
export function corsOrigin(req: IncomingMessage): string | undefined {
  const origin = req.headers.origin;
  return typeof origin === 'string' && origin.length <= 300 && ORIGIN.test(origin)
    ? origin
    : undefined;
}

export function isPreflight(req: IncomingMessage): boolean {
  return req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
}

/** 204: any method, the headers asked for (when they are header names), cached a while. */
export function preflightAnswer(req: IncomingMessage, origin: string): MockResponse {
  const asked = req.headers['access-control-request-headers'];
  const headers: Record<string, string> = {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': METHODS,
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
    vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  };
  if (typeof asked === 'string' && asked.length <= MAX_HEADER_TEXT && HEADER_NAMES.test(asked)) {
    headers['access-control-allow-headers'] = asked;
  }
  return { status: 204, headers };
}

/** The answer, readable by a page of `origin`. */
export function withCors(answer: MockResponse, origin: string): MockResponse {
  const vary = answer.headers?.vary;
  return {
    ...answer,
    headers: {
      ...answer.headers,
      'access-control-allow-origin': origin,
      'access-control-expose-headers': '*',
      vary: vary === undefined ? 'Origin' : `${vary}, Origin`,
    },
  };
}

/**
 * The console's routes as families of the route table, loaded with the server while the console
 * itself (app.ts, api.ts, its assets and event streams) is loaded when a browser first asks:
 *
 *   /_mock/console/api/markings…   the default tenant's markings API as the dev principal (mock only)
 *   /_mock/console/api/…           the JSON API, a session for any path under it
 *   /_mock/console…                the page, its files, signing in and out, sign-in links
 *
 * Every answer of each family carries the Content-Security-Policy below (no inline script or
 * style, nothing from elsewhere), nosniff and `Referrer-Policy: same-origin`, errors included.
 */
import { MarkingsErrorCode } from '../../../common/markings/wire.js';
import { MockHttpError } from '../../kit/http.js';
import { CONSOLE_PATH } from '../../model/console/sign-in.js';
import type { RouteFamily } from '../../request/route.js';
import type { ConsoleApp } from './app.js';

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** Why a page of the mock's state is not found on a recorder's console. */
export const RECORDER_PAGES_ONLY =
  "ksctl mock record's console shows its requests only: markings, devices, faults and tokens belong to a mock (ksctl mock serve)";

const API = `${CONSOLE_PATH}/api`;

/**
 * The console's families, first match first. `app` loads the console once; `mock` says whether
 * it shows a mock's state (on `ksctl mock record` it does not).
 */
export function consoleFamilies(app: () => Promise<ConsoleApp>, mock: boolean): RouteFamily[] {
  const notFound = (path: string) =>
    new MockHttpError(
      404,
      MarkingsErrorCode.notFound,
      mock ? `no such resource: ${path}` : RECORDER_PAGES_ONLY,
    );
  const markings: RouteFamily = {
    prefix: `${API}/markings`,
    access: 'session',
    headers: SECURITY_HEADERS,
    routes: () => [],
    unmatched: async (req) => (await app()).markings(req),
  };
  const api: RouteFamily = {
    prefix: `${API}/`,
    access: 'session',
    headers: SECURITY_HEADERS,
    routes: async () => (await app()).api(),
    unmatched: (req) => {
      throw notFound(req.path);
    },
  };
  const pages: RouteFamily = {
    prefix: CONSOLE_PATH,
    exact: true,
    headers: SECURITY_HEADERS,
    routes: async () => (await app()).pages(),
    unmatched: async (req) => (await import('./app.js')).consoleRoot(req),
  };
  return mock ? [markings, api, pages] : [api, pages];
}

/**
 * The mock's console on the server side, loaded the first time a browser asks for
 * `/_mock/console/…` (the mock's start-up and the CLI never load it):
 *
 *   GET  /_mock/console/                  the page (console/index.html); assets/… its files
 *   GET  /_mock/console/login?code=C      a sign-in link's one-time code → session cookie, 303
 *   POST /_mock/console/login             form `token=<dev token>` → session cookie, 303
 *   POST /_mock/console/logout            ends the session, 303
 *   POST /_mock/console/links             (dev token) → 201 {consoleUrl}: a fresh sign-in link
 *   …    /_mock/console/api/…             the console's JSON API (api.ts), session required
 *
 * Every answer carries the Content-Security-Policy below (no inline script or style, nothing from
 * elsewhere), nosniff and `Referrer-Policy: same-origin`: the console's own requests name their
 * origin, and other origins learn nothing of its addresses. (Under `no-referrer` a browser sends
 * `Origin: null` with a plain form's POST, and the sign-in form would be refused as foreign.)
 * The API needs the session cookie (401 without), and a request that changes something also its
 * CSRF token in `X-Ksctl-Csrf` and, when the browser sends an Origin, the mock's own (403
 * otherwise, `null` included). The sign-in form, plain or sent from script, checks the Origin too.
 */
import { MarkingsErrorCode } from '../../../common/markings/wire.js';
import { requireAdmin } from '../../request/auth.js';
import {
  json,
  methodNotAllowed,
  MockHttpError,
  type MockRequest,
  type MockResponse,
} from '../../kit/http.js';
import { errorAnswer } from '../../request/request.js';
import { consoleApi, type ConsoleDeps } from './api.js';
import { asset, indexPage } from './assets.js';
import { EventStreams } from './events.js';
import { CONSOLE_PATH, type ConsoleSession, sameSecret, signInLink } from './sign-in.js';

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

const FORM_MAX_BYTES = 4096;

const redirect = (location: string, cookie?: string): MockResponse => ({
  status: 303,
  headers: { location, ...(cookie === undefined ? {} : { 'set-cookie': cookie }) },
});

const signedOut = (why: 'expired' | 'failed'): MockResponse =>
  redirect(`${CONSOLE_PATH}/?signin=${why}`);

function notFound(path: string): MockHttpError {
  return new MockHttpError(404, MarkingsErrorCode.notFound, `no such resource: ${path}`);
}

function forbidden(message: string): MockHttpError {
  return new MockHttpError(403, MarkingsErrorCode.forbidden, message);
}

/**
 * Whether the request's Origin, when it has one, is the mock's own: the scheme and the host the
 * browser asked for (the Host header), so that it holds on every address the mock listens on.
 * An opaque origin (`Origin: null`: a sandboxed frame, a file, a redirect from elsewhere) is not.
 */
export function ownOrigin(req: MockRequest): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const host = req.headers.host;
  return host !== undefined && origin === `${req.secure === true ? 'https' : 'http'}://${host}`;
}

export class ConsoleApp {
  readonly events: EventStreams;
  private readonly api: (req: MockRequest, session: ConsoleSession) => Promise<MockResponse>;

  constructor(private readonly deps: ConsoleDeps) {
    this.events = new EventStreams(deps.feed);
    this.api = consoleApi(deps, (res) => this.events.open(res));
  }

  /** The answer to any request under /_mock/console, with the console's headers. */
  async answer(req: MockRequest): Promise<MockResponse> {
    let answer: MockResponse;
    try {
      answer = await this.route(req);
    } catch (error) {
      answer = errorAnswer(req.cid, error, req.path);
    }
    return { ...answer, headers: { ...answer.headers, ...SECURITY_HEADERS } };
  }

  /** Ends the event streams, so that the mock can close. */
  close(): void {
    this.events.closeAll();
  }

  private async route(req: MockRequest): Promise<MockResponse> {
    const rest = req.path.slice(CONSOLE_PATH.length);
    if (rest === '' && req.method === 'GET') return redirect(`${CONSOLE_PATH}/`);
    if (rest === '/') {
      if (req.method !== 'GET') throw methodNotAllowed(req.method, ['GET']);
      return this.file(req, await indexPage());
    }
    if (rest.startsWith('/assets/')) {
      if (req.method !== 'GET') throw methodNotAllowed(req.method, ['GET']);
      return this.file(req, await asset(rest.slice('/assets/'.length)));
    }
    if (rest === '/login') {
      if (req.method === 'GET') return this.redeem(req);
      if (req.method === 'POST') return this.login(req);
      throw methodNotAllowed(req.method, ['GET', 'POST']);
    }
    if (rest === '/logout') {
      if (req.method !== 'POST') throw methodNotAllowed(req.method, ['POST']);
      if (!ownOrigin(req)) throw forbidden('the request comes from another origin');
      this.deps.signIn.close(req.headers.cookie);
      return redirect(`${CONSOLE_PATH}/`, this.deps.signIn.clearedCookie());
    }
    if (rest === '/links') {
      if (req.method !== 'POST') throw methodNotAllowed(req.method, ['POST']);
      this.requireDevToken(req);
      const consoleUrl = signInLink(this.deps.url(), this.deps.signIn.newCode());
      return json(201, { consoleUrl });
    }
    if (rest.startsWith('/api/')) {
      const session = this.deps.signIn.session(req.headers.cookie);
      if (!session) {
        throw new MockHttpError(
          401,
          MarkingsErrorCode.unauthorized,
          'sign in to the console first: open the link `ksctl mock console` prints',
        );
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        if (!ownOrigin(req)) throw forbidden('the request comes from another origin');
        const csrf = req.headers['x-ksctl-csrf'];
        if (typeof csrf !== 'string' || !sameSecret(csrf, session.csrf)) {
          throw forbidden('missing or wrong X-Ksctl-Csrf header (GET /_mock/console/api/session)');
        }
      }
      return this.api(req, session);
    }
    throw notFound(req.path);
  }

  /** The mock's admin check; on a recorder, its dev token as a bearer token. */
  private requireDevToken(req: MockRequest): void {
    if (this.deps.mock) {
      requireAdmin(this.deps.mock.state, req);
      return;
    }
    const given = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (given === undefined || !sameSecret(given, this.deps.devToken)) {
      throw new MockHttpError(
        401,
        MarkingsErrorCode.unauthorized,
        "a sign-in link of the recorder's console needs its dev token",
      );
    }
  }

  private file(req: MockRequest, found: { bytes: Buffer; contentType: string } | undefined) {
    if (!found) throw notFound(req.path);
    return { status: 200, bytes: found.bytes, headers: { 'content-type': found.contentType } };
  }

  private redeem(req: MockRequest): MockResponse {
    const code = req.query.get('code');
    const session = code === null ? undefined : this.deps.signIn.redeem(code);
    if (session === undefined) return signedOut('expired');
    return redirect(`${CONSOLE_PATH}/`, this.deps.signIn.sessionCookie(session));
  }

  private async login(req: MockRequest): Promise<MockResponse> {
    if (!ownOrigin(req)) throw forbidden('the sign-in comes from another origin');
    const body = await req.body(FORM_MAX_BYTES);
    const token = new URLSearchParams(body.toString('utf8')).get('token') ?? '';
    if (!sameSecret(token.trim(), this.deps.devToken)) return signedOut('failed');
    return redirect(`${CONSOLE_PATH}/`, this.deps.signIn.sessionCookie(this.deps.signIn.open()));
  }
}

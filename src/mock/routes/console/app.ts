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
 * Every answer carries the Content-Security-Policy of family.ts (no inline script or style, nothing
 * from elsewhere), nosniff and `Referrer-Policy: same-origin`: the console's own requests name their
 * origin, and other origins learn nothing of its addresses. (Under `no-referrer` a browser sends
 * `Origin: null` with a plain form's POST, and the sign-in form would be refused as foreign.)
 * The API needs the session cookie (401 without), and a request that changes something also its
 * CSRF token in `X-Ksctl-Csrf` and, when the browser sends an Origin, the mock's own (403
 * otherwise, `null` included): its routes declare `session`, which the route table checks
 * (family.ts lays the console's routes out as families of the table). The sign-in form, plain or
 * sent from script, checks the Origin too.
 */
import { MarkingsErrorCode } from '../../../common/markings/wire.js';
import { json, MockHttpError, type MockRequest, type MockResponse } from '../../kit/http.js';
import { CONSOLE_PATH, sameSecret, signInLink } from '../../model/console/sign-in.js';
import { ownOrigin } from '../../request/auth.js';
import { type Route, route } from '../../request/route.js';
import { consoleApi, type ConsoleDeps, forwardedMarkings } from './api.js';
import { asset, indexPage } from './assets.js';
import { EventStreams } from './events.js';

const FORM_MAX_BYTES = 4096;

const redirect = (location: string, cookie?: string): MockResponse => ({
  status: 303,
  headers: { location, ...(cookie === undefined ? {} : { 'set-cookie': cookie }) },
});

const signedOut = (why: 'expired' | 'failed'): MockResponse =>
  redirect(`${CONSOLE_PATH}/?signin=${why}`);

export function notFound(path: string): MockHttpError {
  return new MockHttpError(404, MarkingsErrorCode.notFound, `no such resource: ${path}`);
}

function forbidden(message: string): MockHttpError {
  return new MockHttpError(403, MarkingsErrorCode.forbidden, message);
}

/** `/_mock/console` without its slash: a browser is sent to the page, anything else not found. */
export function consoleRoot(req: MockRequest): MockResponse {
  if (req.path === CONSOLE_PATH && req.method === 'GET') return redirect(`${CONSOLE_PATH}/`);
  throw notFound(req.path);
}

export class ConsoleApp {
  readonly events: EventStreams;

  constructor(private readonly deps: ConsoleDeps) {
    this.events = new EventStreams(deps.feed);
  }

  /** The page, its files, signing in and out, and sign-in links (paths matched as written). */
  pages(): Route[] {
    return [
      route('GET', `${CONSOLE_PATH}/`, 'anyone', async (req) => this.file(req, await indexPage())),
      route('GET', `${CONSOLE_PATH}/assets/*`, 'anyone', async (req) =>
        this.file(req, await asset(req.path.slice(`${CONSOLE_PATH}/assets/`.length))),
      ),
      route('GET', `${CONSOLE_PATH}/login`, 'anyone', (req) => this.redeem(req)),
      route('POST', `${CONSOLE_PATH}/login`, 'anyone', (req) => this.login(req)),
      route('POST', `${CONSOLE_PATH}/logout`, 'anyone', (req) => {
        if (!ownOrigin(req)) throw forbidden('the request comes from another origin');
        this.deps.signIn.close(req.headers.cookie);
        return redirect(`${CONSOLE_PATH}/`, this.deps.signIn.clearedCookie());
      }),
      // The dev token: the mock's admin check; on a recorder, its dev token as a bearer token.
      route('POST', `${CONSOLE_PATH}/links`, 'admin', () => {
        const consoleUrl = signInLink(this.deps.url(), this.deps.signIn.newCode());
        return json(201, { consoleUrl });
      }),
    ];
  }

  /** The JSON API (api.ts), every route behind the session. */
  api(): Route[] {
    return consoleApi(this.deps, (res) => this.events.open(res));
  }

  /** The default tenant's markings API, as the dev principal (api.ts). */
  markings(req: MockRequest): Promise<MockResponse> {
    return forwardedMarkings(this.deps, req);
  }

  /** Ends the event streams, so that the mock can close. */
  close(): void {
    this.events.closeAll();
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

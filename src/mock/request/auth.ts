/**
 * Who is calling: the principal an Authorization header names (its scopes, its tenant, the dev
 * token), and the console's session with its CSRF token. The route table checks these as each
 * route declares (request/route.ts); the gates below are the checks of a mock and a recorder.
 */
import { MarkingsErrorCode, type Scope } from '../../common/markings/wire.js';
import { decodeBase64Strict, decodeUtf8Strict } from '../../common/encoding/base64.js';
import { MockHttpError, type MockRequest } from '../kit/http.js';
import { type ConsoleSession, type ConsoleSignIn, sameSecret } from '../model/console/sign-in.js';
import type { MockState, Principal, Tenant } from '../model/state.js';
import type { Gate } from './route.js';

function unauthorized(message: string): MockHttpError {
  return new MockHttpError(401, MarkingsErrorCode.unauthorized, message, undefined, {
    'www-authenticate': 'Bearer realm="ksctl-mock", Basic realm="ksctl-mock"',
  });
}

/** The principal behind the Authorization header; 401 when missing or unknown. */
export function authenticate(state: MockState, req: MockRequest): Principal {
  const header = req.headers.authorization;
  if (!header) throw unauthorized('missing Authorization header');
  const space = header.indexOf(' ');
  const scheme = space < 0 ? '' : header.slice(0, space).toLowerCase();
  const credentials = header.slice(space + 1).trim();
  let principal: Principal | undefined;
  if (scheme === 'bearer') principal = state.bearer.get(credentials);
  else if (scheme === 'basic') {
    const userPassword = basicCredentials(credentials);
    if (userPassword !== undefined) principal = state.basic.get(userPassword);
  }
  if (!principal) throw unauthorized('unknown or invalid credentials');
  return principal;
}

/**
 * `user:password` from Basic credentials, decoded strictly: Node's lenient Base64 decoder skips
 * characters it does not know, so garbage would otherwise decode to some other, valid pair.
 */
function basicCredentials(encoded: string): string | undefined {
  const bytes = decodeBase64Strict(encoded);
  const text = bytes && decodeUtf8Strict(bytes);
  return text?.includes(':') ? text : undefined;
}

/** Authenticates, checks the scope (403 naming it) and finds the tenant (404). */
export function authorize(
  state: MockState,
  req: MockRequest,
  scope: Scope,
): { principal: Principal; tenant: Tenant } {
  const principal = authenticate(state, req);
  if (!principal.scopes.has(scope)) {
    throw new MockHttpError(403, MarkingsErrorCode.forbidden, `missing scope ${scope}`, [
      { path: 'scope', message: `this operation needs ${scope}` },
    ]);
  }
  const tenantId = req.params.tenant!;
  const tenant = state.tenant(tenantId);
  if (!tenant || (principal.tenant !== undefined && principal.tenant !== tenantId)) {
    throw new MockHttpError(404, MarkingsErrorCode.notFound, `tenant ${tenantId} not found`);
  }
  return { principal, tenant };
}

/** The dev token's principal: 401 without credentials, 403 with others. */
export function requireAdmin(state: MockState, req: MockRequest): Principal {
  const principal = authenticate(state, req);
  if (!principal.admin) {
    throw new MockHttpError(
      403,
      MarkingsErrorCode.forbidden,
      'the mock admin endpoints need the dev token',
    );
  }
  return principal;
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

/**
 * The console session of the request (401 without one); a request that changes something also
 * needs its CSRF token in `X-Ksctl-Csrf` and, when the browser sends an Origin, the mock's own
 * (403 otherwise, `null` included).
 */
export function consoleSession(
  signIn: ConsoleSignIn | undefined,
  req: MockRequest,
): ConsoleSession {
  const session = signIn?.session(req.headers.cookie);
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
  return session;
}

/** The mock's checks: its principals, and its console's sessions when the console is on. */
export function mockGate(state: MockState, signIn: ConsoleSignIn | undefined): Gate {
  return {
    caller: (req) => authenticate(state, req),
    admin: (req) => {
      requireAdmin(state, req);
    },
    authorize: (req, scope) => authorize(state, req, scope),
    session: (req) => consoleSession(signIn, req),
  };
}

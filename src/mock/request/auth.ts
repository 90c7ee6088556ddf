import { MarkingsErrorCode, type Scope } from '../../common/markings/wire.js';
import { decodeBase64Strict, decodeUtf8Strict } from '../../common/encoding/base64.js';
import { MockHttpError, type MockRequest } from '../kit/http.js';
import type { MockState, Principal, Tenant } from '../model/state.js';

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

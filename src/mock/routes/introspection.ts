import { INTROSPECTION_PATH, type TokenIntrospection } from '../../common/http/introspection.js';
import { type Route, route } from '../request/route.js';
import { json } from '../kit/http.js';
import type { MockState } from '../model/state.js';

/**
 * Token introspection (RFC 7662): who a token is and its scopes. The caller authenticates (401
 * otherwise); a `token` form field names the token to look at, else the caller's own credentials
 * are described. An unknown token is `{"active": false}`, as the RFC has it.
 */
export function introspectionRoutes(state: MockState): Route[] {
  return [
    route('POST', INTROSPECTION_PATH, 'caller', async (req, { principal: caller }) => {
      const token = new URLSearchParams((await req.body()).toString('utf8')).get('token');
      const principal = token === null ? caller : state.bearer.get(token);
      if (!principal) return json(200, { active: false } satisfies TokenIntrospection);
      const answer: TokenIntrospection = {
        active: true,
        sub: principal.name,
        scope: [...principal.scopes].join(' '),
        ...(principal.tenant !== undefined ? { tenant: principal.tenant } : {}),
      };
      return json(200, answer);
    }),
  ];
}

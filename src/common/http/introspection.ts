/** Token introspection (RFC 7662), read by `ksctl status` and answered by the mock. */

/**
 * Where a service says who a token is and what it may do: OAuth 2.0 token introspection on the
 * service's origin. The caller authenticates with its own credentials and, for a bearer token,
 * names it in the form field `token`. A service without it answers 404: status then says so.
 */
export const INTROSPECTION_PATH = '/oauth2/introspect';

export interface TokenIntrospection {
  active: boolean;
  /** Who the token is. */
  sub?: string;
  username?: string;
  /** Space-separated scopes. */
  scope?: string;
  /** Restricted to this tenant, when it is. */
  tenant?: string;
}

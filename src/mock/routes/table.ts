/**
 * The route table: every route of every side, as the server matches them. Faults, latency and
 * the console are the server's own; this is what the service answers.
 */
import type { MockInfo } from '../../common/mock/wire.js';
import { openApiRoute } from './admin/openapi.js';
import { adminRoutes } from './admin/routes.js';
import { deviceRoutes } from './device/routes.js';
import type { CryptoPool } from '../model/enrollment/crypto-pool.js';
import { enrollmentRoutes } from './enrollment/routes.js';
import type { Route } from '../kit/http.js';
import { introspectionRoutes } from './introspection.js';
import { markingsRoutes } from './markings/routes.js';
import type { MockState } from '../model/state.js';

export interface ServerHooks {
  /** Back to the start-up state (POST /_mock/reset). */
  reset: () => void;
  /** The server's own URLs, once it listens. */
  info: () => MockInfo;
  /** Does the RSA work of registrations. */
  crypto: CryptoPool;
}

export function mockRoutes(state: MockState, { reset, info, crypto }: ServerHooks): Route[] {
  return [
    ...markingsRoutes(state),
    ...adminRoutes(state, reset, info),
    ...enrollmentRoutes(state, info, crypto),
    ...deviceRoutes(state),
    ...introspectionRoutes(state),
    openApiRoute(info),
  ];
}

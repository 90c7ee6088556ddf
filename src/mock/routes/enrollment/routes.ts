import type { MockInfo } from '../../../common/mock/wire.js';
import { enrollAdminRoutes } from './admin-routes.js';
import type { CryptoPool } from '../../model/enrollment/crypto-pool.js';
import { knsRoute } from './kns.js';
import { portalRoutes } from './portal.js';
import { registerRoutes } from './register.js';
import type { Route } from '../../request/route.js';
import type { MockState } from '../../model/state.js';

/**
 * Every route of the enrollment side; `info` gives the server's own URLs once it listens, `crypto`
 * does the RSA work of registrations.
 */
export function enrollmentRoutes(
  state: MockState,
  info: () => MockInfo,
  crypto: CryptoPool,
): Route[] {
  return [
    ...registerRoutes(state, crypto),
    ...portalRoutes(state, info),
    knsRoute(state, info),
    ...enrollAdminRoutes(state),
  ];
}

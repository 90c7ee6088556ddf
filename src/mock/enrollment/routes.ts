import type { MockInfo } from '../../api/wire.js';
import { enrollAdminRoutes } from '../admin/enrollment-routes.js';
import { knsRoute } from './kns.js';
import { portalRoutes } from './portal.js';
import { registerRoute } from './register.js';
import type { Route } from '../http.js';
import type { MockState } from '../state/state.js';

/** Every route of the enrollment side; `info` gives the server's own URLs once it listens. */
export function enrollmentRoutes(state: MockState, info: () => MockInfo): Route[] {
  return [
    registerRoute(state),
    ...portalRoutes(state, info),
    knsRoute(state, info),
    ...enrollAdminRoutes(state),
  ];
}

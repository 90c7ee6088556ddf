/**
 * The route table: every route of every side, and the console's as families of their own, each
 * route with who may call it (request/route.ts), checked here before its handler runs. Faults and
 * latency are the server's own.
 */
import type { MockInfo } from '../../common/mock/wire.js';
import { openApiRoute } from './admin/openapi.js';
import { adminRoutes } from './admin/routes.js';
import { deviceRoutes, unservedDeviceEndpoint } from './device/routes.js';
import type { CryptoPool } from '../model/enrollment/crypto-pool.js';
import { enrollmentRoutes } from './enrollment/routes.js';
import { MarkingsErrorCode } from '../../common/markings/wire.js';
import { MockHttpError } from '../kit/http.js';
import type { ConsoleSignIn } from '../model/console/sign-in.js';
import { mockGate } from '../request/auth.js';
import { errorAnswer } from '../request/request.js';
import { type Route, RouteTable } from '../request/route.js';
import type { ConsoleApp } from './console/app.js';
import { consoleFamilies } from './console/family.js';
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

/** The console, when it is on: its sign-in, and the console itself, loaded on first use. */
export interface ConsoleHooks {
  signIn: ConsoleSignIn;
  app: () => Promise<ConsoleApp>;
}

/** The mock's table: the console's families first (when it is on), then the service's routes. */
export function mockRouteTable(
  state: MockState,
  service: readonly Route[],
  console: ConsoleHooks | undefined,
): RouteTable {
  return new RouteTable(
    mockGate(state, console?.signIn),
    [
      ...(console ? consoleFamilies(console.app, true) : []),
      {
        prefix: '',
        routes: () => [...service],
        unmatched: async (req) => {
          // A device's request to an endpoint the mock lacks: sealed for the device when it can be.
          const sealed = await unservedDeviceEndpoint(state, req);
          if (sealed) return sealed;
          throw new MockHttpError(404, MarkingsErrorCode.notFound, `no such resource: ${req.path}`);
        },
      },
    ],
    (req, error) => errorAnswer(req.cid, error, req.path),
  );
}

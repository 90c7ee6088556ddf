/**
 * Routes as values, each with who may call it. A route declares its access; the route table
 * (routes/table.ts) checks it once, before the handler runs, and hands the handler what the check
 * found (the principal and the tenant, or the console session). No handler checks credentials
 * itself, except where the protocol carries them (`device`) or the body decides the scope.
 */
import type { Scope } from '../../common/markings/wire.js';
import { methodNotAllowed, type MockRequest, type MockResponse } from '../kit/http.js';
import type { ConsoleSession } from '../model/console/sign-in.js';
import type { Principal, Tenant } from '../model/state.js';

/**
 * Who may call a route:
 * - `anyone`: no credentials (health, the OpenAPI document, key lookups, the console's sign-in);
 * - `device`: a device or an enrolling user, who proves itself inside the protocol (a sign-in
 *   form, enrollment tokens, a sealed envelope): its handler checks that as the protocol says;
 * - `caller`: any principal the Authorization header names (401 otherwise);
 * - `admin`: the dev token (401 without credentials, 403 with others);
 * - `{ scope }`: a principal with that scope (403 naming it) on the tenant of the path (404);
 * - `session`: a console session (401), and for a request that changes something its CSRF token
 *   and, when the browser sends an Origin, the mock's own (403).
 */
export type Access = 'anyone' | 'device' | 'caller' | 'admin' | 'session' | { scope: Scope };

/** The principal and the tenant of the path, once the scope is checked. */
export interface Authorized {
  principal: Principal;
  tenant: Tenant;
}

/** What a route's handler is given once its access is checked. */
export type Granted<A extends Access> = A extends { scope: Scope }
  ? Authorized
  : A extends 'caller'
    ? { principal: Principal }
    : A extends 'session'
      ? { session: ConsoleSession }
      : Record<never, never>;

/** Whatever any check gives, as the table passes it on. */
type AnyGranted = Partial<Authorized> & { session?: ConsoleSession };

type Answer = MockResponse | Promise<MockResponse>;

export interface Route {
  method: string;
  /** Segments; `:name` captures one segment. */
  pattern: string;
  access: Access;
  handler: (req: MockRequest, granted: AnyGranted) => Answer;
}

export function route<A extends Access>(
  method: string,
  pattern: string,
  access: A,
  handler: (req: MockRequest, granted: Granted<A>) => Answer,
): Route {
  // The table gives each handler what its own access grants (admit below).
  return { method, pattern, access, handler: handler as Route['handler'] };
}

/** The checks behind each access, as the server that serves the routes makes them. */
export interface Gate {
  /** The principal behind the Authorization header; 401 when missing or unknown. */
  caller(req: MockRequest): Principal;
  /** The dev token; 401 or 403 otherwise. */
  admin(req: MockRequest): void;
  /** The principal with the scope, and the tenant of the path. */
  authorize(req: MockRequest, scope: Scope): Authorized;
  /** The console session of the request, its CSRF token checked when it changes something. */
  session(req: MockRequest): ConsoleSession;
}

/** The route's access checked: what it grants the handler, or the refusal thrown. */
export function admit(gate: Gate, access: Access, req: MockRequest): AnyGranted {
  switch (access) {
    case 'anyone':
    case 'device':
      return {};
    case 'caller':
      return { principal: gate.caller(req) };
    case 'admin':
      gate.admin(req);
      return {};
    case 'session':
      return { session: gate.session(req) };
    default:
      return gate.authorize(req, access.scope);
  }
}

interface CompiledRoute extends Route {
  segments: string[];
}

/**
 * Routes matched by segments; a last segment `*` matches one or more segments (the handler reads
 * them from the path). Empty segments are left out (`/a//b/` is `/a/b`), unless `exact`: then a
 * path matches only as written, its trailing slash and empty segments counted.
 */
export class Router {
  private readonly routes: CompiledRoute[] = [];

  constructor(private readonly exact = false) {}

  add(...routes: Route[]): this {
    for (const r of routes) this.routes.push({ ...r, segments: this.segments(r.pattern) });
    return this;
  }

  /** Every route's method and pattern, in the order they were added. */
  list(): { method: string; pattern: string }[] {
    return this.routes.map(({ method, pattern }) => ({ method, pattern }));
  }

  match(
    method: string,
    path: string,
  ): { route: Route; params: Record<string, string> } | { allowed: string[] } | undefined {
    const parts = this.segments(path);
    const allowed: string[] = [];
    for (const r of this.routes) {
      const params = matchSegments(r.segments, parts);
      if (!params) continue;
      if (r.method === method) return { route: r, params };
      allowed.push(r.method);
    }
    return allowed.length > 0 ? { allowed } : undefined;
  }

  private segments(path: string): string[] {
    return this.exact ? path.split('/').slice(1) : path.split('/').filter(Boolean);
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  const rest = pattern.at(-1) === '*';
  if (rest ? parts.length < pattern.length : pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const part = parts[i]!;
    if (p === '*' && i === pattern.length - 1) break;
    if (p.startsWith(':')) {
      try {
        params[p.slice(1)] = decodeURIComponent(part);
      } catch {
        return undefined;
      }
    } else if (p !== part) return undefined;
  }
  return params;
}

/**
 * Routes under one path prefix, answered together: the console's pages (their headers on every
 * answer, errors too), the console's API (a session for any path under it, before a route is
 * looked for, so that a stranger learns nothing of which exist).
 */
export interface RouteFamily {
  /**
   * The paths `prefix` and `prefix/…`, or with a prefix that ends with `/` the paths under it
   * only; the family with `''` takes every other path.
   */
  prefix: string;
  /** Paths match as written: a trailing slash and empty segments count (Router). */
  exact?: boolean;
  /** Checked for every path of the family, before its routes are matched. */
  access?: Access;
  /** Added to every answer of the family, errors included. */
  headers?: Readonly<Record<string, string>>;
  /** The family's routes; a promise when they are loaded on first use (the console). */
  routes: () => Route[] | Promise<Route[]>;
  /** The answer for a path none of its routes has (405 when only the method is wrong). */
  unmatched: (req: MockRequest) => Answer;
}

/**
 * The route table: route families, the first whose prefix holds the path answers. Each route's
 * access is checked here, once, before its handler runs.
 */
export class RouteTable {
  private readonly routers = new Map<RouteFamily, Promise<Router>>();

  constructor(
    private readonly gate: Gate,
    private readonly families: readonly RouteFamily[],
    /** Turns a failure into an answer (for families with headers of their own). */
    private readonly failed: (req: MockRequest, error: unknown) => MockResponse,
  ) {}

  /** The answer of the route a request names, or the refusal it meets (thrown). */
  async answer(req: MockRequest): Promise<MockResponse> {
    const family = this.families.find(({ prefix }) => holds(prefix, req.path));
    if (!family) throw new Error(`no route family takes ${req.path}`);
    if (!family.headers) return this.familyAnswer(family, req);
    let answer: MockResponse;
    try {
      answer = await this.familyAnswer(family, req);
    } catch (error) {
      answer = this.failed(req, error);
    }
    return { ...answer, headers: { ...answer.headers, ...family.headers } };
  }

  private async familyAnswer(family: RouteFamily, req: MockRequest): Promise<MockResponse> {
    const familyGranted = family.access && admit(this.gate, family.access, req);
    const match = (await this.router(family)).match(req.method, req.path);
    if (!match) return family.unmatched(req);
    if ('allowed' in match) throw methodNotAllowed(req.method, match.allowed);
    Object.assign(req.params, match.params);
    const { access, handler } = match.route;
    const granted =
      familyGranted && access === family.access ? familyGranted : admit(this.gate, access, req);
    return handler(req, granted);
  }

  private router(family: RouteFamily): Promise<Router> {
    let router = this.routers.get(family);
    if (!router) {
      router = Promise.resolve(family.routes()).then((routes) =>
        new Router(family.exact).add(...routes),
      );
      // A family whose routes failed to load tries again with the next request.
      router.catch(() => this.routers.delete(family));
      this.routers.set(family, router);
    }
    return router;
  }
}

function holds(prefix: string, path: string): boolean {
  if (prefix === '' || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)) return true;
  return path === prefix;
}

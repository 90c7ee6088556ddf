/**
 * The route table (src/mock/request/route.ts): each route's access is checked once, before its
 * handler, and the handler gets what the check found; a family checks its own access for every
 * path under it before a route is looked for, and puts its headers on every answer, errors too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { json, MockHttpError, type MockRequest } from '../../src/mock/kit/http.js';
import type { ConsoleSession } from '../../src/mock/model/console/sign-in.js';
import type { Principal, Tenant } from '../../src/mock/model/state.js';
import {
  type Access,
  admit,
  type Gate,
  route,
  Router,
  RouteTable,
} from '../../src/mock/request/route.js';

function request(method: string, path: string): MockRequest {
  return {
    method,
    path,
    query: new URLSearchParams(),
    headers: {},
    params: {},
    cid: 'cid',
    body: () => Promise.resolve(Buffer.alloc(0)),
    json: () => Promise.resolve({}),
    parsedBody: () => Promise.resolve({ ok: true, value: {} }),
  };
}

const refused = (what: string) => () => {
  throw new MockHttpError(401, 40100, `no ${what}`);
};

/** A gate that lets through exactly what `allowed` names, and notes each check it makes. */
function gate(allowed: string[], checks: string[] = []): Gate {
  const check = <T>(what: string, value: T) => {
    checks.push(what);
    if (!allowed.includes(what)) refused(what)();
    return value;
  };
  const principal = { name: 'alice' } as Principal;
  return {
    caller: () => check('caller', principal),
    admin: () => check('admin', undefined),
    authorize: (_req, scope) => check(scope, { principal, tenant: { id: 'acme' } as Tenant }),
    session: () => check('session', { csrf: 'c' } as ConsoleSession),
  };
}

describe('the route table', () => {
  it('checks each access before the handler, and gives the handler what it found', async () => {
    const ran: string[] = [];
    const table = new RouteTable(
      gate(['markings:read', 'caller']),
      [
        {
          prefix: '',
          routes: () => [
            route('GET', '/v2/:tenant/markings', { scope: 'markings:read' }, (_req, { tenant }) => {
              ran.push(`list ${tenant.id}`);
              return json(200, []);
            }),
            route('POST', '/_mock/reset', 'admin', () => {
              ran.push('reset');
              return json(200, {});
            }),
            route('POST', '/oauth2/introspect', 'caller', (_req, { principal }) =>
              json(200, { sub: principal.name }),
            ),
          ],
          unmatched: refused('route'),
        },
      ],
      () => json(500, {}),
    );
    expect((await table.answer(request('GET', '/v2/acme/markings'))).status).toBe(200);
    await expect(table.answer(request('POST', '/_mock/reset'))).rejects.toThrow('no admin');
    expect(await table.answer(request('POST', '/oauth2/introspect'))).toMatchObject({
      body: { sub: 'alice' },
    });
    expect(ran).toEqual(['list acme']);
  });

  it('checks a family’s access for every path under it, before a 404 or a 405', async () => {
    const checks: string[] = [];
    const api = {
      prefix: '/_mock/console/api/',
      access: 'session' as Access,
      headers: { 'x-family': 'api' },
      routes: () => [route('GET', '/_mock/console/api/overview', 'session', () => json(200, {}))],
      unmatched: (req: MockRequest) => {
        throw new MockHttpError(404, 40400, `no such resource: ${req.path}`);
      },
    };
    const table = new RouteTable(gate([], checks), [api], (_req, error) =>
      json((error as MockHttpError).status, (error as Error).message),
    );
    for (const [method, path] of [
      ['GET', '/_mock/console/api/nothing'],
      ['DELETE', '/_mock/console/api/overview'],
    ] as const) {
      const answer = await table.answer(request(method, path));
      expect(answer).toMatchObject({ status: 401, headers: { 'x-family': 'api' } });
    }
    expect(checks).toEqual(['session', 'session']);

    // Signed in: the family's check stands for its routes' own, and a 404 still has the headers.
    const signedIn = new RouteTable(gate(['session'], checks), [api], (_req, error) =>
      json((error as MockHttpError).status, (error as Error).message),
    );
    checks.length = 0;
    expect(await signedIn.answer(request('GET', '/_mock/console/api/overview'))).toMatchObject({
      status: 200,
      headers: { 'x-family': 'api' },
    });
    expect(await signedIn.answer(request('GET', '/_mock/console/api/x'))).toMatchObject({
      status: 404,
      headers: { 'x-family': 'api' },
    });
    expect(await signedIn.answer(request('PUT', '/_mock/console/api/overview'))).toMatchObject({
      status: 405,
    });
    expect(checks).toEqual(['session', 'session', 'session']);
  });

  it('admits anyone and devices without a check', () => {
    const checks: string[] = [];
    expect(admit(gate([], checks), 'anyone', request('GET', '/'))).toEqual({});
    expect(admit(gate([], checks), 'device', request('POST', '/v2.4/keys/create'))).toEqual({});
    expect(checks).toEqual([]);
  });
});

describe('the router', () => {
  const handler = () => json(200, {});
  const routes = [
    route('GET', '/_mock/console/', 'anyone', handler),
    route('GET', '/_mock/console/assets/*', 'anyone', handler),
    route('GET', '/_mock/console/login', 'anyone', handler),
    route('POST', '/_mock/console/login', 'anyone', handler),
  ];

  it('matches by segments, leaving empty ones out', () => {
    const router = new Router().add(route('GET', '/v2/:tenant/markings', 'anyone', handler));
    expect(router.match('GET', '/v2/acme/markings/')).toMatchObject({ params: { tenant: 'acme' } });
    expect(router.match('GET', '//v2/acme//markings')).toMatchObject({
      params: { tenant: 'acme' },
    });
    expect(router.match('PUT', '/v2/acme/markings')).toEqual({ allowed: ['GET'] });
    expect(router.match('GET', '/v2/acme')).toBeUndefined();
  });

  it('matches exactly as written when asked: a trailing slash and empty segments count', () => {
    const router = new Router(true).add(...routes);
    expect(router.match('GET', '/_mock/console/')).toMatchObject({ route: routes[0] });
    expect(router.match('GET', '/_mock/console')).toBeUndefined();
    expect(router.match('POST', '/_mock/console/')).toEqual({ allowed: ['GET'] });
    expect(router.match('GET', '/_mock/console/login/')).toBeUndefined();
    expect(router.match('DELETE', '/_mock/console/login')).toEqual({ allowed: ['GET', 'POST'] });
  });

  it('takes the rest of the path with a last `*`, one segment or more', () => {
    const router = new Router(true).add(...routes);
    expect(router.match('GET', '/_mock/console/assets/app.js')).toMatchObject({ route: routes[1] });
    expect(router.match('GET', '/_mock/console/assets/a/b.css')).toMatchObject({
      route: routes[1],
    });
    expect(router.match('GET', '/_mock/console/assets/')).toMatchObject({ route: routes[1] });
    expect(router.match('GET', '/_mock/console/assets')).toBeUndefined();
  });
});

describe('the route families (src/mock/routes/)', () => {
  const ROUTES = join(import.meta.dirname, '..', '..', 'src', 'mock', 'routes');
  const files = (readdirSync(ROUTES, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(ROUTES, file));

  it('leave credentials to the table: no handler checks them itself', () => {
    const checks = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\b(requireAdmin|authenticate|authorize)\(/g)].map(
        (found) => `${relative(ROUTES, file)}: ${found[1]}`,
      ),
    );
    // Create or Update Multiple: the body says which scope it needs, once the caller is known.
    expect(checks).toEqual([
      'markings/routes.ts: authorize',
      'markings/routes.ts: authorize',
      'markings/routes.ts: authorize',
    ]);
  });
});

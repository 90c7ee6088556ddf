import {
  type Marking,
  MarkingsErrorCode,
  PAGE_LIMIT_DEFAULT,
  PAGE_LIMIT_MAX,
} from '../../api/wire.js';
import { authenticate, authorize } from '../auth.js';
import {
  json,
  MockHttpError,
  type MockRequest,
  type MockResponse,
  type Route,
  route,
} from '../http.js';
import type { MockState } from '../state/state.js';

function badQuery(name: string, message: string): MockHttpError {
  return new MockHttpError(
    400,
    MarkingsErrorCode.badRequest,
    `query parameter ${name} ${message}`,
    [{ path: name, message }],
  );
}

function wholeNumber(req: MockRequest, name: string): number | undefined {
  const text = req.query.get(name);
  if (text === null) return undefined;
  if (!/^\d{1,9}$/.test(text)) throw badQuery(name, 'must be a whole number');
  return Number(text);
}

function paging(req: MockRequest): { skip: number; limit: number } {
  const skip = wholeNumber(req, 'skip') ?? 0;
  const limit = wholeNumber(req, 'limit') ?? PAGE_LIMIT_DEFAULT;
  if (limit < 1 || limit > PAGE_LIMIT_MAX) {
    throw badQuery('limit', `must be from 1 to ${PAGE_LIMIT_MAX}`);
  }
  return { skip, limit };
}

function booleanQuery(req: MockRequest, name: string): boolean | undefined {
  const text = req.query.get(name);
  if (text === null) return undefined;
  if (text !== 'true' && text !== 'false') throw badQuery(name, 'must be true or false');
  return text === 'true';
}

function optional(req: MockRequest, name: string): string | undefined {
  return req.query.get(name) ?? undefined;
}

/** `If-Match: "4"` (or W/"4", or 4); `*` and absence mean no precondition. */
export function ifMatchVersion(req: MockRequest): number | undefined {
  const header = req.headers['if-match'];
  if (header === undefined || header.trim() === '*') return undefined;
  const m = /^\s*(?:W\/)?"?(\d+)"?\s*$/.exec(header);
  // An unreadable tag can never match the current version.
  return m ? Number(m[1]) : -1;
}

function withEtag(
  status: number,
  marking: Marking,
  extra: Record<string, string> = {},
): MockResponse {
  return json(status, marking, { etag: `"${marking._version}"`, ...extra });
}

function listEnvelope<T>(total: number, skip: number, limit: number, items: T[]) {
  return { totalResults: total, skip, limit, Resources: items };
}

/** The markings resources of DESIGN.md 1.2, under /v2/{tenant}. */
export function markingsRoutes(state: MockState): Route[] {
  const base = '/v2/:tenant/markings';
  return [
    route('GET', base, (req) => {
      const { tenant } = authorize(state, req, 'markings:read');
      const { skip, limit } = paging(req);
      const result = tenant.markings.list(
        {
          name: optional(req, 'name'),
          nameContains: optional(req, 'name__contains'),
          nameStartsWith: optional(req, 'name__startswith'),
          public: booleanQuery(req, 'public'),
        },
        skip,
        limit,
        wholeNumber(req, 'valueLimit'),
      );
      return json(200, listEnvelope(result.total, skip, limit, result.items));
    }),
    route('POST', base, async (req) => {
      // Credentials are checked before the body is read: a stranger learns nothing about bodies.
      authenticate(state, req);
      const body = await req.json();
      if (Array.isArray(body)) {
        // Items without an id create (markings:create), items with one update (markings:update).
        const hasId = (item: unknown) => typeof item === 'object' && item !== null && 'id' in item;
        const creates = body.some((item) => !hasId(item));
        const updates = body.some(hasId);
        const { principal, tenant } = authorize(
          state,
          req,
          creates ? 'markings:create' : 'markings:update',
        );
        if (creates && updates) authorize(state, req, 'markings:update');
        const valueLimit = wholeNumber(req, 'valueLimit');
        return json(200, tenant.markings.bulk(body, principal, valueLimit));
      }
      const { principal, tenant } = authorize(state, req, 'markings:create');
      const created = tenant.markings.create(body, principal);
      return withEtag(201, created, { location: `/v2/${tenant.id}/markings/${created.id}` });
    }),
    route('GET', `${base}/:id`, (req) => {
      const { tenant } = authorize(state, req, 'markings:read');
      return withEtag(200, tenant.markings.get(req.params.id!, wholeNumber(req, 'valueLimit')));
    }),
    route('PUT', `${base}/:id`, async (req) => {
      const { principal, tenant } = authorize(state, req, 'markings:update');
      const body = await req.json();
      return withEtag(
        200,
        tenant.markings.update(req.params.id!, body, principal, ifMatchVersion(req)),
      );
    }),
    route('DELETE', `${base}/:id`, (req) => {
      const { tenant } = authorize(state, req, 'markings:delete');
      tenant.markings.delete(req.params.id!, ifMatchVersion(req));
      return { status: 204 };
    }),
    route('GET', `${base}/:id/values`, (req) => {
      const { tenant } = authorize(state, req, 'markings:read');
      const { skip, limit } = paging(req);
      const result = tenant.markings.listValues(
        req.params.id!,
        { name: optional(req, 'name'), nameContains: optional(req, 'name__contains') },
        skip,
        limit,
      );
      return json(200, listEnvelope(result.total, skip, limit, result.items));
    }),
    route('GET', `${base}/:id/values/:valueId`, (req) => {
      const { tenant } = authorize(state, req, 'markings:read');
      return json(200, tenant.markings.getValue(req.params.id!, req.params.valueId!));
    }),
    route('POST', `${base}/:id/values`, async (req) => {
      const { principal, tenant } = authorize(state, req, 'markings:update');
      const body = await req.json();
      const value = tenant.markings.createValue(
        req.params.id!,
        body,
        principal,
        ifMatchVersion(req),
      );
      return json(201, value, {
        location: `/v2/${tenant.id}/markings/${value.markingId}/values/${value.id}`,
        etag: `"${tenant.markings.version(value.markingId)}"`,
      });
    }),
    route('PUT', `${base}/:id/values/:valueId`, async (req) => {
      const { principal, tenant } = authorize(state, req, 'markings:update');
      const body = await req.json();
      const value = tenant.markings.updateValue(
        req.params.id!,
        req.params.valueId!,
        body,
        principal,
        ifMatchVersion(req),
      );
      return json(200, value, { etag: `"${tenant.markings.version(value.markingId)}"` });
    }),
    route('DELETE', `${base}/:id/values/:valueId`, (req) => {
      const { principal, tenant } = authorize(state, req, 'markings:update');
      tenant.markings.deleteValue(
        req.params.id!,
        req.params.valueId!,
        principal,
        ifMatchVersion(req),
      );
      return { status: 204 };
    }),
  ];
}

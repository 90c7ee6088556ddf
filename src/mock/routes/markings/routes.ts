/**
 * The markings resources of the mock under /v2/{tenant}: list, get, create, update and delete of
 * markings and their values, Create or Update Multiple, with If-Match preconditions and the
 * list paging (skip/limit, or SCIM's startIndex/count) the service answers with.
 */
import { MARKING_FILTER_FIELDS, VALUE_FILTER_FIELDS } from '../../../common/markings/filters.js';
import type { ListEnvelope, Marking } from '../../../common/markings/wire.js';
import { authorize } from '../../request/auth.js';
import { json, type MockRequest, type MockResponse } from '../../kit/http.js';
import { type Route, route } from '../../request/route.js';
import type { MockState } from '../../model/state.js';
import {
  type ListQuery,
  onlyParameters,
  parseListQuery,
  wholeNumberParameter,
} from './list-query.js';
import { runPaced } from '../../kit/pacing.js';

/** valueLimit, the only parameter of Get Marking and Create or Update Multiple. */
function valueLimitOnly(req: MockRequest): number | undefined {
  onlyParameters(req.query, 'valueLimit');
  return wholeNumberParameter(req.query, 'valueLimit');
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

/** The list answer; a SCIM-paged request also gets the SCIM members back. */
function listEnvelope<T>(query: ListQuery, total: number, items: T[]): ListEnvelope<T> {
  const { skip, limit, startIndex } = query;
  const scim = startIndex === undefined ? {} : { startIndex, itemsPerPage: items.length };
  return { totalResults: total, skip, limit, ...scim, Resources: items };
}

/** The markings resources of docs/design.md 1.2, under /v2/{tenant}. */
export function markingsRoutes(state: MockState): Route[] {
  const base = '/v2/:tenant/markings';
  return [
    route('GET', base, { scope: 'markings:read' }, async (req, { tenant }) => {
      const query = parseListQuery(req.query, MARKING_FILTER_FIELDS, { valueLimit: true });
      const result = await runPaced(
        tenant.markings.listSteps(query.filter, query.skip, query.limit, query.valueLimit),
      );
      return json(200, listEnvelope(query, result.total, result.items));
    }),
    // Credentials are checked before the body is read: a stranger learns nothing about bodies.
    // The body then says which scope it needs.
    route('POST', base, 'caller', async (req) => {
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
        const valueLimit = valueLimitOnly(req);
        return json(200, await runPaced(tenant.markings.bulkSteps(body, principal, valueLimit)));
      }
      const { principal, tenant } = authorize(state, req, 'markings:create');
      onlyParameters(req.query);
      const created = await runPaced(tenant.markings.createSteps(body, principal));
      return withEtag(201, created, { location: `/v2/${tenant.id}/markings/${created.id}` });
    }),
    route('GET', `${base}/:id`, { scope: 'markings:read' }, async (req, { tenant }) => {
      const marking = await runPaced(tenant.markings.getSteps(req.params.id!, valueLimitOnly(req)));
      return withEtag(200, marking);
    }),
    route(
      'PUT',
      `${base}/:id`,
      { scope: 'markings:update' },
      async (req, { principal, tenant }) => {
        onlyParameters(req.query);
        const body = await req.json();
        const steps = tenant.markings.updateSteps(
          req.params.id!,
          body,
          principal,
          ifMatchVersion(req),
        );
        return withEtag(200, await runPaced(steps));
      },
    ),
    route('DELETE', `${base}/:id`, { scope: 'markings:delete' }, (req, { tenant }) => {
      onlyParameters(req.query);
      tenant.markings.delete(req.params.id!, ifMatchVersion(req));
      return { status: 204 };
    }),
    route('GET', `${base}/:id/values`, { scope: 'markings:read' }, async (req, { tenant }) => {
      const query = parseListQuery(req.query, VALUE_FILTER_FIELDS, { valueLimit: false });
      const result = await runPaced(
        tenant.markings.listValuesSteps(req.params.id!, query.filter, query.skip, query.limit),
      );
      return json(200, listEnvelope(query, result.total, result.items));
    }),
    route('GET', `${base}/:id/values/:valueId`, { scope: 'markings:read' }, (req, { tenant }) => {
      onlyParameters(req.query);
      return json(200, tenant.markings.getValue(req.params.id!, req.params.valueId!));
    }),
    route(
      'POST',
      `${base}/:id/values`,
      { scope: 'markings:update' },
      async (req, { principal, tenant }) => {
        onlyParameters(req.query);
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
      },
    ),
    route(
      'PUT',
      `${base}/:id/values/:valueId`,
      { scope: 'markings:update' },
      async (req, { principal, tenant }) => {
        onlyParameters(req.query);
        const body = await req.json();
        const value = tenant.markings.updateValue(
          req.params.id!,
          req.params.valueId!,
          body,
          principal,
          ifMatchVersion(req),
        );
        return json(200, value, { etag: `"${tenant.markings.version(value.markingId)}"` });
      },
    ),
    route(
      'DELETE',
      `${base}/:id/values/:valueId`,
      { scope: 'markings:update' },
      (req, { principal, tenant }) => {
        onlyParameters(req.query);
        tenant.markings.deleteValue(
          req.params.id!,
          req.params.valueId!,
          principal,
          ifMatchVersion(req),
        );
        return { status: 204 };
      },
    ),
  ];
}

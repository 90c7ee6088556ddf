/**
 * Enrollment admin endpoints (docs/design.md 3.4), dev token required:
 *   POST /_mock/tokens {keyspace?, user, ttlSeconds?, omitUid?} → {stoken, uidauth}
 *     Any user name may be minted (unknown users produce 40901); `ttlSeconds: 0` mints a pair
 *     that has already expired (40105); `omitUid: true` leaves `uid` out of the claims (45102).
 *   GET  /_mock/outbox   registration codes the portal "e-mailed", oldest first
 *   GET  /_mock/devices  enrolled devices, without their keys
 *   PUT  /_mock/users/{name} {enabled?, password?, email?, tenant?}  create or change a user
 *   PUT  /_mock/keyspaces/{ks} {enrollment?, online?, tenant?}       create or change a keyspace
 */
import type { ErrorDetailWire } from '../../../common/http/error-body.js';
import type { TokenPair } from '../../../common/enrollment/wire.js';
import { MarkingsErrorCode } from '../../../common/markings/wire.js';
import { isJsonObject } from '../../../common/encoding/json.js';
import { isKeyspace } from '../../../common/enrollment/device-id.js';
import { mintTokenPair } from '../../model/enrollment/tokens.js';
import { json, MockHttpError, type MockRequest } from '../../kit/http.js';
import { type Route, route } from '../../request/route.js';
import type { MockKeyspace, MockState, MockUser } from '../../model/state.js';

type FieldType = 'string' | 'boolean' | 'seconds';

/** The body as an object whose fields have the given types; 400 naming every problem. */
async function readFields(
  req: MockRequest,
  types: Record<string, FieldType>,
): Promise<Record<string, unknown>> {
  const body = await req.json();
  if (!isJsonObject(body)) {
    throw new MockHttpError(400, MarkingsErrorCode.validation, 'the body must be a JSON object');
  }
  const details: ErrorDetailWire[] = [];
  for (const [field, value] of Object.entries(body)) {
    const type = types[field];
    if (type === undefined) details.push({ path: field, message: 'unknown field' });
    else if (type === 'seconds') {
      if (!(Number.isInteger(value) && (value as number) >= 0)) {
        details.push({ path: field, message: 'must be a whole number of seconds, 0 or more' });
      }
    } else if (typeof value !== type) details.push({ path: field, message: `must be a ${type}` });
  }
  if (details.length > 0) {
    throw new MockHttpError(
      400,
      MarkingsErrorCode.validation,
      `invalid body: ${details[0]!.path}: ${details[0]!.message}`,
      details,
    );
  }
  return body;
}

function invalid(path: string, message: string): MockHttpError {
  return new MockHttpError(400, MarkingsErrorCode.validation, `${path}: ${message}`, [
    { path, message },
  ]);
}

function publicUser(user: MockUser) {
  return { name: user.name, tenant: user.tenant, enabled: user.enabled, email: user.email };
}

/**
 * A token pair of `keyspace` for `user` (none: a pair without `uid`), as the mock's portal would
 * issue it. The portal, `POST /_mock/tokens` and `startMock().mintTokens()` all mint with it.
 */
export function mintFor(
  state: MockState,
  keyspace: MockKeyspace,
  user: string | undefined,
  ttlSeconds?: number,
): TokenPair {
  const pair = mintTokenPair({
    secret: state.enrollment.portalSecret,
    uid: user,
    tenant: keyspace.tenant,
    keyspace: keyspace.id,
    ttlMs: ttlSeconds === undefined ? undefined : ttlSeconds * 1000,
  });
  // Secrets the journal scrubs from every message it keeps (the answer that carries them too).
  state.journal.secrets.add(pair.stoken);
  state.journal.secrets.add(pair.uidauth);
  return pair;
}

export function enrollAdminRoutes(state: MockState): Route[] {
  return [
    route('POST', '/_mock/tokens', 'admin', async (req) => {
      const body = await readFields(req, {
        keyspace: 'string',
        user: 'string',
        ttlSeconds: 'seconds',
        omitUid: 'boolean',
      });
      const keyspaceId = (body.keyspace as string | undefined) ?? state.defaultKeyspace;
      const keyspace = state.keyspaces.get(keyspaceId);
      if (!keyspace) {
        throw new MockHttpError(
          404,
          MarkingsErrorCode.notFound,
          `keyspace ${keyspaceId} not found`,
        );
      }
      const user = body.user as string | undefined;
      const omitUid = body.omitUid === true;
      if (!omitUid && (user === undefined || user === '')) {
        throw invalid('user', 'name the user the tokens are for');
      }
      const ttlSeconds = body.ttlSeconds as number | undefined;
      const pair = mintFor(state, keyspace, omitUid ? undefined : user, ttlSeconds);
      return json(200, pair);
    }),
    route('GET', '/_mock/outbox', 'admin', () => {
      return json(200, state.enrollment.outbox());
    }),
    route('GET', '/_mock/devices', 'admin', () => {
      return json(200, state.enrollment.devices());
    }),
    route('PUT', '/_mock/users/:name', 'admin', async (req) => {
      const body = await readFields(req, {
        enabled: 'boolean',
        password: 'string',
        email: 'string',
        tenant: 'string',
      });
      const name = req.params.name!;
      const before = state.users.get(name);
      const user: MockUser = {
        name,
        tenant: (body.tenant as string | undefined) ?? before?.tenant ?? state.defaultTenant,
        enabled: (body.enabled as boolean | undefined) ?? before?.enabled ?? true,
        password: (body.password as string | undefined) ?? before?.password,
        email: (body.email as string | undefined) ?? before?.email,
      };
      state.addTenant(user.tenant);
      state.users.set(name, user);
      return json(before ? 200 : 201, publicUser(user));
    }),
    route('PUT', '/_mock/keyspaces/:keyspace', 'admin', async (req) => {
      const body = await readFields(req, {
        enrollment: 'boolean',
        online: 'boolean',
        tenant: 'string',
      });
      const id = req.params.keyspace!;
      if (!isKeyspace(id)) throw invalid('keyspace', 'a keyspace is 4 letters or digits');
      const before = state.keyspaces.get(id);
      const keyspace: MockKeyspace = {
        id,
        tenant: (body.tenant as string | undefined) ?? before?.tenant ?? state.defaultTenant,
        enrollment: (body.enrollment as boolean | undefined) ?? before?.enrollment ?? true,
        online: (body.online as boolean | undefined) ?? before?.online ?? true,
      };
      state.addTenant(keyspace.tenant);
      state.keyspaces.set(id, keyspace);
      return json(before ? 200 : 201, keyspace);
    }),
  ];
}

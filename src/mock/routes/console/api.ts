/**
 * The console's JSON API, under /_mock/console/api/, each route behind the session:
 *
 *   GET    session               {csrf}: the token for X-Ksctl-Csrf
 *   GET    overview              URLs, keyspace(s), tenants, counts (never the dev token)
 *   GET    stats?since=T         {seconds: [...]} of the last 10 minutes after epoch second T
 *   *      markings…             the default tenant's markings API as the dev principal: the
 *                                same query grammar, bodies, answers and errors
 *   GET    devices               {devices: [{id, user, keyspace, tenant, enrolled, lastSeen, keys}]}
 *   GET    devices/{id}          {device, keys: [{id, ref, attributes, mutableAttributes,
 *                                decrypted, created, modified}], messages}; protected attribute
 *                                values opened with the key's data key, their names in `decrypted`
 *   GET    requests?side=&method=&path=&status=&device=&cid=&before=&limit=
 *                                {total, requests}: journal entries, newest first
 *   GET    requests/{id}         the request described (request-detail.ts), envelopes opened
 *   GET    events                server-sent events of new journal entries (events.ts)
 *   GET    faults                {faults: [rule + {hits}]}
 *   POST   faults                one rule (the keys of --fault, checked the same way) → 201
 *   DELETE faults/{index}       removes one; DELETE faults removes all
 *   POST   tokens {user, keyspace?}  {stoken, uidauth, enroll}: `enroll` is the ksctl line
 *   GET    outbox                {messages}: registration codes the portal "e-mailed"
 *
 * On `ksctl mock record` (no `mock` in the deps) only session (with `recording`, the origin
 * recorded), overview ({url, recording, counts: {requests}}), requests, requests/{id} and events
 * are served; the pages of the mock's state are not found, and the answer says they belong to a mock.
 */
import type { ServerResponse } from 'node:http';
import { MarkingsErrorCode } from '../../../common/markings/wire.js';
import type { JournalEntry, MockInfo } from '../../../common/mock/wire.js';
import { aad, isProtectedAttribute, openProtectedValues } from '../../../common/device/crypto.js';
import { faultRuleProblem } from '../../model/admin/faults.js';
import { filterFromQuery } from '../../journal/filter.js';
import type { StoredKey } from '../../model/device/store.js';
import type { MockState } from '../../model/state.js';
import { json, MockHttpError, type MockRequest, type MockResponse } from '../../kit/http.js';
import { type Route, route } from '../../request/route.js';
import type { Journal } from '../../journal/request-journal.js';
import type { EntryFeed } from './events.js';
import { CONSOLE_PATH, type ConsoleSignIn } from '../../model/console/sign-in.js';
import type { RequestStats } from './stats.js';

/**
 * What the console shows: a journal, and, on the mock, the mock's state. `ksctl mock record`
 * serves the same console over its own journal with no `mock`: its API then answers only the
 * session, the overview (what it records), the requests and their events.
 */
export interface ConsoleDeps {
  signIn: ConsoleSignIn;
  /** Signs in with the form, and makes sign-in links (`POST /_mock/console/links`). */
  devToken: string;
  /** The server's root URL, which sign-in links start with. */
  url: () => string;
  journal: Journal;
  /** Entries as the journal records them, for the event streams. */
  feed: EntryFeed;
  /** `GET requests/{id}`: the entry described (request-detail.ts), 404 when the journal lacks it. */
  describe: (id: string, req: MockRequest) => Promise<unknown>;
  /** The mock's own parts; absent on a recorder. */
  mock?: MockConsoleDeps;
  /** On a recorder: the origin it records. */
  recording?: string;
}

/** What the console's pages of the mock's state need of the mock server. */
export interface MockConsoleDeps {
  state: MockState;
  stats: RequestStats;
  /** The mock's connection details (its URL). */
  info: () => MockInfo;
  /** Answers a request as the mock's router does (the console's markings go through it). */
  route: (req: MockRequest) => Promise<MockResponse>;
  /** Journal entries, oldest first, as far as the journal keeps them. */
  entries: () => JournalEntry[];
}

/** Starts an event stream on an answer whose head is written. */
export type OpenStream = (res: ServerResponse) => void;

const API = `${CONSOLE_PATH}/api`;
/** Journal entries a page of `requests` holds at most (and by default). */
const REQUESTS_MAX_LIMIT = 1000;
const REQUESTS_DEFAULT_LIMIT = 200;

function invalid(path: string, message: string): MockHttpError {
  return new MockHttpError(400, MarkingsErrorCode.validation, `${path}: ${message}`, [
    { path, message },
  ]);
}

/** The request, as the dev principal would send it to another path of the mock. */
function forwarded(req: MockRequest, path: string, devToken: string): MockRequest {
  return {
    ...req,
    path,
    params: {},
    headers: { ...req.headers, authorization: `Bearer ${devToken}` },
  };
}

/** Protected values opened with the key's data key; the names of those opened. */
function openedAttributes(
  key: StoredKey,
  text: string | undefined,
): { attributes: Record<string, string[]>; decrypted: string[] } {
  const stored = JSON.parse(text ?? '{}') as Record<string, string[]>;
  const decrypted: string[] = [];
  const dataKey = Buffer.from(key.key, 'hex');
  const attributes = Object.fromEntries(
    Object.entries(stored).map(([name, values]): [string, string[]] => {
      if (!isProtectedAttribute(name) || values.length !== 1) return [name, values];
      const opened = openProtectedValues(dataKey, aad(key.id), values[0]!);
      if (opened === undefined) return [name, values];
      decrypted.push(name);
      return [name, opened];
    }),
  );
  return { attributes, decrypted };
}

/** The console's API: every route behind the session (the route table checks it). */
export function consoleApi(deps: ConsoleDeps, openStream: OpenStream): Route[] {
  const { mock } = deps;
  const routes: Route[] = [
    route('GET', `${API}/session`, 'session', (_req, { session }) =>
      json(200, {
        csrf: session.csrf,
        ...(deps.recording === undefined ? {} : { recording: deps.recording }),
      }),
    ),
    route('GET', `${API}/requests`, 'session', (req) => {
      const filter = filterFromQuery(req.query);
      if (typeof filter === 'string')
        throw new MockHttpError(400, MarkingsErrorCode.validation, filter);
      const limit = Math.min(filter.limit ?? REQUESTS_DEFAULT_LIMIT, REQUESTS_MAX_LIMIT);
      // Every match is counted (the page says how many it does not show); a few are sent.
      const { requests } = deps.journal.list({
        ...filter,
        limit: undefined,
        bodies: false,
        newestFirst: true,
      });
      return json(200, { total: requests.length, requests: requests.slice(0, limit) });
    }),
    // Described on demand: envelopes opened, packages inspected (request-detail/).
    route('GET', `${API}/requests/:id`, 'session', async (req) =>
      json(200, await deps.describe(req.params.id!, req)),
    ),
    route('GET', `${API}/events`, 'session', () => ({
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'x-accel-buffering': 'no' },
      stream: openStream,
    })),
  ];
  if (mock) return [...routes, ...mockPages(mock)];
  return [
    ...routes,
    route('GET', `${API}/overview`, 'session', () =>
      json(200, {
        url: deps.url(),
        recording: deps.recording,
        counts: { requests: deps.journal.list({ limit: 0 }).total },
      }),
    ),
  ];
}

/** `markings…`: the request sent to the default tenant's markings API as the dev principal. */
export function forwardedMarkings(deps: ConsoleDeps, req: MockRequest): Promise<MockResponse> {
  const { state, route: answer } = deps.mock!;
  const path = `/v2/${encodeURIComponent(state.defaultTenant)}${req.path.slice(API.length)}`;
  return answer(forwarded(req, path, state.devToken));
}

/** The API of the pages that show and change the mock's state. */
function mockPages(deps: MockConsoleDeps): Route[] {
  const { state } = deps;
  const tenant = () => state.defaultTenant;

  /** When each device was last heard of: its newest journal entry, else its newest key. */
  const lastSeen = (): Map<string, string> => {
    const seen = new Map<string, string>();
    for (const entry of deps.entries()) {
      if (entry.device !== undefined) seen.set(entry.device, entry.time);
    }
    return seen;
  };
  const keyTime = (key: StoredKey) => Math.max(key.createdAt, key.modifiedAt ?? 0);
  const deviceSummary = (
    record: ReturnType<typeof state.enrollment.devices>[number],
    keys: number,
    seen: Map<string, string>,
  ) => {
    let last = seen.get(record.deviceId);
    if (last === undefined && keys > 0) {
      const newest = Math.max(...state.keys.ofDevice(record.deviceId).map(keyTime));
      last = new Date(newest).toISOString();
    }
    return {
      id: record.deviceId,
      user: record.user,
      keyspace: record.keyspace,
      tenant: record.tenant,
      enrolled: record.createdAt,
      lastSeen: last ?? null,
      keys,
    };
  };

  return [
    {
      method: 'GET',
      pattern: `${API}/overview`,
      access: 'session',
      handler: () => {
        const info = deps.info();
        const markings = state.tenant(tenant())?.markings;
        return json(200, {
          url: info.url,
          baseUrl: info.baseUrl,
          apiUrl: info.apiUrl,
          enrollmentUrl: info.enrollmentUrl,
          knsUrl: info.knsUrl,
          tenant: tenant(),
          keyspace: state.defaultKeyspace,
          keyspaces: [...state.keyspaces.values()],
          // Each tenant with what it holds: the markings pages show the default tenant's only.
          tenants: [...state.tenants].map(([id, t]) => ({
            id,
            markings: t.markings.size,
            values: t.markings.valueCount,
          })),
          users: [...state.users.values()].map(({ name, tenant, enabled, email }) => ({
            name,
            tenant,
            enabled,
            email,
          })),
          counts: {
            markings: markings?.size ?? 0,
            values: markings?.valueCount ?? 0,
            devices: state.enrollment.devices().length,
            keys: state.keys.size,
            requests: state.requests().total,
          },
        });
      },
    },
    {
      method: 'GET',
      pattern: `${API}/stats`,
      access: 'session',
      handler: (req) => {
        const since = req.query.get('since');
        if (since !== null && !/^\d{1,12}$/.test(since))
          throw invalid('since', 'must be epoch seconds');
        return json(200, { seconds: deps.stats.seconds(since === null ? 0 : Number(since)) });
      },
    },
    {
      method: 'GET',
      pattern: `${API}/devices`,
      access: 'session',
      handler: () => {
        const counts = state.keys.countsByDevice();
        const seen = lastSeen();
        // Newest first, as the page says: by enrollment time, of two at one instant the later.
        const devices = state.enrollment
          .devices()
          .map((d) => deviceSummary(d, counts.get(d.deviceId) ?? 0, seen))
          .reverse()
          .sort((a, b) => b.enrolled.localeCompare(a.enrolled));
        return json(200, { devices });
      },
    },
    {
      method: 'GET',
      pattern: `${API}/devices/:id`,
      access: 'session',
      handler: (req) => {
        const record = state.enrollment.device(req.params.id!);
        if (!record) {
          throw new MockHttpError(
            404,
            MarkingsErrorCode.notFound,
            `device ${req.params.id!} not found`,
          );
        }
        const stored = state.keys.ofDevice(record.deviceId);
        const keys = stored.map((key) => {
          const fixed = openedAttributes(key, key.cattrs);
          const mutable = openedAttributes(key, key.mattrs);
          return {
            id: key.id,
            ref: key.ref,
            attributes: fixed.attributes,
            mutableAttributes: mutable.attributes,
            decrypted: [...fixed.decrypted, ...mutable.decrypted],
            created: new Date(key.createdAt).toISOString(),
            modified: key.modifiedAt === undefined ? null : new Date(key.modifiedAt).toISOString(),
          };
        });
        const messages = state.deviceMessages
          .list()
          .messages.filter((m) => m.deviceId === record.deviceId);
        return json(200, {
          device: deviceSummary(record, stored.length, lastSeen()),
          keys,
          messages,
        });
      },
    },
    {
      method: 'GET',
      pattern: `${API}/faults`,
      access: 'session',
      handler: () => json(200, { faults: state.faults.listWithHits() }),
    },
    {
      method: 'POST',
      pattern: `${API}/faults`,
      access: 'session',
      handler: async (req) => {
        const rule = await req.json();
        const problem = faultRuleProblem(rule);
        if (problem !== undefined) {
          throw new MockHttpError(
            400,
            MarkingsErrorCode.validation,
            `invalid fault rule: ${problem}`,
            [{ path: 'rule', message: problem }],
          );
        }
        state.faults.add(rule as Parameters<typeof state.faults.add>[0]);
        return json(201, { faults: state.faults.listWithHits() });
      },
    },
    {
      method: 'DELETE',
      pattern: `${API}/faults`,
      access: 'session',
      handler: () => {
        state.faults.replace([]);
        return json(200, { faults: [] });
      },
    },
    {
      method: 'DELETE',
      pattern: `${API}/faults/:index`,
      access: 'session',
      handler: (req) => {
        const index = req.params.index!;
        if (!/^\d{1,6}$/.test(index) || !state.faults.remove(Number(index))) {
          throw new MockHttpError(404, MarkingsErrorCode.notFound, `no fault rule ${index}`);
        }
        return json(200, { faults: state.faults.listWithHits() });
      },
    },
    {
      method: 'POST',
      pattern: `${API}/tokens`,
      access: 'session',
      handler: async (req) => {
        // The admin endpoint checks the body and mints, as for `ksctl mock tokens`.
        const minted = await deps.route(forwarded(req, '/_mock/tokens', state.devToken));
        if (minted.status !== 200) return minted;
        const pair = minted.body as { stoken: string; uidauth: string };
        const info = deps.info();
        // The body was read once for the mint; reading it again gives the same bytes.
        const asked = (await req.json()) as { keyspace?: string };
        const keyspace = asked.keyspace ?? state.defaultKeyspace;
        const enroll =
          `KSCTL_STOKEN='${pair.stoken}' KSCTL_UIDAUTH='${pair.uidauth}' ksctl enroll` +
          ` --keyspace ${keyspace} --api-url ${info.apiUrl} --enrollment-url ${info.enrollmentUrl}`;
        return json(200, { ...pair, keyspace, enroll });
      },
    },
    {
      method: 'GET',
      pattern: `${API}/outbox`,
      access: 'session',
      handler: () => json(200, { messages: state.enrollment.outbox() }),
    },
  ];
}

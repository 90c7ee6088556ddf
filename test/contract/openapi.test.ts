/**
 * schema/openapi.yaml against the OpenAPI 3.1 schema, against the filter grammar of
 * src/common/markings/filters.ts, and against the mock: the same routes both ways (the mock's list comes from
 * its router, which every route table feeds), the document served at /_mock/openapi.json, and one
 * request of every operation with its answer checked.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from '@hyperjump/json-schema/openapi-3-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import {
  FILTER_OPERATORS,
  MARKING_FILTER_FIELDS,
  parseFilterTerm,
  VALUE_FILTER_FIELDS,
  type FilterFields,
} from '../../src/common/markings/filters.js';
import type { TokenPair } from '../../src/common/enrollment/wire.js';
import type { Marking, MarkingValue } from '../../src/common/markings/wire.js';
import { makeCid } from '../../src/common/device/cid.js';
import { sealEnvelope } from '../../src/common/device/crypto.js';
import type { AnswerSeen, MockServer } from '../../src/mock/server/server.js';
import { PACKAGE_ROOT } from '../../src/common/package-root.js';
import { DEV_TOKEN, startCheckedServer } from '../helpers/mock.js';
import { HTTP_METHODS, OPENAPI_YAML, openApi, pointerToken } from '../helpers/openapi.js';
import { craft, testKeys } from '../integration/mock-enroll-fixtures.js';

type Json = Record<string, unknown>;

const api = openApi();
const doc = api.document as {
  info: { version: string };
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json> };
};

const OAS_SCHEMA = 'https://spec.openapis.org/oas/3.1/schema-base';

describe('the document', () => {
  it('is a valid OpenAPI 3.1 document, by the official schema', async () => {
    expect((await validate(OAS_SCHEMA, doc as never)).valid).toBe(true);
    // The same check fails a document that is wrong in a way a person would make it.
    const broken = structuredClone(doc);
    delete (broken.paths['/v2/{tenant}/markings']!.get!.responses as Record<string, Json>)['200']!
      .description;
    expect((await validate(OAS_SCHEMA, broken as never)).valid).toBe(false);
    const badSchema = structuredClone(doc);
    badSchema.components.schemas.Id = { type: 'text' };
    expect((await validate(OAS_SCHEMA, badSchema as never)).valid).toBe(false);
  });

  it('describes the version of ksctl that serves it', () => {
    const { version } = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    const built = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'dist', 'openapi.json'), 'utf8')) as {
      info: { version: string };
    };
    expect(built.info.version).toBe(version);
    expect({ ...built, info: { ...built.info, version: doc.info.version } }).toEqual(doc);
  });

  it('every schema compiles: each $ref resolves', async () => {
    const pointers: string[] = Object.keys(doc.components.schemas).map(
      (name) => `/components/schemas/${pointerToken(name)}`,
    );
    // Every `schema` of a parameter, header or media type, wherever it is.
    const walk = (value: unknown, pointer: string) => {
      if (typeof value !== 'object' || value === null) return;
      for (const [key, inner] of Object.entries(value)) {
        const at = `${pointer}/${pointerToken(key)}`;
        if (key === 'schema' && !pointer.includes('/schemas/')) pointers.push(at);
        else walk(inner, at);
      }
    };
    walk(doc.paths, '/paths');
    walk(doc.components, '/components');
    expect(pointers.length).toBeGreaterThan(100);
    const failures: string[] = [];
    for (const pointer of pointers) {
      await api.schemaAt(pointer).catch((error: unknown) => failures.push(`${pointer}: ${error}`));
    }
    expect(failures).toEqual([]);
  });

  it('names each path parameter of a template, and gives each operation its own id', () => {
    const problems: string[] = [];
    const ids = new Map<string, string>();
    const resolve = (p: Json) =>
      typeof p.$ref === 'string'
        ? (doc.components as unknown as Record<string, Record<string, Json>>).parameters![
            p.$ref.split('/').pop()!
          ]!
        : p;
    for (const [template, item] of Object.entries(doc.paths)) {
      const named = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      for (const method of HTTP_METHODS.filter((m) => item[m] !== undefined)) {
        const operation = item[method]!;
        const id = operation.operationId as string;
        if (ids.has(id))
          problems.push(`${id} is the id of ${ids.get(id)} and ${method} ${template}`);
        ids.set(id, `${method} ${template}`);
        const parameters = [
          ...((item.parameters as unknown as Json[] | undefined) ?? []),
          ...((operation.parameters as Json[] | undefined) ?? []),
        ].map(resolve);
        const inPath = parameters
          .filter((p) => p.in === 'path')
          .map((p) => p.name)
          .sort();
        if (JSON.stringify(inPath) !== JSON.stringify(named)) {
          problems.push(`${method} ${template}: path parameters ${inPath.join(',')}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('says what a repeated filter parameter means, as the mock reads it', () => {
    const list = doc.paths['/v2/{tenant}/markings']!.get! as {
      parameters: { name?: string; description?: string }[];
    };
    const filter = list.parameters.find((p) => p.name === 'filter')!.description!;
    expect(filter).toContain('A parameter given more than once is a term each time');
    expect(filter).toContain('a repeated `__any` is one list, the union');
    expect(filter).toContain('Different equalities on one field under AND');
  });

  it.each([
    ['MarkingFilter', MARKING_FILTER_FIELDS],
    ['ValueFilter', VALUE_FILTER_FIELDS],
  ] as const)(
    '%s is the whole filter grammar of src/common/markings/filters.ts, nothing more',
    (name, fields) => {
      const documented = doc.components.schemas[name]!.properties as Record<
        string,
        { $ref: string }
      >;
      expect(Object.fromEntries(Object.entries(documented).map(([k, v]) => [k, v.$ref]))).toEqual(
        grammar(fields),
      );
    },
  );
});

/** Every parameter the grammar takes for these fields, with the operand schema it must have. */
function grammar(fields: FilterFields): Record<string, string> {
  const operands = ['a', '', '1', 'true', '1,2', 'true,false', 'a,b'];
  const suffixes = ['', ...FILTER_OPERATORS.map((op) => `__${op}`), '__eq', '__like'];
  const expected: Record<string, string> = {};
  for (const field of [...Object.keys(fields), 'colour']) {
    for (const suffix of suffixes) {
      for (const negation of ['', '__ne', '__contains']) {
        const parameter = `${field}${suffix}${negation}`;
        for (const text of operands) {
          let term;
          try {
            term = parseFilterTerm(parameter, text, fields);
          } catch {
            continue;
          }
          const type = { string: 'String', boolean: 'Boolean', timestamp: 'Timestamp' }[term.type];
          const schema =
            term.op === 'empty'
              ? 'FilterEmpty'
              : term.op === 'any' || term.op === 'all'
                ? `Filter${type}List`
                : `Filter${type}`;
          expected[parameter] = `#/components/schemas/${schema}`;
          break;
        }
      }
    }
  }
  return expected;
}

// ---- the mock against the document ----

let server: MockServer;
const seen: { method: string; template: string | undefined; status: number }[] = [];

beforeAll(async () => {
  const { server: keyServer } = await testKeys();
  server = await startCheckedServer({
    port: 0,
    devToken: DEV_TOKEN,
    keyServerKey: keyServer.privateKey,
    onAnswer: (answer: AnswerSeen) =>
      seen.push({
        method: answer.method,
        template: api.operationOf(answer.method, answer.path),
        status: answer.status,
      }),
  });
});
afterAll(() => server?.close());

interface Reply {
  status: number;
  headers: Headers;
  text: string;
}

async function send(
  method: string,
  path: string,
  options: { json?: unknown; form?: Record<string, string>; token?: string | null } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? DEV_TOKEN : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  const response = await fetch(server.info.url + path, { method, headers, body });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const json = <T>(reply: Reply): T => JSON.parse(reply.text) as T;

describe('the mock and the document', () => {
  it('name the same routes', () => {
    const served = servedRoutes();
    const documented = api.operations().map(({ method, template }) => `${method} ${template}`);
    expect(served.length).toBeGreaterThan(30);
    expect(served.filter((route) => !documented.includes(route)).sort()).toEqual([]);
    expect(documented.filter((route) => !served.includes(route)).sort()).toEqual([]);
  });

  it('documents who may call each route as the route declares it', () => {
    // A route's access (src/mock/request/route.ts) in the words of the document's `security`.
    const declared = server.routes().map(({ method, pattern, access }) => {
      const word =
        typeof access === 'object'
          ? `scope ${access.scope}`
          : access === 'anyone' || access === 'device'
            ? 'open'
            : access;
      return `${method} ${pattern.replace(/:([^/]+)/g, '{$1}')}: ${word}`;
    });
    const paths = api.document.paths as Record<string, Record<string, { security?: unknown }>>;
    const documented = api.operations().map(({ method, template }) => {
      const security = (paths[template]![method.toLowerCase()]!.security ?? []) as Record<
        string,
        string[]
      >[];
      const schemes = [...new Set(security.flatMap((requirement) => Object.keys(requirement)))];
      const scopes = [
        ...new Set(security.flatMap((requirement) => Object.values(requirement).flat())),
      ];
      const word =
        security.length === 0
          ? 'open'
          : schemes.join() === 'devToken'
            ? 'admin'
            : scopes.length === 1
              ? `scope ${scopes[0]}`
              : // Introspection (any scope), and Create or Update Multiple, whose body says which.
                'caller';
      return `${method} ${template}: ${word}`;
    });
    expect(declared.sort()).toEqual(documented.sort());
  });

  it('serves the document at /_mock/openapi.json, without credentials, naming itself', async () => {
    const reply = await send('GET', '/_mock/openapi.json', { token: null });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json');
    const served = json<Json & { info: Json }>(reply);
    expect(served.servers).toEqual([{ url: server.info.url, description: 'this mock' }]);
    const source = YAML.parse(readFileSync(OPENAPI_YAML, 'utf8')) as Json & { info: Json };
    expect({ ...served, servers: source.servers, info: source.info }).toEqual(source);
  });

  it('answers one request of every operation it serves as the document says', async () => {
    const base = `/v2/${server.info.tenantId}/markings`;
    const created = json<Marking>(
      await send('POST', base, {
        json: {
          name: 'tour',
          defaultValue: 'a',
          detail: { values: [{ name: 'a' }, { name: 'b' }] },
        },
      }),
    );
    const m = `${base}/${created.id}`;
    const b = created.detail.values!.find((v) => v.name === 'b')!;
    await send('POST', base, { json: [{ name: 'tour-2' }, { id: created.id, public: true }] });
    await send('GET', `${base}?name__startswith=tour&public=true&or=true&valueLimit=0`);
    await send('GET', `${base}?name__contains=t&name__contains=r&name__any=a&name__any=b`);
    await send('GET', `${base}?name=tour&name=other`);
    await send('GET', `${m}?valueLimit=1`);
    await send('PUT', m, { json: { detail: { description: 'seen' } } });
    await send('GET', `${m}/values?name__any=a,b&limit=1`);
    const c = json<MarkingValue>(await send('POST', `${m}/values`, { json: { name: 'c' } }));
    await send('GET', `${m}/values/${b.id}`);
    await send('PUT', `${m}/values/${b.id}`, { json: { description: 'bee' } });
    await send('DELETE', `${m}/values/${c.id}`);

    const ks = server.info.keyspace;
    await send('GET', `/enrollment/keyspace/${ks}/pubkey`, { token: null });
    const alice = server.info.users.find((u) => u.name === 'alice')!;
    await send('POST', `/enrollment/keyspace/${ks}/register`, {
      token: null,
      form: { username: alice.name, password: alice.password! },
    });
    await send('POST', `/enrollment/keyspace/${ks}/register`, {
      token: null,
      form: { email: alice.email! },
    });
    await send('GET', `/v2.4/kns/keyspaces/${ks}`, { token: null });
    for (const version of ['2.3', '2.4']) {
      const path = `/v${version}/register/${ks}`;
      const tokens = json<TokenPair>(
        await send('POST', '/_mock/tokens', { json: { user: 'alice' } }),
      );
      const response = await fetch(server.info.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-conversation-id': randomUUID() },
        body: JSON.stringify(await craft({ tokens })),
      });
      expect(response.status, await response.text()).toBe(200);
    }

    const deviceId = `${ks}.1.${randomUUID()}`;
    const idc = randomBytes(32);
    server.state.enrollment.addDevice(
      {
        deviceId,
        keyspace: ks,
        tenant: server.info.tenantId,
        user: 'alice',
        createdAt: new Date().toISOString(),
      },
      { cdEi: randomBytes(32), cdIdc: idc },
    );
    const meta = { hfphash: 'tour', hfp: '{}' };
    const deviceData: Record<string, unknown> = {
      'keys/create': {
        'protection-keys': [{ ref: 'r', qty: 1, cattrs: '{}', mattrs: '{}', csig: 'x', msig: 'x' }],
      },
      'keys/fetch': { 'protection-keys': [], 'protection-key-queries': {} },
      'keys/modify': { 'protection-keys': [] },
      resources: { requests: [{ id: '1', resource: 'tour' }] },
      messages: [{ data: {}, message_type: 'tour' }],
    };
    for (const [operation, data] of Object.entries(deviceData)) {
      for (const version of ['2.3', '2.4']) {
        const path = `/v${version}/${operation}`;
        // v2.3 has create and fetch only.
        if (!served(`POST ${path}`)) continue;
        const cid = makeCid(deviceId);
        const reply = await send('POST', path, {
          token: null,
          json: { cid, envelope: sealEnvelope(idc, cid, { meta, data }) },
        });
        expect(reply.status, `${path}: ${reply.text}`).toBe(200);
      }
    }

    await send('POST', '/oauth2/introspect', { form: { token: DEV_TOKEN } });
    await send('GET', '/_mock/health', { token: null });
    await send('PUT', '/_mock/faults', { json: [{ path: '/nowhere', status: 503, times: 2 }] });
    await send('GET', '/_mock/faults');
    await send('GET', '/_mock/requests');
    await send('GET', '/_mock/requests?bodies=true&order=newest&limit=5');
    // Every request so far described: device requests opened, registrations inspected.
    const { requests } = json<{ requests: { id: number }[] }>(await send('GET', '/_mock/requests'));
    for (const { id } of requests) await send('GET', `/_mock/requests/${id}`);
    await send('GET', '/_mock/requests/999999');
    await send('GET', '/_mock/outbox');
    await send('GET', '/_mock/devices');
    await send('GET', '/_mock/keys');
    await send('GET', '/_mock/messages');
    await send('PUT', '/_mock/users/carol', {
      json: { email: 'carol@example.com', password: 'pw' },
    });
    await send('PUT', '/_mock/keyspaces/EFgh', { json: { online: false } });
    await send('DELETE', m, { token: DEV_TOKEN });
    await send('POST', '/_mock/reset');

    const answered = new Set(
      seen
        .filter((s) => s.template !== undefined && s.status < 300)
        .map((s) => `${s.method} ${s.template}`),
    );
    const documented = api.operations().map(({ method, template }) => `${method} ${template}`);
    expect(documented.filter((op) => !answered.has(op)).sort()).toEqual([]);
  });

  it('an answer that disagrees with the document is caught', async () => {
    const marking = {
      status: 200,
      method: 'GET',
      path: '/v2/dev/markings/0123456789abcdef01234567',
    };
    const ok: AnswerSeen = {
      ...marking,
      headers: { 'content-type': 'application/json', etag: '"1"', 'x-conversation-id': 'c' },
      body: JSON.stringify(json(await send('GET', `/v2/dev/markings?limit=1`))),
    };
    // A list where a marking belongs, a missing ETag, an undocumented status, a stray 200.
    expect((await api.problems(ok)).join()).toMatch(/does not match/);
    const noEtag = { ...ok, headers: { ...ok.headers, etag: undefined } } as unknown as AnswerSeen;
    expect((await api.problems(noEtag)).join()).toMatch(/header ETag is missing/);
    expect((await api.problems({ ...ok, method: 'POST', path: '/_mock/health' })).join()).toMatch(
      /no operation|documents no answer/,
    );
    expect((await api.problems({ ...ok, method: 'GET', path: '/_mock/nothing' })).join()).toMatch(
      /no operation of the document/,
    );
    const text = { ...ok, headers: { ...ok.headers, 'content-type': 'text/plain' } };
    expect((await api.problems(text)).join()).toMatch(/content type text\/plain/);
  });
});

/** The mock's routes as `METHOD /path/{name}`, as the document writes them. */
function servedRoutes(): string[] {
  return server
    .routes()
    .map(({ method, pattern }) => `${method} ${pattern.replace(/:([^/]+)/g, '{$1}')}`);
}

const served = (route: string) => servedRoutes().includes(route);

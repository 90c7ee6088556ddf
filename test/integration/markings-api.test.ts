/**
 * Every markings and values operation through HttpMarkingsApi against the in-process mock.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/client/api/client.js';
import { HttpMarkingsApi } from '../../src/client/markings/http-markings-api.js';
import type { BulkMarkingItem, Marking, MarkingInput } from '../../src/common/markings/wire.js';
import {
  ConflictError,
  InputError,
  type KsctlError,
  NotFoundError,
} from '../../src/common/errors.js';
import type { TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite({ client: { backoffMs: 5, maxRetryAfterMs: 20 } });
let mock: TestMock;
let client: ApiClient;
let api: HttpMarkingsApi;

beforeAll(() => {
  ({ mock, client, api } = suite);
});

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<KsctlError> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: KsctlError) => error,
  );
}

const classification: MarkingInput = {
  name: 'classification',
  defaultValue: 'internal',
  detail: {
    description: 'Data classification level',
    values: [
      { name: 'public' },
      { name: 'restricted', description: 'Need to know' },
      { name: 'internal', description: 'Staff only' },
    ],
  },
};

async function names(): Promise<string[]> {
  const out: string[] = [];
  for await (const m of api.listMarkings({ valueLimit: 0 })) out.push(m.name);
  return out;
}

/** A snapshot of everything the tenant holds, to show that a failed request changed nothing. */
async function everything(): Promise<Marking[]> {
  return all(api.listMarkings());
}

describe('create and get', () => {
  it('creates a marking with its fields and values (ordered by name), version 1', async () => {
    const created = await api.createMarking({ ...classification, public: true, adminOnly: true });
    expect(created).toMatchObject({
      name: 'classification',
      public: true,
      adminOnly: true,
      defaultValue: 'internal',
      _version: 1,
      _createdBy: 'dev',
      detail: { description: 'Data classification level', valueCount: 3 },
    });
    expect(created.id).toMatch(/^[0-9a-f]{24}$/);
    expect(created.detail.values!.map((v) => [v.name, v.description, v.markingId])).toEqual([
      ['internal', 'Staff only', created.id],
      ['public', '', created.id],
      ['restricted', 'Need to know', created.id],
    ]);
    expect(await api.getMarking(created.id)).toEqual(created);
  });

  it('defaults: not public, not admin-only, no default value, empty description', async () => {
    const created = await api.createMarking({ name: 'bare' });
    expect(created).toMatchObject({
      public: false,
      adminOnly: false,
      defaultValue: null,
      detail: { description: '', valueCount: 0, values: [] },
    });
  });

  it('answers with an ETag of the version and a Location', async () => {
    const answer = await client.request<Marking>('POST', '/markings', { body: { name: 'tagged' } });
    expect(answer.status).toBe(201);
    expect(answer.headers.etag).toBe('"1"');
    expect(answer.headers.location).toBe(`/v2/dev/markings/${answer.body.id}`);
  });

  it('resolves a marking by id and by name; a name that looks like an id still works', async () => {
    const hexName = 'abcdefabcdefabcdefabcdef';
    const byHexName = await api.createMarking({ name: hexName });
    const created = await api.createMarking(classification);
    expect((await api.resolveMarking(created.id)).name).toBe('classification');
    expect((await api.resolveMarking('classification')).id).toBe(created.id);
    expect((await api.resolveMarking(hexName)).id).toBe(byHexName.id);
    expect(await failure(api.resolveMarking('nope'))).toBeInstanceOf(NotFoundError);
  });

  it('a default value that is not one of the values is refused with 400 naming the field', async () => {
    const error = await failure(
      api.createMarking({
        name: 'x',
        defaultValue: 'missing',
        detail: { values: [{ name: 'a' }] },
      }),
    );
    expect(error).toBeInstanceOf(InputError);
    expect(error.details).toEqual([
      { path: 'defaultValue', message: '"missing" is not one of the marking\'s values' },
    ]);
  });

  it('a duplicate marking name is a conflict; a duplicate value name is invalid', async () => {
    await api.createMarking({ name: 'dup' });
    expect(await failure(api.createMarking({ name: 'dup' }))).toBeInstanceOf(ConflictError);
    const error = await failure(
      api.createMarking({ name: 'x', detail: { values: [{ name: 'a' }, { name: 'a' }] } }),
    );
    expect(error).toBeInstanceOf(InputError);
    expect(error.details[0]!.path).toBe('detail.values[1].name');
    expect(await everything()).toHaveLength(1);
  });
});

describe('valueLimit', () => {
  beforeEach(async () => {
    await api.createMarking(classification);
  });

  it.each([
    [undefined, ['internal', 'public', 'restricted']],
    [2, ['internal', 'public']],
    [10, ['internal', 'public', 'restricted']],
  ])('valueLimit %s gives the first values by name', async (valueLimit, names) => {
    const [listed] = await all(api.listMarkings({ valueLimit }));
    expect(listed!.detail.values!.map((v) => v.name)).toEqual(names);
    expect(listed!.detail.valueCount).toBe(3);
    const got = await api.resolveMarking('classification', valueLimit);
    expect(got.detail.values!.map((v) => v.name)).toEqual(names);
  });

  it('valueLimit 0 leaves the values key out entirely, and keeps the count', async () => {
    const [listed] = await all(api.listMarkings({ valueLimit: 0 }));
    expect(listed!.detail).toEqual({
      description: 'Data classification level',
      valueCount: 3,
      // The members of the public Ionic API (docs/design.md 1.1); the default was set at version 1.
      dataType: 'string',
      default: false,
      defaultVersion: 1,
      policies: { referenced: 0 },
    });
    expect('values' in listed!.detail).toBe(false);
    const got = await api.getMarking(listed!.id, 0);
    expect('values' in got.detail).toBe(false);
  });

  it.each(['-1', 'all', '1.5'])('valueLimit=%s is a 400', async (valueLimit) => {
    const error = await failure(client.request('GET', '/markings', { query: { valueLimit } }));
    expect(error).toBeInstanceOf(InputError);
    expect(error.status).toBe(400);
  });
});

describe('list filters and paging', () => {
  beforeEach(async () => {
    await api.createOrUpdateMarkings([
      { name: 'region', public: true },
      { name: 'regional-office' },
      { name: 'classification', public: true },
      { name: 'project' },
      { name: 'Region' },
    ]);
  });

  it.each([
    [{}, ['Region', 'classification', 'project', 'region', 'regional-office']],
    [{ name: 'region' }, ['region']],
    [{ name: 'regio' }, []],
    [{ name__contains: 'gion' }, ['Region', 'region', 'regional-office']],
    [{ name__startswith: 'region' }, ['region', 'regional-office']],
    [{ public: true }, ['classification', 'region']],
    [{ public: false }, ['Region', 'project', 'regional-office']],
    [{ name__contains: 'o', public: false }, ['Region', 'project', 'regional-office']],
  ])('%j', async (query, names) => {
    expect((await all(api.listMarkings(query))).map((m) => m.name)).toEqual(names);
  });

  it('a page reports totalResults, skip and limit', async () => {
    const page = await api.listMarkingsPage({ skip: 1, limit: 2 });
    expect(page).toMatchObject({ totalResults: 5, skip: 1, limit: 2 });
    expect(page.items.map((m) => m.name)).toEqual(['classification', 'project']);
    expect((await api.listMarkingsPage({})).limit).toBe(100);
  });

  it('follows pages of the size asked for, and stops at max', async () => {
    expect((await all(api.listMarkings({ limit: 2 }))).map((m) => m.name)).toEqual([
      'Region',
      'classification',
      'project',
      'region',
      'regional-office',
    ]);
    expect((await all(api.listMarkings({ limit: 2 }, 3))).map((m) => m.name)).toEqual([
      'Region',
      'classification',
      'project',
    ]);
  });

  it('asks for the next page while the caller reads the current one, one page ahead only', async () => {
    const skips = async () =>
      (await mock.journal())
        .filter((r) => r.method === 'GET' && r.path.includes('/markings?'))
        .map((r) => new URL(r.path, 'http://x').searchParams.get('skip'));
    // The pages asked for, as the listing asks, and their answers.
    const asked: string[] = [];
    const answers: Promise<unknown>[] = [];
    const watched = {
      request: (method: string, path: string, options: { query?: { skip?: number } }) => {
        asked.push(String(options.query?.skip ?? 0));
        const answer = client.request(method, path, options);
        answers.push(answer.catch(() => undefined));
        return answer;
      },
    } as unknown as ApiClient;
    const items = new HttpMarkingsApi(watched).listMarkings({ limit: 2 })[Symbol.asyncIterator]();
    expect((await items.next()).value?.name).toBe('Region');
    // The first page is in hand and nothing more has been asked of the iterator: the page ahead
    // has been asked for. Once its answer is in, a page beyond it would be asked for at once.
    expect(asked).toEqual(['0', '2']);
    await answers[1];
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual(['0', '2']);
    const rest: string[] = [];
    for (let next = await items.next(); !next.done; next = await items.next())
      rest.push(next.value.name);
    expect(rest).toEqual(['classification', 'project', 'region', 'regional-office']);
    expect(asked).toEqual(['0', '2', '4']);
    expect(await skips()).toEqual(['0', '2', '4']);
  });

  it('a failing page ahead fails the listing when the caller reaches it, and only then', async () => {
    // A client whose second page fails: the first page's markings still come out first.
    const failing = {
      request: async (_method: string, _path: string, options: { query?: { skip?: number } }) => {
        if (options.query?.skip) throw new InputError('page two failed');
        return client.request('GET', '/markings', options);
      },
    } as unknown as ApiClient;
    const seen: string[] = [];
    const error = await failure(
      (async () => {
        for await (const m of new HttpMarkingsApi(failing).listMarkings({ limit: 2 }))
          seen.push(m.name);
      })(),
    );
    expect(seen).toEqual(['Region', 'classification']);
    expect(error.message).toBe('page two failed');
    // Stopping before the failed page is reached is no error at all.
    for await (const m of new HttpMarkingsApi(failing).listMarkings({ limit: 2 })) {
      expect(m.name).toBe('Region');
      break;
    }
  });

  /** Names a raw query string lists (for parameters the typed client sends only one way). */
  async function namesFor(query: string): Promise<string[]> {
    const page = await client.request<{ Resources?: { name: string }[] }>(
      'GET',
      `/markings?${query}`,
    );
    return (page.body.Resources ?? []).map((m) => m.name).sort();
  }

  it.each([
    // Clients that send a list as repeated parameters mean the union, as a comma list does.
    ['name__any=region&name__any=project', ['project', 'region']],
    ['name__any=region,project', ['project', 'region']],
    ['name__any=region&name__any=project,region', ['project', 'region']],
    ['name__any__ne=region&name__any__ne=project', ['Region', 'classification', 'regional-office']],
  ])('%s: a repeated __any is the union', async (query, names) => {
    expect(await namesFor(query)).toEqual(names);
  });

  it.each([
    // Every occurrence of a parameter is a term of its own, ANDed, or ORed under or=true.
    ['name__startswith=cl&name__startswith=pro&or=true', ['classification', 'project']],
    ['name__startswith=cl&name__startswith=pro', []],
    ['name__contains=io&name__contains=al', ['regional-office']],
    [
      'name__contains=io&name__contains=al&or=true',
      ['Region', 'classification', 'region', 'regional-office'],
    ],
    ['name__ne=region&name__ne=project', ['Region', 'classification', 'regional-office']],
    ['name__gte=p&name__lte=region&name__lte=q', ['project']],
    ['name=region&name=project&or=true', ['project', 'region']],
    ['name=region&name=region', ['region']],
    [
      'public=true&public=false&or=true',
      ['Region', 'classification', 'project', 'region', 'regional-office'],
    ],
  ])('%s: a repeated parameter is a term each time', async (query, names) => {
    expect(await namesFor(query)).toEqual(names);
  });

  it.each([
    [
      'name=region&name=project',
      'name',
      'name cannot be both "region" and "project"',
      'name__any=region,project, or or=true',
    ],
    ['public=true&public=false', 'public', 'public cannot be both "true" and "false"', 'or=true'],
    [
      'name=a&name=b&name=c',
      'name',
      'name cannot be all of "a", "b" and "c"',
      'name__any=a,b,c, or or=true',
    ],
    ['name=a,b&name=c', 'name', 'name cannot be both "a,b" and "c"', 'for either use or=true'],
  ])(
    '%s: different equalities on one field under AND are a 400 naming it',
    async (query, parameter, reason, either) => {
      const error = await failure(namesFor(query));
      expect(error).toBeInstanceOf(InputError);
      expect(error.message).toContain(
        `query parameter ${parameter}: ${reason}, so nothing would match`,
      );
      expect(error.message).toContain(either);
    },
  );

  it('values: a repeated __any is the union, other repeats a term each, there too', async () => {
    await api.createOrUpdateMarkings([
      { name: 'level', detail: { values: [{ name: 'low' }, { name: 'mid' }, { name: 'high' }] } },
    ]);
    const [marking] = await all(api.listMarkings({ name: 'level' }));
    const valueNames = async (query: string) => {
      const page = await client.request<{ Resources?: { name: string }[] }>(
        'GET',
        `/markings/${marking!.id}/values?${query}`,
      );
      return (page.body.Resources ?? []).map((v) => v.name).sort();
    };
    expect(await valueNames('name__any=low&name__any=high')).toEqual(['high', 'low']);
    expect(await valueNames('name__contains=i&name__contains=g')).toEqual(['high']);
    expect(await valueNames('name__ne=low&name__ne=high')).toEqual(['mid']);
    expect(await valueNames('name__startswith=l&name__startswith=m&or=true')).toEqual([
      'low',
      'mid',
    ]);
    expect(await valueNames('name=low&name=high&or=true')).toEqual(['high', 'low']);
    const error = await failure(valueNames('name=low&name=high'));
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toContain('query parameter name: name cannot be both "low" and "high"');
  });

  it.each(['0', '1001', 'ten'])('limit=%s is a 400', async (limit) => {
    expect(await failure(client.request('GET', '/markings', { query: { limit } }))).toBeInstanceOf(
      InputError,
    );
  });
});

describe('more than 1,000 markings', () => {
  it('lists all 2,345 across pages of at most 1,000, in name order', async () => {
    const names = Array.from({ length: 2345 }, (_, i) => `m-${String(i).padStart(5, '0')}`);
    for (let i = 0; i < names.length; i += 1000) {
      await api.createOrUpdateMarkings(
        names.slice(i, i + 1000).map((name) => ({ name })),
        0,
      );
    }
    const first = await api.listMarkingsPage({ limit: 1000, valueLimit: 0 });
    expect(first.totalResults).toBe(2345);
    expect(first.items).toHaveLength(1000);
    const listed = await all(api.listMarkings({ valueLimit: 0 }));
    expect(listed.map((m) => m.name)).toEqual(names);
    const gets = (await mock.journal()).filter((r) => r.method === 'GET');
    expect(gets.slice(-3).map((r) => new URL(r.path, 'http://x').searchParams.get('skip'))).toEqual(
      ['0', '1000', '2000'],
    );
    expect(await all(api.listMarkings({ valueLimit: 0 }, 1200))).toHaveLength(1200);
  });
});

describe('update', () => {
  let marking: Marking;
  beforeEach(async () => {
    marking = await api.createMarking(classification);
  });

  it('is partial for the scalar fields and bumps the version once', async () => {
    const updated = await api.updateMarking(marking.id, { name: 'level', public: true });
    expect(updated).toMatchObject({
      name: 'level',
      public: true,
      adminOnly: false,
      defaultValue: 'internal',
      _version: 2,
      detail: { description: 'Data classification level', valueCount: 3 },
    });
    expect((await api.resolveMarking('level')).id).toBe(marking.id);
    expect(await failure(api.resolveMarking('classification'))).toBeInstanceOf(NotFoundError);
  });

  it('an update that changes nothing keeps the version', async () => {
    const same = await api.updateMarking(marking.id, {
      public: false,
      detail: { description: 'Data classification level' },
    });
    expect(same._version).toBe(1);
  });

  it('detail.values is the complete set: matched by id or name, others deleted, new ones created', async () => {
    const ids = new Map(marking.detail.values!.map((v) => [v.name, v.id]));
    const updated = await api.updateMarking(marking.id, {
      detail: {
        values: [
          { name: 'internal' },
          { id: ids.get('restricted')!, name: 'secret', description: 'renamed' },
          { name: 'top secret' },
        ],
      },
    });
    const values = updated.detail.values!;
    expect(values.map((v) => v.name)).toEqual(['internal', 'secret', 'top secret']);
    expect(values[0]!.id).toBe(ids.get('internal'));
    expect(values[1]).toMatchObject({
      id: ids.get('restricted'),
      description: 'renamed',
      _version: 2,
    });
    expect([...ids.values()]).not.toContain(values[2]!.id);
    expect(updated._version).toBe(2);
  });

  it('two value entries matching one existing value (by name and by id): 400 naming both, nothing changed', async () => {
    const m = await api.createMarking({ name: 'tier', detail: { values: [{ name: 'gold' }] } });
    const gold = m.detail.values![0]!;
    const error = await api
      .updateMarking(m.id, {
        detail: { values: [{ name: 'gold' }, { id: gold.id, name: 'platinum' }] },
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400 });
    expect((error as { details: { path: string }[] }).details[0]!.path).toBe('detail.values[1]');
    const after = await api.getMarking(m.id);
    expect(after.detail.values!.map((v) => v.name)).toEqual(['gold']);
    expect(after._version).toBe(m._version);
  });

  it('swapping two value names by id keeps both values', async () => {
    const ids = new Map(marking.detail.values!.map((v) => [v.name, v.id]));
    const updated = await api.updateMarking(marking.id, {
      detail: {
        values: [
          { id: ids.get('internal')!, name: 'public' },
          { id: ids.get('public')!, name: 'internal' },
          { id: ids.get('restricted')!, name: 'restricted' },
        ],
      },
    });
    expect(updated.detail.values!.map((v) => [v.name, v.id])).toEqual([
      ['internal', ids.get('public')],
      ['public', ids.get('internal')],
      ['restricted', ids.get('restricted')],
    ]);
    expect((await api.resolveValue(marking.id, 'public')).id).toBe(ids.get('internal'));
  });

  it.each([
    [{ defaultValue: 'nope' }, 'defaultValue'],
    [{ detail: { values: [{ name: 'public' }] } }, 'defaultValue'],
    [
      { detail: { values: [{ id: '000000000000000000000000', name: 'x' }] } },
      'detail.values[0].id',
    ],
    [{ name: ' padded' }, 'name'],
    [{ public: 'yes' }, 'public'],
  ])('%j is refused (400 at %s) and changes nothing', async (update, path) => {
    const error = await failure(api.updateMarking(marking.id, update as never));
    expect(error).toBeInstanceOf(InputError);
    expect(error.details.map((d) => d.path)).toContain(path);
    expect(await api.getMarking(marking.id)).toEqual(marking);
  });

  it('the default value can be cleared, and moved to a value added in the same update', async () => {
    expect((await api.updateMarking(marking.id, { defaultValue: null })).defaultValue).toBeNull();
    const moved = await api.updateMarking(marking.id, {
      defaultValue: 'new',
      detail: { values: [{ name: 'new' }] },
    });
    expect(moved).toMatchObject({ defaultValue: 'new', detail: { valueCount: 1 } });
  });

  it('renaming onto another marking is a conflict', async () => {
    await api.createMarking({ name: 'other' });
    expect(await failure(api.updateMarking(marking.id, { name: 'other' }))).toBeInstanceOf(
      ConflictError,
    );
  });

  it('If-Match with the current version succeeds; a stale one is 412 and changes nothing', async () => {
    const v2 = await api.updateMarking(marking.id, { public: true }, 1);
    expect(v2._version).toBe(2);
    const error = await failure(api.updateMarking(marking.id, { adminOnly: true }, 1));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.status).toBe(412);
    expect(error.message).toContain('is at version 2, not 1');
    expect((await api.getMarking(marking.id)).adminOnly).toBe(false);
  });

  it('value operations bump the marking version, so an If-Match read before them is stale', async () => {
    await api.createValue(marking.id, { name: 'extra' });
    const fresh = await api.getMarking(marking.id);
    expect(fresh._version).toBe(2);
    const error = await failure(api.deleteMarking(marking.id, 1));
    expect(error.status).toBe(412);
    await api.deleteMarking(marking.id, 2);
    expect(await failure(api.getMarking(marking.id))).toBeInstanceOf(NotFoundError);
  });
});

describe('values', () => {
  let marking: Marking;
  beforeEach(async () => {
    marking = await api.createMarking(classification);
  });

  it('list, filter, get, page', async () => {
    expect((await all(api.listValues(marking.id))).map((v) => v.name)).toEqual([
      'internal',
      'public',
      'restricted',
    ]);
    expect(
      (await all(api.listValues(marking.id, { name__contains: 'i' }))).map((v) => v.name),
    ).toEqual(['internal', 'public', 'restricted']);
    expect(
      (await all(api.listValues(marking.id, { name__contains: 'ic' }))).map((v) => v.name),
    ).toEqual(['public', 'restricted']);
    expect((await all(api.listValues(marking.id, { name: 'public' }))).map((v) => v.name)).toEqual([
      'public',
    ]);
    expect((await all(api.listValues(marking.id, { limit: 1 }))).map((v) => v.name)).toHaveLength(
      3,
    );
    const page = await api.listValuesPage(marking.id, { skip: 2, limit: 5 });
    expect(page).toMatchObject({ totalResults: 3, skip: 2, limit: 5 });
    const internal = await api.resolveValue(marking.id, 'internal');
    expect(await api.getValue(marking.id, internal.id)).toEqual(internal);
    expect(await api.resolveValue(marking.id, internal.id)).toEqual(internal);
  });

  it('create, update and delete one value; each bumps the marking version', async () => {
    const added = await api.createValue(marking.id, { name: 'secret', description: 'Few' });
    expect(added).toMatchObject({
      name: 'secret',
      description: 'Few',
      markingId: marking.id,
      _version: 1,
    });
    const renamed = await api.updateValue(marking.id, added.id, { name: 'top secret' });
    expect(renamed).toMatchObject({
      id: added.id,
      name: 'top secret',
      description: 'Few',
      _version: 2,
    });
    await api.deleteValue(marking.id, added.id);
    expect(await failure(api.getValue(marking.id, added.id))).toBeInstanceOf(NotFoundError);
    expect((await api.getMarking(marking.id))._version).toBe(4);
  });

  it('renaming the default value moves the default with it', async () => {
    const internal = await api.resolveValue(marking.id, 'internal');
    await api.updateValue(marking.id, internal.id, { name: 'staff' });
    expect((await api.getMarking(marking.id)).defaultValue).toBe('staff');
  });

  it.each([
    ['a duplicate name', () => api.createValue(marking.id, { name: 'public' }), ConflictError],
    ['an invalid name', () => api.createValue(marking.id, { name: '' }), InputError],
    [
      'renaming onto another value',
      async () => {
        const v = await api.resolveValue(marking.id, 'public');
        return api.updateValue(marking.id, v.id, { name: 'internal' });
      },
      ConflictError,
    ],
    [
      'deleting the default value',
      async () => {
        const v = await api.resolveValue(marking.id, 'internal');
        return api.deleteValue(marking.id, v.id);
      },
      ConflictError,
    ],
    ['an unknown value', () => api.getValue(marking.id, '000000000000000000000000'), NotFoundError],
    [
      'a value of an unknown marking',
      () => api.listValuesPage('000000000000000000000000', {}),
      NotFoundError,
    ],
  ])('%s is refused', async (_what, attempt, type) => {
    expect(await failure(attempt())).toBeInstanceOf(type);
    expect((await api.getMarking(marking.id))._version).toBe(1);
  });

  it('50 values added in parallel to one marking are all kept', async () => {
    const names = Array.from({ length: 50 }, (_, i) => `parallel-${String(i).padStart(2, '0')}`);
    await Promise.all(names.map((name) => api.createValue(marking.id, { name })));
    const after = await api.getMarking(marking.id);
    expect(after.detail.valueCount).toBe(53);
    expect(after._version).toBe(51);
    expect(
      after.detail.values!.map((v) => v.name).filter((n) => n.startsWith('parallel-')),
    ).toEqual(names);
  });
});

describe('Create or Update Multiple', () => {
  let existing: Marking;
  beforeEach(async () => {
    existing = await api.createMarking(classification);
  });
  const withTaken = async () => {
    await api.createMarking({ name: 'taken' });
  };

  it('creates and updates in one request, answering in request order', async () => {
    const result = await api.createOrUpdateMarkings([
      { name: 'zeta', detail: { values: [{ name: 'z1' }] } },
      { id: existing.id, public: true },
      { name: 'alpha' },
    ]);
    expect(result.map((m) => [m.name, m._version])).toEqual([
      ['zeta', 1],
      ['classification', 2],
      ['alpha', 1],
    ]);
    expect(result[1]!.public).toBe(true);
    expect((await everything()).map((m) => m.name)).toEqual(['alpha', 'classification', 'zeta']);
  });

  it('valueLimit applies to the answer', async () => {
    const [created] = await api.createOrUpdateMarkings(
      [{ name: 'many', detail: { values: [{ name: 'a' }, { name: 'b' }] } }],
      0,
    );
    expect('values' in created!.detail).toBe(false);
    expect(created!.detail.valueCount).toBe(2);
  });

  it.each<[string, () => BulkMarkingItem[], number, string]>([
    ['an invalid item', () => [{ name: 'fine' }, { name: '' }], 400, '[1].name'],
    [
      'a bad default value',
      () => [{ name: 'fine' }, { name: 'x', defaultValue: 'no' }],
      400,
      '[1].defaultValue',
    ],
    [
      'an unknown id',
      () => [{ name: 'fine' }, { id: '000000000000000000000000', public: true }],
      404,
      '[1].id',
    ],
    [
      'a duplicate name in the request',
      () => [{ name: 'twin' }, { name: 'other' }, { name: 'twin' }],
      409,
      '[2].name',
    ],
    ['a name of an existing marking', () => [{ name: 'fine' }, { name: 'taken' }], 409, '[1].name'],
    [
      'a rename onto an existing marking',
      () => [{ name: 'fine' }, { id: existing.id, name: 'taken' }],
      409,
      '[1].name',
    ],
  ])(
    '%s fails as a whole (%i naming the item) and changes nothing',
    async (_what, items, status, path) => {
      await withTaken();
      const before = await everything();
      const error = await failure(api.createOrUpdateMarkings(items()));
      expect(error.status).toBe(status);
      expect(error.details.map((d) => d.path)).toContain(path);
      expect(await everything()).toEqual(before);
    },
  );

  it('more than 1,000 items is 413 and changes nothing', async () => {
    const items = Array.from({ length: 1001 }, (_, i) => ({ name: `n${i}` }));
    const error = await failure(api.createOrUpdateMarkings(items));
    expect(error).toBeInstanceOf(InputError);
    expect(error.status).toBe(413);
    expect(await everything()).toHaveLength(1);
    expect(await api.createOrUpdateMarkings(items.slice(0, 1000), 0)).toHaveLength(1000);
  });
});

describe('Create or Update Multiple: renames within one request', () => {
  it('swapping two marking names keeps both findable by name, and names unique', async () => {
    const a = await api.createMarking({ name: 'a' });
    const b = await api.createMarking({ name: 'b' });
    await api.createOrUpdateMarkings([
      { id: a.id, name: 'b' },
      { id: b.id, name: 'a' },
    ]);
    expect((await api.resolveMarking('b')).id).toBe(a.id);
    expect((await api.resolveMarking('a')).id).toBe(b.id);
    await expect(api.createMarking({ name: 'b' })).rejects.toBeInstanceOf(ConflictError);
    expect(await names()).toEqual(['a', 'b']);
  });

  it('a new marking created before the item that frees its name stays findable', async () => {
    const old = await api.createMarking({ name: 'classification' });
    await api.createOrUpdateMarkings([
      { name: 'classification', public: true },
      { id: old.id, name: 'old-classification' },
    ]);
    expect((await api.resolveMarking('classification')).public).toBe(true);
    expect((await api.resolveMarking('old-classification')).id).toBe(old.id);
    await expect(api.createMarking({ name: 'classification' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(await names()).toEqual(['classification', 'old-classification']);
  });

  it('a new item clashing with a rename names the item whose new name it takes, not "exists already"', async () => {
    const old = await api.createMarking({ name: 'old' });
    const error = await api
      .createOrUpdateMarkings([{ id: old.id, name: 'taken' }, { name: 'taken' }])
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 409 });
    expect((error as { details: { message: string }[] }).details[0]!.message).toBe(
      '"taken" is also the new name of item 0',
    );
    expect(await names()).toEqual(['old']);
  });
});

describe('wire rules', () => {
  it('a body that is not application/json is 415; invalid JSON is 400', async () => {
    const e415 = await failure(
      client.request('POST', '/markings', {
        body: '{"name":"x"}',
        headers: { 'content-type': 'text/plain' },
      }),
    );
    expect(e415).toBeInstanceOf(InputError);
    expect(e415.status).toBe(415);
    const e400 = await failure(client.request('POST', '/markings', { body: '{"name":' }));
    expect(e400.status).toBe(400);
    expect(await everything()).toEqual([]);
  });

  it('a member at the wrong level is a 400 naming it, not dropped (description and values beside name)', async () => {
    const error = await failure(
      client.request('POST', '/markings', {
        body: { name: 'flat', description: 'lost', values: [{ name: 'v' }] },
      }),
    );
    expect(error).toBeInstanceOf(InputError);
    expect(error.status).toBe(400);
    expect(error.details).toEqual([
      {
        path: 'description',
        message: "unknown member: a marking's description goes in detail.description",
      },
      { path: 'values', message: "unknown member: a marking's values go in detail.values" },
    ]);
    expect(await everything()).toEqual([]);
  });

  it('Create or Update Multiple names the item and the member; nothing is created', async () => {
    const error = await failure(
      client.request('POST', '/markings', {
        body: [
          { name: 'fine' },
          {
            name: 'odd',
            detail: { public: true, values: [{ name: 'v', desc: 'x' }], 'two words': 1 },
          },
        ],
      }),
    );
    expect(error.status).toBe(400);
    expect(error.details.map((d) => `${d.path}: ${d.message}`)).toEqual([
      '[1].detail.public: unknown member: public is a member of the marking, not of detail',
      '[1].detail."two words": unknown member: detail takes description and values',
      '[1].detail.values[0].desc: unknown member: a value takes name and description',
    ]);
    expect(await everything()).toEqual([]);
  });

  it('a marking as read can be sent back: the members the service manages are accepted', async () => {
    const read = await api.createMarking(classification);
    const renamed = { ...read, name: 'classification-2' };
    const [updated] = await api.createOrUpdateMarkings([renamed as BulkMarkingItem]);
    expect(updated!.name).toBe('classification-2');
    expect(updated!.detail.values!.map((v) => v.name)).toEqual(
      read.detail.values!.map((v) => v.name),
    );
    const { body: again } = await client.request<Marking>('PUT', `/markings/${read.id}`, {
      body: { ...updated, public: true },
    });
    expect(again.public).toBe(true);
  });

  it('a value body with a member it does not know is a 400 naming it', async () => {
    const read = await api.createMarking(classification);
    const error = await failure(
      client.request('POST', `/markings/${read.id}/values`, {
        body: { name: 'secret', detail: { description: 'x' } },
      }),
    );
    expect(error.status).toBe(400);
    expect(error.details).toEqual([
      { path: '$.detail', message: 'unknown member: a value takes name and description' },
    ]);
    expect((await api.getMarking(read.id)).detail.valueCount).toBe(read.detail.valueCount);
  });

  it('an id the service would drop is a 400; the id as read may be sent back', async () => {
    const read = await api.createMarking(classification);
    const [secret, other] = read.detail.values!;
    const problems = async (method: string, path: string, body: unknown) => {
      const error = await failure(client.request(method, path, { body }));
      expect(error.status).toBe(400);
      return error.details.map((d) => `${d.path}: ${d.message}`);
    };
    // A copy of a marking as read, posted to create: it names the marking it came from.
    expect(
      await problems('POST', '/markings', {
        id: read.id,
        name: 'copy',
        detail: { values: [{ id: secret!.id, name: 'secret' }] },
      }),
    ).toEqual([
      `id: the service assigns ids: leave it out, or PUT /markings/${read.id}`,
      `detail.values[0].id: no value with id ${secret!.id} in this marking`,
    ]);
    const elsewhere = '0123456789abcdef01234567';
    expect(await problems('PUT', `/markings/${read.id}`, { id: elsewhere, public: true })).toEqual([
      `id: is ${elsewhere}, but this updates ${read.id}: an id never changes`,
    ]);
    expect(
      await problems('POST', `/markings/${read.id}/values`, { id: secret!.id, name: 'new' }),
    ).toEqual([
      `$.id: the service assigns ids: leave it out, or PUT /markings/${read.id}/values/${secret!.id}`,
    ]);
    const values = `/markings/${read.id}/values`;
    expect(await problems('PUT', `${values}/${secret!.id}`, { id: other!.id, name: 'x' })).toEqual([
      `$.id: is ${other!.id}, but this updates ${secret!.id}: an id never changes`,
    ]);
    // Nothing changed, nothing was made.
    expect(await everything()).toHaveLength(1);
    expect(await api.getMarking(read.id)).toEqual(read);
    // The id of what the body is about is fine.
    const { body: same } = await client.request<Marking>('PUT', `/markings/${read.id}`, {
      body: { id: read.id, public: true },
    });
    expect(same.public).toBe(true);
    const { body: value } = await client.request<{ name: string }>(
      'PUT',
      `${values}/${secret!.id}`,
      { body: { id: secret!.id, name: 'renamed' } },
    );
    expect(value.name).toBe('renamed');
  });

  it('an id of thousands of characters is told back by its start', async () => {
    const long = 'f'.repeat(8_000);
    const told = async (method: string, path: string, body: unknown) => {
      const error = await failure(client.request(method, path, { body }));
      expect(error.message.length).toBeLessThan(300);
      return error.message;
    };
    const shown = `${'f'.repeat(63)}…`;
    expect(await told('POST', '/markings', [{ id: long, name: 'x' }])).toContain(
      `no marking with id ${shown}`,
    );
    expect(await told('POST', '/markings', { id: long, name: 'x' })).toContain(
      `id: the service assigns ids: leave it out, or PUT /markings/${shown}`,
    );
    const read = await api.createMarking(classification);
    expect(
      await told('PUT', `/markings/${read.id}`, { detail: { values: [{ id: long, name: 'x' }] } }),
    ).toContain(`no value with id ${shown} in this marking`);
  });

  it('a body with thousands of unknown members lists ten of them and counts the rest', async () => {
    const body: Record<string, unknown> = { name: 'many' };
    for (let i = 0; i < 5000; i++) body[`m${i}`] = i;
    const error = await failure(client.request('POST', '/markings', { body }));
    expect(error.status).toBe(400);
    expect(error.details).toHaveLength(11);
    expect(error.details.at(-1)).toEqual({ path: '*', message: 'and 4990 more unknown members' });
  });

  it('a 400 lists at most 1,000 problems, and counts the rest', async () => {
    const values = Array.from({ length: 1500 }, () => ({ name: ' padded ' }));
    const error = await failure(
      client.request('POST', '/markings', { body: { name: 'bad', detail: { values } } }),
    );
    expect(error.status).toBe(400);
    expect(error.details).toHaveLength(1001);
    expect(error.details.at(-1)).toEqual({ path: '$', message: 'and 500 more problems' });
  });

  it('deleting an unknown marking is 404 with the conversation id of the request', async () => {
    const error = await failure(api.deleteMarking('000000000000000000000000'));
    expect(error).toBeInstanceOf(NotFoundError);
    const [request] = await mock.journal();
    expect(error.conversationId).toBe(request!.cid);
  });
});

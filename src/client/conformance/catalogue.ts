/**
 * The catalogue of `ksctl conformance`: one list, one entry per scenario. A scenario prepares what
 * it needs on a side (created through the API) and gives one request; the runner sends it to the
 * service and to the embedded mock and compares the answers (compare.ts). Read-only scenarios send
 * GETs only, on the markings the service holds; `writes` ones run with --write, on markings named
 * with the run's prefix. To add a scenario, add an entry here (docs/architecture.md).
 */
import {
  type HeldMarking,
  heldMarking,
  heldNames,
  middleOf,
  type Scenario,
  type ScenarioContext,
} from './scenario.js';
import { NotPrepared, type SentRequest } from './side.js';

/** An id that no service assigns (24 hex digits, as ids are). */
const UNKNOWN_ID = 'ffffffffffffffffffffffff';

const withValues = (m: HeldMarking) => m.values.length >= 2;

/** The value operations' marking, created afresh on each side by a write scenario. */
const COLOURS = {
  defaultValue: 'green',
  detail: {
    description: 'colours of the run',
    values: [{ name: 'green', description: 'go' }, { name: 'red' }],
  },
};

/** A listing of markings with the query `query` gives: what most read scenarios are. */
function listing(
  name: string,
  query: (c: ScenarioContext) => SentRequest['query'] = () => undefined,
): Scenario {
  return { name, run: async (c) => ({ method: 'GET', path: '/markings', query: query(c) }) };
}

export const CATALOGUE: readonly Scenario[] = [
  // ---- Listing ----
  listing('list markings'),
  listing('list markings, a page (skip, limit)', () => ({ skip: '1', limit: '2' })),
  listing('list markings, a SCIM page (startIndex, count)', () => ({
    startIndex: '2',
    count: '2',
  })),
  listing('list markings, the largest page (limit 1000, valueLimit 0)', () => ({
    limit: '1000',
    valueLimit: '0',
  })),
  listing('list markings, a page too large (400)', () => ({ limit: '1001' })),
  listing('list markings, valueLimit=1', () => ({ valueLimit: '1' })),
  listing('list markings, an invalid valueLimit (400)', () => ({ valueLimit: '-1' })),
  // ---- Filters ----
  listing('filter: equality (name=)', (c) => ({ name: heldMarking(c, 'marking').name })),
  listing('filter: contains', (c) => ({
    name__contains: middleOf(heldMarking(c, 'marking').name),
    valueLimit: '0',
  })),
  listing('filter: startswith', (c) => ({
    name__startswith: heldMarking(c, 'marking').name.slice(0, 2),
    valueLimit: '0',
  })),
  {
    name: 'filter: gte and lte',
    run: async (c) => {
      const names = heldNames(c);
      return {
        method: 'GET',
        path: '/markings',
        query: { name__gte: names[0]!, name__lte: names[names.length - 2]!, valueLimit: '0' },
      };
    },
  },
  listing('filter: ne', (c) => ({ name__ne: heldMarking(c, 'marking').name, valueLimit: '0' })),
  listing('filter: empty', () => ({ description__empty: 'true', valueLimit: '0' })),
  listing('filter: any', (c) => ({
    name__any: c.held
      .slice(0, 3)
      .map((m) => m.name)
      .concat('ksctl-conformance-none')
      .join(','),
    valueLimit: '0',
  })),
  {
    name: 'filter: all',
    run: async (c) => {
      const { name } = heldMarking(
        c,
        'marking without a comma in its name',
        (m) => !/,/.test(m.name),
      );
      return { method: 'GET', path: '/markings', query: { name__all: name, valueLimit: '0' } };
    },
  },
  listing('filter: a negated operator (__contains__ne)', (c) => ({
    name__contains__ne: middleOf(heldMarking(c, 'marking').name),
    valueLimit: '0',
  })),
  {
    name: 'filter: or=true',
    run: async (c) => {
      const names = heldNames(c);
      return {
        method: 'GET',
        path: '/markings',
        query: { name: [names[0]!, names[names.length - 1]!], or: 'true', valueLimit: '0' },
      };
    },
  },
  {
    name: 'filter: a repeated term (name__contains twice)',
    run: async (c) => {
      const { name } = heldMarking(c, 'marking');
      return {
        method: 'GET',
        path: '/markings',
        query: { name__contains: [name.slice(0, 1), name.slice(-1)], valueLimit: '0' },
      };
    },
  },
  listing('filter: booleans (public=false, adminOnly__ne=true)', () => ({
    public: 'false',
    adminOnly__ne: 'true',
    valueLimit: '0',
  })),
  listing('filter: an unknown parameter (400)', () => ({ colour: 'blue' })),
  listing('filter: an unknown operator (400)', () => ({ name__near: 'x' })),
  listing('filter: two equalities on one field (400)', () => ({ name: ['a', 'b'] })),
  // ---- One marking ----
  {
    name: 'get a marking by id',
    run: async (c) => ({
      method: 'GET',
      path: `/markings/${await c.side.markingId(heldMarking(c, 'marking').name)}`,
    }),
  },
  {
    name: 'get a marking by id, valueLimit=0',
    run: async (c) => ({
      method: 'GET',
      path: `/markings/${await c.side.markingId(heldMarking(c, 'marking with values', withValues).name)}`,
      query: { valueLimit: '0' },
    }),
  },
  listing('get a marking by name', (c) => ({
    name: heldMarking(c, 'marking with values', withValues).name,
    limit: '1',
  })),
  {
    name: 'get a marking, unknown id (404)',
    run: async () => ({ method: 'GET', path: `/markings/${UNKNOWN_ID}` }),
  },
  // ---- Values ----
  {
    name: 'list values',
    run: async (c) => ({
      method: 'GET',
      path: `/markings/${await c.side.markingId(heldMarking(c, 'marking with values', withValues).name)}/values`,
    }),
  },
  {
    name: 'list values, a page and a filter',
    run: async (c) => {
      const m = heldMarking(c, 'marking with values', withValues);
      return {
        method: 'GET',
        path: `/markings/${await c.side.markingId(m.name)}/values`,
        query: { skip: '1', limit: '1', name__ne: m.values[0]! },
      };
    },
  },
  {
    name: 'get a value by id',
    run: async (c) => {
      const m = heldMarking(c, 'marking with values', withValues);
      const id = await c.side.markingId(m.name);
      return {
        method: 'GET',
        path: `/markings/${id}/values/${await c.side.valueId(m.name, m.values[1]!)}`,
      };
    },
  },
  {
    name: 'get a value, unknown id (404)',
    run: async (c) => ({
      method: 'GET',
      path: `/markings/${await c.side.markingId(heldMarking(c, 'marking').name)}/values/${UNKNOWN_ID}`,
    }),
  },
  // ---- Credentials ----
  {
    name: 'a wrong token (401)',
    run: async () => ({
      method: 'GET',
      path: '/markings',
      query: { limit: '1' },
      wrongToken: true,
    }),
  },
  // ---- What needs no device ----
  {
    name: 'the keyspace public key',
    run: async (c) => {
      const { keyspace, enrollmentUrl } = c.side.endpoints;
      if (keyspace === undefined || enrollmentUrl === undefined) {
        throw new NotPrepared(
          'no keyspace and enrollment URL are set (KSCTL_KEYSPACE, KSCTL_ENROLLMENT_URL or the context)',
        );
      }
      return {
        method: 'GET',
        path: `${enrollmentUrl.replace(/\/+$/, '')}/keyspace/${encodeURIComponent(keyspace)}/pubkey`,
      };
    },
  },
  {
    name: 'the key naming lookup',
    run: async (c) => {
      const { keyspace, knsUrl } = c.side.endpoints;
      if (keyspace === undefined || knsUrl === undefined) {
        throw new NotPrepared(
          'no keyspace and API or key naming URL are set (KSCTL_KEYSPACE, KSCTL_API_URL, KSCTL_KNS_URL or the context)',
        );
      }
      return {
        method: 'GET',
        path: `${knsUrl.replace(/\/+$/, '')}/v2.4/kns/keyspaces/${encodeURIComponent(keyspace)}`,
      };
    },
  },
  // ---- Writes (--write), on markings of the run's own ----
  {
    name: 'create a marking with values and a default value',
    writes: true,
    run: async (c) => ({
      method: 'POST',
      path: '/markings',
      body: { name: c.name('created'), public: true, ...COLOURS },
    }),
  },
  {
    name: 'create a marking, defaults left out',
    writes: true,
    run: async (c) => ({ method: 'POST', path: '/markings', body: { name: c.name('bare') } }),
  },
  {
    name: 'create a marking, a taken name (409)',
    writes: true,
    run: async (c) => {
      await c.side.create({ name: c.name('taken') });
      return { method: 'POST', path: '/markings', body: { name: c.name('taken') } };
    },
  },
  {
    name: 'create a marking, an invalid name (400)',
    writes: true,
    run: async (c) => ({
      method: 'POST',
      path: '/markings',
      body: { name: ` ${c.name('spaced')}` },
    }),
  },
  {
    name: 'create a marking, a default value that is not a value (400)',
    writes: true,
    run: async (c) => ({
      method: 'POST',
      path: '/markings',
      body: {
        name: c.name('nodefault'),
        defaultValue: 'blue',
        detail: { values: [{ name: 'red' }] },
      },
    }),
  },
  {
    name: 'create a marking, a body that is not JSON (415)',
    writes: true,
    run: async (c) => ({
      method: 'POST',
      path: '/markings',
      headers: { 'content-type': 'text/plain' },
      body: `name=${c.name('text')}`,
    }),
  },
  {
    name: 'update a marking, its description alone',
    writes: true,
    run: async (c) => {
      const { id } = await c.side.create({ name: c.name('partial'), ...COLOURS });
      return {
        method: 'PUT',
        path: `/markings/${id}`,
        body: { detail: { description: 'changed' } },
      };
    },
  },
  {
    name: 'update a marking, the complete set of values',
    writes: true,
    run: async (c) => {
      const { id } = await c.side.create({ name: c.name('wholeset'), ...COLOURS });
      return {
        method: 'PUT',
        path: `/markings/${id}`,
        body: {
          defaultValue: null,
          detail: { values: [{ name: 'red', description: 'stop' }, { name: 'amber' }] },
        },
      };
    },
  },
  {
    name: 'update a marking with a current If-Match',
    writes: true,
    run: async (c) => {
      const { id, etag } = await c.side.create({ name: c.name('current'), ...COLOURS });
      if (etag === undefined)
        throw new NotPrepared(`the ${c.side.name} created a marking without an ETag`);
      return {
        method: 'PUT',
        path: `/markings/${id}`,
        headers: { 'if-match': etag },
        body: { adminOnly: true },
      };
    },
  },
  {
    name: 'update a marking with a stale If-Match (412)',
    writes: true,
    run: async (c) => {
      const { id } = await c.side.create({ name: c.name('stale'), ...COLOURS });
      await c.side.prepare(
        { method: 'PUT', path: `/markings/${id}`, body: { public: true } },
        'update it',
      );
      return {
        method: 'PUT',
        path: `/markings/${id}`,
        headers: { 'if-match': '"1"' },
        body: { public: false },
      };
    },
  },
  {
    name: 'add a value',
    writes: true,
    run: async (c) => {
      const { id } = await c.side.create({ name: c.name('addvalue'), ...COLOURS });
      return {
        method: 'POST',
        path: `/markings/${id}/values`,
        body: { name: 'amber', description: 'wait' },
      };
    },
  },
  {
    name: 'add a value, a taken name (409)',
    writes: true,
    run: async (c) => {
      const { id } = await c.side.create({ name: c.name('takenvalue'), ...COLOURS });
      return { method: 'POST', path: `/markings/${id}/values`, body: { name: 'red' } };
    },
  },
  {
    name: 'update a value',
    writes: true,
    run: async (c) => {
      const name = c.name('updatevalue');
      const { id } = await c.side.create({ name, ...COLOURS });
      const valueId = await c.side.valueId(name, 'red');
      return {
        method: 'PUT',
        path: `/markings/${id}/values/${valueId}`,
        body: { name: 'crimson', description: 'darker' },
      };
    },
  },
  {
    name: 'delete a value',
    writes: true,
    run: async (c) => {
      const name = c.name('deletevalue');
      const { id } = await c.side.create({ name, ...COLOURS });
      return {
        method: 'DELETE',
        path: `/markings/${id}/values/${await c.side.valueId(name, 'red')}`,
      };
    },
  },
  {
    name: 'a marking after value operations (valueCount, order, version)',
    writes: true,
    run: async (c) => {
      const name = c.name('aftervalues');
      const { id } = await c.side.create({ name, ...COLOURS });
      const values = `/markings/${id}/values`;
      await c.side.prepare({ method: 'POST', path: values, body: { name: 'blue' } }, 'add a value');
      await c.side.prepare(
        { method: 'DELETE', path: `${values}/${await c.side.valueId(name, 'red')}` },
        'delete a value',
      );
      return { method: 'GET', path: `/markings/${id}` };
    },
  },
  {
    name: 'bulk create or update',
    writes: true,
    run: async (c) => {
      const { id } = await c.side.create({ name: c.name('bulkold'), ...COLOURS });
      return {
        method: 'POST',
        path: '/markings',
        body: [
          { name: c.name('bulknew'), detail: { values: [{ name: 'one' }, { name: 'two' }] } },
          { id, defaultValue: 'red', detail: { description: 'updated in bulk' } },
        ],
      };
    },
  },
  {
    name: 'bulk create or update, a duplicate name (409)',
    writes: true,
    run: async (c) => ({
      method: 'POST',
      path: '/markings',
      body: [{ name: c.name('bulktwice') }, { name: c.name('bulktwice') }],
    }),
  },
  {
    name: 'bulk create or update, an unknown id (404)',
    writes: true,
    run: async (c) => ({
      method: 'POST',
      path: '/markings',
      body: [{ name: c.name('bulkunknown') }, { id: UNKNOWN_ID, detail: { description: 'x' } }],
    }),
  },
  {
    name: 'delete a marking with a stale If-Match (412)',
    writes: true,
    run: async (c) => {
      const { id } = await c.side.create({ name: c.name('stalegone'), ...COLOURS });
      await c.side.prepare(
        { method: 'PUT', path: `/markings/${id}`, body: { public: true } },
        'update it',
      );
      return { method: 'DELETE', path: `/markings/${id}`, headers: { 'if-match': '"1"' } };
    },
  },
  {
    name: 'delete a marking',
    writes: true,
    run: async (c) => {
      const { id } = await c.side.create({ name: c.name('gone'), ...COLOURS });
      return { method: 'DELETE', path: `/markings/${id}` };
    },
  },
  {
    name: 'get a deleted marking (404)',
    writes: true,
    run: async (c) => {
      const name = c.name('deleted');
      const { id } = await c.side.create({ name });
      await c.side.prepare({ method: 'DELETE', path: `/markings/${id}` }, 'delete it');
      c.side.forget(name);
      return { method: 'GET', path: `/markings/${id}` };
    },
  },
  {
    name: "a request the token's scopes do not allow (403)",
    writes: true,
    forbidden: true,
    run: async (c) => {
      if (c.scopes === undefined) {
        throw new NotPrepared('the service does not say which scopes the token has');
      }
      if (!c.scopes.includes('markings:delete')) {
        return { method: 'DELETE', path: `/markings/${UNKNOWN_ID}` };
      }
      if (!c.scopes.includes('markings:create')) {
        return { method: 'POST', path: '/markings', body: { name: c.name('forbidden') } };
      }
      if (!c.scopes.includes('markings:update')) {
        return { method: 'PUT', path: `/markings/${UNKNOWN_ID}`, body: { public: true } };
      }
      throw new NotPrepared('the token has every markings scope, so nothing is forbidden to it');
    },
  },
];

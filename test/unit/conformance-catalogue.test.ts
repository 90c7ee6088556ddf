/**
 * The rules every entry of the conformance catalogue keeps, so that a new one cannot break the
 * promises of `ksctl conformance`: read-only scenarios send GETs only; a writing scenario creates
 * only markings named with the run's prefix; names are unique (the report and JUnit key on them).
 */
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/client/conformance/catalogue.js';
import type { HeldMarking, ScenarioContext } from '../../src/client/conformance/scenario.js';
import type { SentRequest, Side } from '../../src/client/conformance/side.js';

const PREFIX = 'ksctl-conformance-0badcafe-';

const HELD: HeldMarking[] = [
  { name: 'alpha', public: false, adminOnly: false, defaultValue: null, values: ['a', 'b'] },
  { name: 'beta', public: true, adminOnly: false, defaultValue: 'x', values: ['x', 'y', 'z'] },
  { name: 'gamma', public: false, adminOnly: true, defaultValue: null, values: [] },
];

/** A side that answers every preparation, and remembers what was sent to it. */
function fakeSide(sent: SentRequest[]): Side {
  const id = (n: number) => n.toString(16).padStart(24, '0');
  let next = 1;
  const side = {
    name: 'mock',
    endpoints: {
      keyspace: 'ABcd',
      enrollmentUrl: 'http://127.0.0.1:1/e',
      knsUrl: 'http://127.0.0.1:1',
    },
    aborted: false,
    markingId: async () => id(next++),
    valueId: async () => id(next++),
    forget: () => undefined,
    create: async (body: Record<string, unknown>) => {
      sent.push({ method: 'POST', path: '/markings', body });
      return { id: id(next++), etag: '"1"' };
    },
    prepare: async (request: SentRequest) => {
      sent.push(request);
      return { body: {}, etag: '"2"' };
    },
  };
  return side as unknown as Side;
}

function context(side: Side, scopes?: string[]): ScenarioContext {
  return { side, held: HELD, scopes, name: (word) => `${PREFIX}${word}` };
}

/** The marking names a request creates or updates by name. */
function namesIn(request: SentRequest): string[] {
  const items = Array.isArray(request.body) ? request.body : [request.body];
  return items
    .filter((i): i is { name: unknown } => typeof i === 'object' && i !== null && 'name' in i)
    .map((i) => String(i.name).trim());
}

describe('the conformance catalogue', () => {
  it('has unique names and at least 20 read-only scenarios', () => {
    const names = CATALOGUE.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    expect(CATALOGUE.filter((s) => s.writes !== true).length).toBeGreaterThanOrEqual(20);
  });

  for (const scenario of CATALOGUE.filter((s) => s.writes !== true)) {
    it(`read-only "${scenario.name}" sends a GET and nothing else`, async () => {
      const sent: SentRequest[] = [];
      const request = await scenario.run(context(fakeSide(sent)));
      expect(request.method).toBe('GET');
      expect(sent).toEqual([]);
    });
  }

  for (const scenario of CATALOGUE.filter((s) => s.writes === true)) {
    it(`writing "${scenario.name}" names only markings of the run`, async () => {
      const sent: SentRequest[] = [];
      const scopes = ['markings:read', 'markings:create', 'markings:update'];
      const request = await scenario.run(context(fakeSide(sent), scopes));
      for (const r of [...sent, request]) {
        if (r.method === 'POST' && r.path === '/markings') {
          for (const name of namesIn(r)) expect(name.startsWith(PREFIX), name).toBe(true);
        }
        // Everything else a writing scenario changes is addressed by an id it was given.
        if (r.method !== 'GET' && r.path !== '/markings') {
          expect(r.path).toMatch(/^\/markings\/[0-9a-f]{24}(\/values(\/[0-9a-f]{24})?)?$/);
        }
      }
    });
  }
});

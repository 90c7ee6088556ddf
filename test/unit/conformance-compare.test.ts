/**
 * The comparison that `ksctl conformance` and `--replay` share (src/client/conformance/compare.ts), on
 * generated answers: an answer never differs from itself; a changed value is reported at its path
 * unless the rules set it aside; a member missing or of another JSON type always is.
 */
import { describe, expect, it } from 'vitest';
import {
  compareAnswers,
  DIFFERENCES_SHOWN,
  IGNORED_MEMBERS,
  LEGEND,
  type ObservedAnswer,
} from '../../src/client/conformance/compare.js';
import { junitXml, summarize, compared, skipped } from '../../src/client/conformance/report.js';
import { prng, type Random } from '../helpers/random.js';

const IGNORED = new Set(IGNORED_MEMBERS.flatMap((r) => r.members));
const NAMES = [
  'name',
  'description',
  'valueCount',
  'public',
  'Resources',
  'detail',
  'id',
  '_version',
  'changedBy',
  'odd key',
  'x',
];

function value(r: Random, depth: number): unknown {
  const kind = depth > 3 ? r.int(4) : r.int(6);
  if (kind === 0) return r.int(1000);
  if (kind === 1) return `s${r.int(1000)}`;
  if (kind === 2) return r.int(2) === 0;
  if (kind === 3) return null;
  if (kind === 4) return Array.from({ length: r.int(4) }, () => value(r, depth + 1));
  return Object.fromEntries(
    Array.from({ length: 1 + r.int(4) }, () => [r.pick(NAMES), value(r, depth + 1)]),
  );
}

const answer = (body: unknown, headers: Record<string, string> = {}): ObservedAnswer => ({
  status: 200,
  headers: { 'content-type': 'application/json', ...headers },
  body,
});

/** Every leaf of a JSON value with its path as compare.ts writes it, and whether a rule ignores it. */
function leaves(
  v: unknown,
  path = '',
  ignored = false,
): { path: string[]; at: string; ignored: boolean }[] {
  if (Array.isArray(v))
    return v.flatMap((x, i) =>
      leaves(x, `${path}[${i}]`, ignored).map((l) => ({ ...l, path: [String(i), ...l.path] })),
    );
  if (typeof v === 'object' && v !== null) {
    return Object.entries(v).flatMap(([k, x]) => {
      const at = /^[A-Za-z_$][\w$]*$/.test(k)
        ? path === ''
          ? k
          : `${path}.${k}`
        : `${path}[${JSON.stringify(k)}]`;
      return leaves(x, at, ignored || IGNORED.has(k)).map((l) => ({ ...l, path: [k, ...l.path] }));
    });
  }
  return [{ path: [], at: path, ignored }];
}

function setAt(root: unknown, path: string[], to: unknown): void {
  let node = root as Record<string, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[path.at(-1)!] = to;
}

describe('compareAnswers on generated answers', () => {
  it('finds nothing between an answer and a copy of it', () => {
    const r = prng(32);
    for (let i = 0; i < 300; i++) {
      const body = value(r, 0);
      expect(compareAnswers(answer(body), answer(structuredClone(body))).differences).toEqual([]);
    }
  });

  it('reports a changed value at its path, unless a rule of the legend sets it aside', () => {
    const r = prng(3201);
    let checked = 0;
    for (let i = 0; i < 400; i++) {
      const body = { root: value(r, 0) };
      const all = leaves(body);
      if (all.length === 0) continue;
      const leaf = r.pick(all);
      const mock = structuredClone(body);
      const original = leaf.path.reduce<unknown>((n, k) => (n as Record<string, unknown>)[k], body);
      // The same JSON type, another value.
      const changed =
        typeof original === 'number'
          ? original + 1
          : typeof original === 'string'
            ? `${original}!`
            : typeof original === 'boolean'
              ? !original
              : null;
      if (changed === null) continue;
      setAt(mock, leaf.path, changed);
      const { differences } = compareAnswers(answer(body), answer(mock));
      expect(differences, leaf.at).toEqual(
        leaf.ignored ? [] : [{ path: leaf.at, target: original, mock: changed }],
      );
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('reports another JSON type or a missing member even where the value is set aside', () => {
    const body = { id: 'a', _version: 3, changedBy: { id: 'x' }, name: 'n' };
    expect(compareAnswers(answer(body), answer({ ...body, _version: '3' })).differences).toEqual([
      { path: '_version', target: 3, mock: '3' },
    ]);
    const { changedBy: _gone, ...missing } = body;
    expect(compareAnswers(answer(body), answer(missing)).differences).toEqual([
      { path: 'changedBy', target: { id: 'x' } },
    ]);
  });

  it('compares arrays in order and by length', () => {
    const a = { Resources: [{ name: 'a' }, { name: 'b' }] };
    expect(
      compareAnswers(
        answer(a),
        answer({ Resources: [{ name: 'b' }, { name: 'a' }] }),
      ).differences.map((d) => d.path),
    ).toEqual(['Resources[0].name', 'Resources[1].name']);
    expect(compareAnswers(answer(a), answer({ Resources: [{ name: 'a' }] })).differences).toEqual([
      { path: 'Resources.length', target: 2, mock: 1 },
    ]);
  });

  it('compares the status, the media type, the form of the ETag and the presence of Location', () => {
    const base = answer({}, { etag: '"4"', location: '/x/1' });
    expect(
      compareAnswers(base, {
        ...base,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          etag: '"9"',
          location: '/y/2',
        },
      }).differences,
    ).toEqual([]);
    expect(
      compareAnswers(base, {
        ...base,
        status: 201,
        headers: { 'content-type': 'text/html', etag: 'W/"4"' },
      }).differences,
    ).toEqual([
      { path: 'status', target: 200, mock: 201 },
      { path: 'header Content-Type', target: 'application/json', mock: 'text/html' },
      { path: 'header ETag', target: '"N"', mock: 'W/"N"' },
      { path: 'header Location', target: '/x/1' },
    ]);
  });

  it('compares error answers by code and detail paths, in either error shape, never by wording', () => {
    const ours = {
      status: 409,
      headers: { 'content-type': 'application/json' },
      body: {
        error: {
          cid: 'a',
          code: 40900,
          message: 'taken',
          details: [{ path: 'name', message: 'x' }],
        },
      },
    };
    const ionic = {
      ...ours,
      body: {
        status: 409,
        code: 40900,
        error: 'Conflict',
        detail: { message: 'other words' },
        source: { cid: 'b' },
      },
    };
    expect(
      compareAnswers(ours, {
        ...ours,
        body: {
          error: {
            cid: 'z',
            code: 40900,
            message: 'other',
            details: [{ path: 'name', message: 'y' }],
          },
        },
      }).differences,
    ).toEqual([]);
    expect(compareAnswers(ours, ionic).differences).toEqual([
      { path: 'error.details.length', target: 1, mock: 0 },
    ]);
    expect(
      compareAnswers(ours, {
        ...ours,
        body: { error: { cid: 'a', code: 40400, message: 'taken' } },
      }).differences[0],
    ).toEqual({
      path: 'error.code',
      target: 40900,
      mock: 40400,
    });
  });

  it('compares a text body by its presence alone, and lists at most DIFFERENCES_SHOWN', () => {
    const key = { status: 200, headers: { 'content-type': 'text/plain' }, body: 'MIIB' };
    expect(compareAnswers(key, { ...key, body: 'MIIC' }).differences).toEqual([]);
    expect(compareAnswers(key, { ...key, body: undefined }).differences).toEqual([
      { path: 'body', target: 'text (4 characters)' },
    ]);
    const many = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`m${i}`, i]));
    const result = compareAnswers(answer(many), answer({}));
    expect(result.differences).toHaveLength(DIFFERENCES_SHOWN);
    expect(result.more).toBe(80 - DIFFERENCES_SHOWN);
  });

  it('names every ignored member in the legend', () => {
    for (const rule of IGNORED_MEMBERS)
      expect(LEGEND.join('\n')).toContain(rule.members.join(', '));
  });
});

describe('junitXml', () => {
  it('writes a test case per scenario, escapes what XML cannot hold', () => {
    const report = summarize(
      [
        compared(
          'list <markings> & "more"',
          'GET /markings',
          { differences: [], more: 0 },
          { target: 200, mock: 200 },
        ),
        compared(
          'filter',
          'GET /markings?a=1&b=2',
          { differences: [{ path: 'x', target: '\u0001<', mock: 2 }], more: 0 },
          { target: 200, mock: 200 },
        ),
        skipped('keys', 'no keyspace'),
      ],
      { target: 'http://127.0.0.1:1/v2/dev', mode: 'read-only' },
    );
    const xml = junitXml(report);
    expect(xml).toContain(
      '<testcase classname="ksctl.conformance" name="list &lt;markings&gt; &amp; &quot;more&quot;"/>',
    );
    expect(xml).toContain(
      '<failure message="x: &quot;\\u0001&lt;&quot; on the target, 2 on the mock" type="differs">GET /markings?a=1&amp;b=2\nx: ',
    );
    expect(xml).toContain('<skipped message="no keyspace"/>');
    expect(xml).toMatch(/tests="3" failures="1" skipped="1"/);
    expect(xml).not.toMatch(/[\u0000-\u0008]/);
  });
});

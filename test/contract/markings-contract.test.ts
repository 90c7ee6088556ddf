/**
 * The markings API of the mock, written down once: a table of request → expected answer (every
 * error the API has, paging, members), and every filter the grammar allows, generated from the
 * data and checked against a reference evaluation written here, independently of the mock's.
 * Any drift of the mock from docs/design.md 1.1/1.2 shows up as a row that fails.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  MARKING_FILTER_FIELDS,
  VALUE_FILTER_FIELDS,
  type FilterFields,
} from '../../src/common/markings/filters.js';
import {
  MarkingsErrorCode,
  SCOPES,
  type Marking,
  type MarkingValue,
} from '../../src/common/markings/wire.js';
import type { TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';

let mock: TestMock;
const OPS_TOKEN = 'contract-ops-token';
const READER_TOKEN = 'contract-reader-token';

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

async function send(
  method: string,
  path: string,
  options: { body?: unknown; token?: string | null; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? mock.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(mock.baseUrl + path, {
    method,
    headers,
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? undefined : JSON.parse(text),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Markings chosen to make every operator decide something: cases, prefixes, code points. */
const SEED: Record<string, unknown>[][] = [
  [
    {
      name: 'alpha',
      public: true,
      defaultValue: 'a1',
      detail: { description: 'first letter', values: [{ name: 'a1' }, { name: 'a2' }] },
    },
    { name: 'Alpha', detail: { description: '' } },
    { name: 'alphabet', adminOnly: true, detail: { description: 'letters, all of them' } },
    { name: '10', detail: { description: 'ten' } },
  ],
  [
    { name: 'beta', public: true, defaultValue: 'b', detail: { values: [{ name: 'b' }] } },
    { name: 'gamma', detail: { description: 'Γ third' } },
    { name: 'region-eu', detail: { description: 'Europe' } },
    { name: '9', public: true, adminOnly: true },
  ],
  [
    { name: 'region-us', detail: { description: 'United States' } },
    { name: 'z\u{1F600}', detail: { description: 'astral' } },
    { name: 'z\uFF21', detail: { description: 'fullwidth' } },
    { name: 'tmp-1', detail: { description: 'temporary' } },
  ],
];

const COLORS = {
  name: 'colors',
  detail: {
    values: [
      { name: 'red', description: 'warm' },
      { name: 'green' },
      { name: 'blue', description: 'cool' },
      { name: 'Blue' },
    ],
  },
};

let markings: Marking[] = [];
let colors: Marking;
let values: MarkingValue[] = [];

async function listAll(path: string): Promise<unknown[]> {
  const answer = await send('GET', `${path}${path.includes('?') ? '&' : '?'}limit=1000`);
  expect(answer.status).toBe(200);
  return (answer.body as { Resources: unknown[] }).Resources;
}

const suite = mockSuite({ resetEachTest: false });
beforeAll(async () => {
  mock = suite.mock;
  const { state } = mock.server;
  state.bearer.set(OPS_TOKEN, { name: 'ops', scopes: new Set(SCOPES), admin: false });
  state.bearer.set(READER_TOKEN, {
    name: 'reader',
    scopes: new Set(['markings:read'] as const),
    admin: false,
  });
  // Batches a few milliseconds apart, so the timestamps differ.
  for (const batch of SEED) {
    expect((await send('POST', '/markings', { body: batch })).status).toBe(200);
    await sleep(5);
  }
  const created = (await send('POST', '/markings', { body: COLORS })).body as Marking;
  await sleep(5);
  const byName = new Map(((await listAll('/markings')) as Marking[]).map((m) => [m.name, m]));
  // Changes by another principal, so the _updated* fields differ from the _created* ones.
  for (const name of ['gamma', '9']) {
    const answer = await send('PUT', `/markings/${byName.get(name)!.id}`, {
      body: { detail: { description: `${name} changed` } },
      token: OPS_TOKEN,
    });
    expect(answer.status).toBe(200);
  }
  const red = created.detail.values!.find((v) => v.name === 'red')!;
  await send('PUT', `/markings/${created.id}/values/${red.id}`, {
    body: { description: 'warmest' },
    token: OPS_TOKEN,
  });
  await send('POST', `/markings/${created.id}/values`, {
    body: { name: 'x\u{1F600}', description: 'astral' },
    token: OPS_TOKEN,
  });
  markings = (await listAll('/markings?valueLimit=0')) as Marking[];
  colors = markings.find((m) => m.name === 'colors')!;
  values = (await listAll(`/markings/${colors.id}/values`)) as MarkingValue[];
});

// ---- the reference evaluation (docs/design.md 1.2), independent of src/common/markings/filters.ts ----

type Scalar = string | number | boolean;

/** UTF-8 byte order is code point order. */
function codePointOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function operandsOf(type: string, text: string, op: string): Scalar[] {
  const typed = (t: string): Scalar =>
    type === 'boolean' ? t === 'true' : type === 'timestamp' ? Number(t) : t;
  if (op === 'empty') return [text === 'true'];
  if (op === 'any' || op === 'all') return text.split(',').map(typed);
  return [typed(text)];
}

function referenceHolds(op: string, value: Scalar | null, operands: Scalar[]): boolean {
  const x = operands[0]!;
  const has = value !== null;
  const order = (a: Scalar, b: Scalar) =>
    typeof a === 'string' ? codePointOrder(a, String(b)) : Number(a) - Number(b);
  switch (op) {
    case 'eq':
      return has && value === x;
    case 'ne':
      return !has || value !== x;
    case 'empty':
      return (!has || value === '') === x;
    case 'contains':
      return has && String(value).includes(String(x));
    case 'startswith':
      return has && String(value).startsWith(String(x));
    case 'gte':
      return has && order(value, x) >= 0;
    case 'lte':
      return has && order(value, x) <= 0;
    case 'any':
      return has && operands.some((o) => o === value);
    case 'all':
      return has && operands.every((o) => o === value);
  }
  throw new Error(`no reference for ${op}`);
}

interface Term {
  parameter: string;
  text: string;
  field: string;
  op: string;
  operands: Scalar[];
  holds: (item: Record<string, unknown>) => boolean;
}

function fieldValue(item: Record<string, unknown>, field: string): Scalar | null {
  const raw =
    field === 'description' && 'detail' in item
      ? (item.detail as { description: string }).description
      : item[field];
  return raw === undefined ? null : (raw as Scalar | null);
}

function term(fields: FilterFields, field: string, op: string, negated: boolean, text: string) {
  const type = fields[field]!;
  const parameter = `${field}${op === 'eq' ? '' : `__${op}`}${negated ? '__ne' : ''}`;
  const operands = operandsOf(type, text, op);
  return {
    parameter,
    text,
    field,
    op,
    operands,
    holds: (item: Record<string, unknown>) =>
      referenceHolds(op, fieldValue(item, field), operands) !== negated,
  };
}

const OPS_BY_TYPE: Record<string, string[]> = {
  string: ['eq', 'contains', 'startswith', 'gte', 'lte', 'ne', 'empty', 'any', 'all'],
  timestamp: ['eq', 'gte', 'lte', 'ne', 'empty', 'any', 'all'],
  boolean: ['eq', 'ne', 'empty', 'any', 'all'],
};

/** Operand texts for a field, taken from the data so that each decides something. */
function operandTexts(type: string, op: string, present: Scalar[]): string[] {
  if (op === 'empty') return ['true', 'false'];
  const distinct = [...new Set(present.map(String))].sort();
  if (type === 'boolean') {
    return op === 'any' || op === 'all' ? ['true,false', 'true,true', 'false'] : ['true', 'false'];
  }
  const middle = distinct[Math.floor(distinct.length / 2)]!;
  const first = distinct[0]!;
  const last = distinct[distinct.length - 1]!;
  if (type === 'timestamp') {
    const beyond = String(Number(last) + 1);
    if (op === 'any') return [`${first},${last}`, beyond];
    if (op === 'all') return [`${middle},${middle}`, `${first},${last}`];
    return [first, middle, last, beyond];
  }
  const nonEmpty = distinct.filter((t) => t !== '');
  const sample = nonEmpty[Math.floor(nonEmpty.length / 3)] ?? 'x';
  if (op === 'any') return [`${first},${last}`, `${sample},absent`, 'absent'];
  if (op === 'all') return [`${middle},${middle}`, `${first},${last}`];
  return [
    first,
    middle,
    last,
    sample.slice(0, 2),
    sample.slice(1, 2),
    '',
    'absent',
    'z\uFFFF',
    'A',
  ];
}

function generatedTerms(fields: FilterFields, items: Record<string, unknown>[]): Term[] {
  const terms: Term[] = [];
  for (const [field, type] of Object.entries(fields)) {
    const present = items.map((i) => fieldValue(i, field)).filter((v): v is Scalar => v !== null);
    for (const op of OPS_BY_TYPE[type]!) {
      for (const negated of op === 'ne' || op === 'empty' ? [false] : [false, true]) {
        for (const text of operandTexts(type, op, present)) {
          terms.push(term(fields, field, op, negated, text));
        }
      }
    }
  }
  return terms;
}

/**
 * The reference of terms that may repeat a parameter: each occurrence is a term of its own, but a
 * repeated `__any` (or `__any__ne`) is one term over the union of the lists (some repeat holds;
 * negated, every one does). Under AND, equalities on one field with different values could match
 * nothing: `refused` names the field, a 400 is expected.
 */
function combined(chosen: Term[], or: boolean): { terms: Term[]; refused?: string } {
  if (!or) {
    const equalities = new Map<string, Set<Scalar>>();
    // An equality is FIELD=V; FIELD__ne is its negation, no equality.
    for (const t of chosen.filter((t) => t.parameter === t.field)) {
      const seen = equalities.get(t.field) ?? new Set<Scalar>();
      seen.add(t.operands[0]!);
      equalities.set(t.field, seen);
      if (seen.size > 1) return { terms: [], refused: t.field };
    }
  }
  const anyRepeats = new Map<string, Term[]>();
  const terms: Term[] = [];
  for (const t of chosen) {
    if (t.op !== 'any') {
      terms.push(t);
      continue;
    }
    const repeats = anyRepeats.get(t.parameter);
    if (repeats !== undefined) {
      repeats.push(t);
      continue;
    }
    const union = [t];
    anyRepeats.set(t.parameter, union);
    const negated = t.parameter.endsWith('__ne');
    terms.push({
      ...t,
      holds: (item) =>
        negated ? union.every((r) => r.holds(item)) : union.some((r) => r.holds(item)),
    });
  }
  return { terms };
}

/** Requests one filter and compares with the reference; returns a mismatch description or ''. */
async function check(
  path: string,
  items: { id: string }[],
  chosen: Term[],
  or: boolean,
): Promise<string> {
  const query = new URLSearchParams(chosen.map((t): [string, string] => [t.parameter, t.text]));
  if (or) query.set('or', 'true');
  query.set('limit', '1000');
  const answer = await send('GET', `${path}?${query}`);
  const { terms, refused } = combined(chosen, or);
  if (refused !== undefined) {
    const message = (answer.body as { error?: { message?: string } }).error?.message ?? '';
    if (
      answer.status === 400 &&
      message.includes(`query parameter ${refused}: ${refused} cannot be`)
    ) {
      return '';
    }
    return `${query}: ${answer.status} ${message} != 400 naming ${refused}`;
  }
  const expected = items
    .filter((item) => {
      const results = terms.map((t) => t.holds(item as unknown as Record<string, unknown>));
      return or ? results.some(Boolean) : results.every(Boolean);
    })
    .map((item) => item.id);
  const body = answer.body as { totalResults: number; Resources: { id: string }[] };
  const got = answer.status === 200 ? body.Resources.map((r) => r.id) : [];
  if (answer.status === 200 && body.totalResults === expected.length) {
    if (JSON.stringify(got) === JSON.stringify(expected)) return '';
  }
  return `${query}: ${answer.status} ${JSON.stringify(got)} != ${JSON.stringify(expected)}`;
}

/** Runs the checks a few at a time (the mock serves them concurrently); returns the mismatches. */
async function inBatches(checks: (() => Promise<string>)[], size = 16): Promise<string[]> {
  const problems: string[] = [];
  for (let i = 0; i < checks.length; i += size) {
    const results = await Promise.all(checks.slice(i, i + size).map((run) => run()));
    problems.push(...results.filter((problem) => problem !== ''));
  }
  return problems;
}

describe('filters: every operator × field type × negation, against the reference', () => {
  const cases = [
    {
      what: 'markings',
      path: () => '/markings',
      fields: MARKING_FILTER_FIELDS,
      items: () => markings,
    },
    {
      what: 'values',
      path: () => `/markings/${colors.id}/values`,
      fields: VALUE_FILTER_FIELDS,
      items: () => values,
    },
  ];

  it.each(cases)('$what: each term alone', async ({ path, fields, items }) => {
    const terms = generatedTerms(fields, items() as unknown as Record<string, unknown>[]);
    expect(terms.length).toBeGreaterThan(100);
    const mismatches = await inBatches(terms.map((t) => () => check(path(), items(), [t], false)));
    expect(mismatches).toEqual([]);
  });

  it.each(cases)('$what: terms in pairs and triples, with and without or=true', async (c) => {
    const terms = generatedTerms(c.fields, c.items() as unknown as Record<string, unknown>[]);
    const checks: (() => Promise<string>)[] = [];
    // A fixed stride through the combinations: every field meets others, the run stays short.
    for (let i = 0; i < terms.length; i += 7) {
      const chosen = [terms[i]!, terms[(i * 13 + 5) % terms.length]!];
      if (i % 3 === 0) chosen.push(terms[(i * 29 + 11) % terms.length]!);
      for (const or of [false, true]) checks.push(() => check(c.path(), c.items(), chosen, or));
    }
    expect(await inBatches(checks)).toEqual([]);
  });

  it.each(cases)(
    '$what: repeated parameters, twice and three times, with and without or=true',
    async (c) => {
      const terms = generatedTerms(c.fields, c.items() as unknown as Record<string, unknown>[]);
      const byParameter = new Map<string, Term[]>();
      for (const t of terms)
        byParameter.set(t.parameter, [...(byParameter.get(t.parameter) ?? []), t]);
      const checks: (() => Promise<string>)[] = [];
      let refusals = 0;
      for (const same of byParameter.values()) {
        // The first text beside itself, the first two, the first three and the last two.
        const sets = [[same[0]!, same[0]!], same.slice(0, 2), same.slice(0, 3), same.slice(-2)];
        for (const chosen of sets) {
          for (const or of [false, true]) {
            if (combined(chosen, or).refused !== undefined) refusals += 1;
            checks.push(() => check(c.path(), c.items(), chosen, or));
          }
        }
      }
      // Most repeats are answered; the refusals (two names under AND) are checked too.
      expect(checks.length).toBeGreaterThan(200);
      expect(refusals).toBeGreaterThan(5);
      expect(refusals).toBeLessThan(checks.length / 10);
      expect(await inBatches(checks)).toEqual([]);
    },
  );

  it('the reference is not trivial: the generated terms split the markings many ways', () => {
    const terms = generatedTerms(
      MARKING_FILTER_FIELDS,
      markings as unknown as Record<string, unknown>[],
    );
    const counts = new Set(terms.map((t) => markings.filter((m) => t.holds(m as never)).length));
    expect(counts.size).toBeGreaterThan(8);
    // Code point order, not UTF-16 order: U+FF21 sorts before U+1F600.
    const gte = term(MARKING_FILTER_FIELDS, 'name', 'gte', false, 'z\uFF22');
    expect(markings.filter((m) => gte.holds(m as never)).map((m) => m.name)).toEqual([
      'z\u{1F600}',
    ]);
  });
});

// ---- the table: request → expected answer ----

interface Row {
  name: string;
  method?: string;
  /** `{alpha}` is the id of marking alpha, `{alpha/a1}` the id of its value a1. */
  path: string;
  body?: unknown;
  token?: string | null;
  headers?: Record<string, string>;
  status: number;
  /** Matched with toMatchObject. */
  answer?: unknown;
  /** Further checks on the body. */
  then?: (body: AnswerBody) => void;
}

/** What the `then` checks read: a listing's resources, or a marking's changedBy. */
interface AnswerBody {
  Resources: { name: string }[];
  changedBy: { id: string };
}

const badQuery = (path: string) => ({
  error: { code: MarkingsErrorCode.badRequest, details: [{ path }] },
});

const names = (body: Pick<AnswerBody, 'Resources'>) => body.Resources.map((r) => r.name);

const TABLE: Row[] = [
  // paging
  {
    name: 'skip and limit page the name order; totalResults counts everything',
    path: '/markings?skip=1&limit=2',
    status: 200,
    answer: { totalResults: 13, skip: 1, limit: 2 },
    then: (b) => expect(names(b)).toEqual(['9', 'Alpha']),
  },
  {
    name: 'SCIM startIndex/count page the same way, and say so',
    path: '/markings?startIndex=2&count=2',
    status: 200,
    answer: { totalResults: 13, startIndex: 2, itemsPerPage: 2 },
    then: (b) => expect(names(b)).toEqual(['9', 'Alpha']),
  },
  {
    name: 'count=0 gives only the total',
    path: '/markings?count=0',
    status: 200,
    answer: { totalResults: 13, Resources: [] },
  },
  {
    name: 'totalResults counts the filtered set, not the page',
    path: '/markings?name__startswith=region&limit=1',
    status: 200,
    answer: { totalResults: 2 },
    then: (b) => expect(names(b)).toEqual(['region-eu']),
  },
  {
    name: 'or=true combines terms with OR',
    path: '/markings?name=beta&adminOnly=true&or=true',
    status: 200,
    then: (b) => expect(names(b)).toEqual(['9', 'alphabet', 'beta']),
  },
  {
    name: 'terms combine with AND by default',
    path: '/markings?public=true&adminOnly=true',
    status: 200,
    then: (b) => expect(names(b)).toEqual(['9']),
  },
  {
    name: 'description filters detail.description',
    path: '/markings?description__contains=letter',
    status: 200,
    then: (b) => expect(names(b)).toEqual(['alpha', 'alphabet']),
  },
  {
    name: 'a negated operator',
    path: '/markings?name__contains__ne=a&name__startswith__ne=z',
    status: 200,
    then: (b) => expect(names(b)).toEqual(['10', '9', 'colors', 'region-eu', 'region-us', 'tmp-1']),
  },
  {
    name: 'values: startswith',
    path: '/markings/{colors}/values?name__startswith=b',
    status: 200,
    then: (b) => expect(names(b)).toEqual(['blue']),
  },
  // filters and parameters that cannot be used: 400 naming them
  {
    name: 'an unknown parameter',
    path: '/markings?colour=red',
    status: 400,
    answer: badQuery('colour'),
  },
  {
    name: 'an unknown operator',
    path: '/markings?name__like=a',
    status: 400,
    answer: badQuery('name__like'),
  },
  {
    name: 'an operator the type lacks',
    path: '/markings?public__contains=t',
    status: 400,
    answer: badQuery('public__contains'),
  },
  {
    name: 'gte on a flag',
    path: '/markings?adminOnly__gte=true',
    status: 400,
    answer: badQuery('adminOnly__gte'),
  },
  {
    name: 'a flag that is not true/false',
    path: '/markings?public=yes',
    status: 400,
    answer: badQuery('public'),
  },
  {
    name: 'a time that is not a number',
    path: '/markings?_createdTs__gte=yesterday',
    status: 400,
    answer: badQuery('_createdTs__gte'),
  },
  {
    name: 'ne negated',
    path: '/markings?name__ne__ne=a',
    status: 400,
    answer: badQuery('name__ne__ne'),
  },
  {
    name: 'empty negated',
    path: '/markings?name__empty__ne=true',
    status: 400,
    answer: badQuery('name__empty__ne'),
  },
  {
    name: 'empty that is not true/false',
    path: '/markings?name__empty=maybe',
    status: 400,
    answer: badQuery('name__empty'),
  },
  {
    name: 'any with no values',
    path: '/markings?name__any=',
    status: 400,
    answer: badQuery('name__any'),
  },
  {
    name: 'a suffix after an operator that is not __ne',
    path: '/markings?name__contains__gte=a',
    status: 400,
    answer: badQuery('name__contains__gte'),
  },
  {
    name: 'or that is not true/false',
    path: '/markings?or=1',
    status: 400,
    answer: badQuery('or'),
  },
  {
    name: 'SCIM paging with skip',
    path: '/markings?startIndex=1&skip=0',
    status: 400,
    answer: badQuery('startIndex'),
  },
  {
    name: 'SCIM count with limit',
    path: '/markings?count=5&limit=5',
    status: 400,
    answer: badQuery('count'),
  },
  {
    name: 'startIndex 0',
    path: '/markings?startIndex=0',
    status: 400,
    answer: badQuery('startIndex'),
  },
  {
    name: 'count over the maximum',
    path: '/markings?count=1001',
    status: 400,
    answer: badQuery('count'),
  },
  { name: 'limit 0', path: '/markings?limit=0', status: 400, answer: badQuery('limit') },
  {
    name: 'limit over the maximum',
    path: '/markings?limit=1001',
    status: 400,
    answer: badQuery('limit'),
  },
  { name: 'a negative skip', path: '/markings?skip=-1', status: 400, answer: badQuery('skip') },
  {
    name: 'valueLimit not a number',
    path: '/markings?valueLimit=all',
    status: 400,
    answer: badQuery('valueLimit'),
  },
  {
    name: 'valueLimit on List Values',
    path: '/markings/{colors}/values?valueLimit=0',
    status: 400,
    answer: badQuery('valueLimit'),
  },
  {
    name: 'a marking field on List Values',
    path: '/markings/{colors}/values?adminOnly=true',
    status: 400,
    answer: badQuery('adminOnly'),
  },
  {
    name: 'a filter on Get Marking',
    path: '/markings/{alpha}?name=alpha',
    status: 400,
    answer: badQuery('name'),
  },
  {
    name: 'a parameter on Get Value',
    path: '/markings/{alpha}/values/{alpha/a1}?x=1',
    status: 400,
    answer: badQuery('x'),
  },
  // resources
  {
    name: 'Get Marking: the public API members, ETag',
    path: '/markings/{alpha}',
    status: 200,
    answer: {
      name: 'alpha',
      public: true,
      defaultValue: 'a1',
      _createdBy: 'dev',
      changedBy: { tenantId: 'dev', userName: 'dev', display: 'dev', exists: true },
      detail: {
        description: 'first letter',
        valueCount: 2,
        dataType: 'string',
        default: false,
        defaultVersion: 1,
        policies: { referenced: 0 },
        values: [
          {
            name: 'a1',
            _createdBy: 'dev',
            _updatedBy: 'dev',
            policies: { referenced: 0, relevant: 0 },
          },
          { name: 'a2', changedBy: { userName: 'dev' } },
        ],
      },
    },
    then: (b) => expect(b.changedBy.id).toMatch(/^[0-9a-f]{24}$/),
  },
  {
    name: 'Get Value: the public API members, changed by its last writer',
    path: '/markings/{colors}/values/{colors/red}',
    status: 200,
    answer: {
      name: 'red',
      description: 'warmest',
      _createdBy: 'dev',
      _updatedBy: 'ops',
      changedBy: { userName: 'ops', tenantId: 'dev' },
      policies: { referenced: 0, relevant: 0 },
    },
  },
  // errors of every kind
  {
    name: 'no credentials',
    path: '/markings',
    token: null,
    status: 401,
    answer: { error: { code: MarkingsErrorCode.unauthorized } },
  },
  { name: 'unknown credentials', path: '/markings', token: 'nobody', status: 401 },
  {
    name: 'a missing scope, named',
    method: 'POST',
    path: '/markings',
    token: READER_TOKEN,
    body: { name: 'x' },
    status: 403,
    answer: {
      error: { code: MarkingsErrorCode.forbidden, message: 'missing scope markings:create' },
    },
  },
  {
    name: 'an unknown marking',
    path: '/markings/0123456789abcdef01234567',
    status: 404,
    answer: { error: { code: MarkingsErrorCode.notFound } },
  },
  {
    name: 'an unknown value',
    path: '/markings/{alpha}/values/0123456789abcdef01234567',
    status: 404,
  },
  { name: 'a method the path lacks', method: 'PATCH', path: '/markings', status: 405 },
  {
    name: 'a body that is not JSON',
    method: 'POST',
    path: '/markings',
    body: 'name=x',
    headers: { 'content-type': 'text/plain' },
    status: 415,
    answer: { error: { code: MarkingsErrorCode.unsupportedMediaType } },
  },
  {
    name: 'an invalid marking, the field named',
    method: 'POST',
    path: '/markings',
    body: { name: ' padded' },
    status: 400,
    answer: { error: { code: MarkingsErrorCode.validation, details: [{ path: 'name' }] } },
  },
  {
    name: 'a default that is not a value',
    method: 'POST',
    path: '/markings',
    body: { name: 'new', defaultValue: 'nope' },
    status: 400,
    answer: { error: { details: [{ path: 'defaultValue' }] } },
  },
  {
    name: 'a duplicate name',
    method: 'POST',
    path: '/markings',
    body: { name: 'alpha' },
    status: 409,
    answer: { error: { code: MarkingsErrorCode.duplicateName } },
  },
  {
    name: 'a bulk item with an unknown id, its index named',
    method: 'POST',
    path: '/markings',
    body: [{ name: 'ok' }, { id: '0123456789abcdef01234567', name: 'x' }],
    status: 404,
    answer: { error: { details: [{ path: '[1].id' }] } },
  },
  {
    name: 'a stale If-Match',
    method: 'PUT',
    path: '/markings/{alpha}',
    headers: { 'if-match': '"999"' },
    body: { public: false },
    status: 412,
    answer: { error: { code: MarkingsErrorCode.preconditionFailed } },
  },
  {
    name: 'deleting the default value',
    method: 'DELETE',
    path: '/markings/{alpha}/values/{alpha/a1}',
    status: 409,
  },
  {
    name: 'more than 1,000 markings at once',
    method: 'POST',
    path: '/markings',
    body: Array.from({ length: 1001 }, (_, i) => ({ name: `m${i}` })),
    status: 413,
    answer: { error: { code: MarkingsErrorCode.payloadTooLarge } },
  },
];

/** Ids of the values the table names, as `marking/value`. */
const valueIds = new Map<string, string>();

function resolvePath(path: string): string {
  return path.replace(/\{([^}/]+)(?:\/([^}]+))?\}/g, (_, marking: string, value?: string) => {
    const id =
      value === undefined
        ? markings.find((m) => m.name === marking)?.id
        : valueIds.get(`${marking}/${value}`);
    if (id === undefined) throw new Error(`the seed has no ${marking}/${value ?? ''}`);
    return id;
  });
}

describe('the markings API contract', () => {
  beforeAll(async () => {
    for (const marking of ['alpha', 'colors']) {
      const id = markings.find((m) => m.name === marking)!.id;
      for (const v of (await listAll(`/markings/${id}/values`)) as MarkingValue[]) {
        valueIds.set(`${marking}/${v.name}`, v.id);
      }
    }
  });

  it.each(TABLE)('$name → $status', async (row) => {
    const before = markings.length;
    const answer = await send(row.method ?? 'GET', resolvePath(row.path), {
      body: row.body,
      token: row.token,
      headers: row.headers,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(row.status);
    if (row.answer !== undefined) expect(answer.body).toMatchObject(row.answer as object);
    row.then?.(answer.body as AnswerBody);
    if (answer.status >= 400) {
      // Every error is the JSON error body of docs/design.md 1.4, and changed nothing.
      expect(answer.body).toMatchObject({
        error: { cid: expect.any(String), message: expect.any(String) },
      });
      expect((await listAll('/markings?valueLimit=0')).length).toBe(before);
    }
    if (
      row.path.startsWith('/markings/{') &&
      !row.path.includes('values') &&
      answer.status === 200
    ) {
      expect(answer.headers.get('etag')).toBe(`"${(answer.body as Marking)._version}"`);
    }
  });
});

describe('members follow the change', () => {
  it('changedBy and _updatedBy follow the principal, defaultVersion follows defaultValue', async () => {
    const created = await send('POST', '/markings', {
      body: {
        name: 'tracked',
        defaultValue: 'x',
        detail: { values: [{ name: 'x' }, { name: 'y' }] },
      },
    });
    const m = created.body as Marking;
    expect(m).toMatchObject({
      _version: 1,
      changedBy: { userName: 'dev' },
      detail: { defaultVersion: 1 },
    });
    const path = `/markings/${m.id}`;
    const y = m.detail.values!.find((v) => v.name === 'y')!;

    const described = (
      await send('PUT', path, { body: { detail: { description: 'd' } }, token: OPS_TOKEN })
    ).body;
    expect(described).toMatchObject({
      _version: 2,
      _createdBy: 'dev',
      _updatedBy: 'ops',
      changedBy: { userName: 'ops' },
      detail: { defaultVersion: 1 },
    });

    const defaulted = (await send('PUT', path, { body: { defaultValue: 'y' } })).body;
    expect(defaulted).toMatchObject({
      _version: 3,
      _updatedBy: 'dev',
      detail: { defaultVersion: 3 },
    });

    // Renaming the default value through the value operations moves the default with it.
    const renamed = await send('PUT', `${path}/values/${y.id}`, {
      body: { name: 'y2' },
      token: OPS_TOKEN,
    });
    expect(renamed.body).toMatchObject({
      name: 'y2',
      _createdBy: 'dev',
      _updatedBy: 'ops',
      changedBy: { userName: 'ops' },
    });
    const afterRename = (await send('GET', path)).body as Marking;
    expect(afterRename).toMatchObject({
      defaultValue: 'y2',
      _version: 4,
      _updatedBy: 'ops',
      detail: { defaultVersion: 4 },
    });
    expect(afterRename.detail.values!.find((v) => v.name === 'x')).toMatchObject({
      _updatedBy: 'dev',
    });

    // A bulk update: the values it changes or adds are by its principal, the others keep theirs.
    const [bulk] = (
      await send('POST', '/markings', {
        body: [
          {
            id: m.id,
            defaultValue: null,
            detail: { values: [{ name: 'x', description: 'now' }, { name: 'y2' }, { name: 'z' }] },
          },
        ],
        token: OPS_TOKEN,
      })
    ).body as Marking[];
    expect(bulk).toMatchObject({
      defaultValue: null,
      _updatedBy: 'ops',
      detail: { defaultVersion: 0 },
    });
    const by = Object.fromEntries(
      bulk!.detail.values!.map((v) => [v.name, [v._createdBy, v._updatedBy]]),
    );
    expect(by).toEqual({ x: ['dev', 'ops'], y2: ['dev', 'ops'], z: ['ops', 'ops'] });

    // A client of the public API sends back what it read, members and all: nothing changes.
    const current = (await send('GET', path)).body as Marking;
    const echoed = await send('PUT', path, { body: current });
    expect(echoed.status).toBe(200);
    expect(echoed.body).toEqual(current);

    // The listing serialises the same members as Get Marking.
    const listed = (await send('GET', '/markings?name=tracked')).body as { Resources: Marking[] };
    expect(listed.Resources[0]).toEqual((await send('GET', path)).body);
  });
});

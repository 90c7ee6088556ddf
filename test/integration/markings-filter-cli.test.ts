/**
 * `--filter` and `--or` on markings list, export and values list: checked before anything is
 * sent (exit 2 naming the filter), then sent to the service as written, never applied locally.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite({ dirPerTest: true });
const { ksctl } = suite;

beforeEach(async () => {
  const { mock } = suite;
  const seeded = await mock.call('POST', `/v2/${mock.info.tenantId}/markings`, [
    {
      name: 'region-eu',
      public: true,
      detail: { description: 'Europe', values: [{ name: 'de' }] },
    },
    { name: 'region-us', detail: { description: 'United States' } },
    { name: 'tmp-old', adminOnly: true },
    {
      name: 'colors',
      detail: {
        values: [{ name: 'red' }, { name: 'blue', description: 'cool' }, { name: 'Blue' }],
      },
    },
  ]);
  expect(seeded.status).toBe(200);
});

async function names(argv: string[]): Promise<string[]> {
  const result = await ksctl([...argv, '-o', 'json']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { name: string }[]).map((m) => m.name);
}

/** The query strings the service received for list requests. */
async function listQueries(): Promise<string[]> {
  return (await suite.mock.journal())
    .filter((r) => r.method === 'GET' && r.path.includes('?'))
    .map((r) => decodeURIComponent(r.path.slice(r.path.indexOf('?') + 1)));
}

describe('--filter', () => {
  it('markings list sends each filter to the service and shows what it answered', async () => {
    expect(
      await names([
        'markings',
        'list',
        '--filter',
        'name__startswith=region',
        '--filter',
        'description__contains__ne=Europe',
      ]),
    ).toEqual(['region-us']);
    const [query] = await listQueries();
    expect(query).toContain('name__startswith=region');
    expect(query).toContain('description__contains__ne=Europe');
  });

  it('--or combines the filters and the shortcuts with OR', async () => {
    expect(
      await names(['markings', 'list', '--public', '--filter', 'adminOnly=true', '--or']),
    ).toEqual(['region-eu', 'tmp-old']);
    expect((await listQueries())[0]).toContain('or=true');
  });

  it('--filter NAME__any given twice is the union of both lists, sent as written', async () => {
    expect(
      await names([
        'markings',
        'list',
        '--filter',
        'name__any=colors',
        '--filter',
        'name__any=tmp-old',
      ]),
    ).toEqual(['colors', 'tmp-old']);
    expect((await listQueries())[0]).toContain('name__any=colors&name__any=tmp-old');
  });

  it.each([
    [
      ['--filter', 'name__contains=o', '--filter', 'name__contains=l'],
      ['colors', 'tmp-old'],
    ],
    [
      ['--filter', 'name__startswith=region-e', '--filter', 'name__startswith=tmp', '--or'],
      ['region-eu', 'tmp-old'],
    ],
    [
      ['--filter', 'name__ne=colors', '--filter', 'name__ne=tmp-old'],
      ['region-eu', 'region-us'],
    ],
    [
      ['--filter', 'name=colors', '--filter', 'name=tmp-old', '--or'],
      ['colors', 'tmp-old'],
    ],
    [['--filter', 'name=colors', '--filter', 'name=colors'], ['colors']],
  ])('markings list %j: each repeat is a term, sent as written', async (flags, expected) => {
    expect(await names(['markings', 'list', ...flags])).toEqual(expected);
    // Every --filter went out as its own parameter, in order: none dropped, none merged.
    const sent = [...new URLSearchParams((await listQueries())[0])].map(([k, v]) => `${k}=${v}`);
    const given = flags.filter((_, i) => flags[i - 1] === '--filter');
    expect(
      sent.filter((pair) => given.some((g) => g.split('=')[0] === pair.split('=')[0])),
    ).toEqual(given);
  });

  it('a value may hold "=" and commas; any takes a list', async () => {
    expect(await names(['markings', 'list', '--filter', 'name__any=colors,tmp-old,a=b'])).toEqual([
      'colors',
      'tmp-old',
    ]);
  });

  it('markings values list filters values on the service', async () => {
    expect(
      await names([
        'markings',
        'values',
        'list',
        'colors',
        '--filter',
        'name__gte=blue',
        '--filter',
        'description__empty=true',
      ]),
    ).toEqual(['red']);
  });

  it('markings export writes only the filtered markings', async () => {
    const result = await ksctl(['markings', 'export', '--filter', 'name__contains=region']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('name: region-eu');
    expect(result.stdout).toContain('name: region-us');
    expect(result.stdout).not.toContain('colors');
  });

  it.each([
    [['markings', 'list', '--filter', 'colour=red'], 'unknown field "colour"'],
    [['markings', 'list', '--filter', 'name__like=x'], 'unknown operator "like"'],
    [['markings', 'list', '--filter', 'public=yes'], 'must be true or false'],
    [['markings', 'list', '--filter', 'public__contains=t'], 'does not apply'],
    [['markings', 'list', '--filter', 'name__ne__ne=x'], 'ne cannot be negated'],
    [['markings', 'list', '--filter', '_createdTs__gte=today'], 'epoch milliseconds'],
    [['markings', 'list', '--filter', 'name'], 'expected FIELD=VALUE'],
    [['markings', 'export', '--filter', 'name__empty=maybe'], 'must be true or false'],
    [['markings', 'values', 'list', 'colors', '--filter', 'public=true'], 'unknown field'],
  ])('%j is a usage error naming the filter; nothing is sent', async (argv, reason) => {
    const result = await ksctl(argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(JSON.stringify(argv[argv.lastIndexOf('--filter') + 1]));
    expect(result.stderr).toContain(reason);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // Only the seeding request of beforeEach reached the service.
    expect(await suite.mock.journal()).toHaveLength(1);
  });
});

describe('a misspelt filter or query key: what was meant', () => {
  it.each([
    [['markings', 'list', '--filter', 'nme=foo'], 'unknown field "nme"; did you mean name?'],
    [
      ['markings', 'list', '--filter', 'Public=true'],
      'unknown field "Public"; did you mean public?',
    ],
    [
      ['markings', 'list', '--filter', 'name__contians=x'],
      'unknown operator "contians"; did you mean contains?',
    ],
  ])('ksctl %j says what was meant before sending anything', async (argv, reason) => {
    const result = await ksctl(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(reason);
    expect(await suite.mock.journal()).toHaveLength(1);
  });

  it.each([
    ['nme=colors', 'unknown field "nme"; did you mean name?'],
    ['limt=2', 'unknown field "limt"; did you mean limit?'],
    ['valueLimt=0', 'unknown field "valueLimt"; did you mean valueLimit?'],
    ['name__startswth=re', 'unknown operator "startswth"; did you mean startswith?'],
  ])(
    'ksctl api GET /markings --query %s: the service says what was meant',
    async (query, reason) => {
      const result = await ksctl(['api', 'GET', '/markings', '--query', query]);
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(reason);
    },
  );

  it('a word like no parameter gets no guess, only the list', async () => {
    const result = await ksctl(['api', 'GET', '/markings', '--query', 'xyzzy=1']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('unknown field "xyzzy" (filterable: id, name,');
  });
});

describe('repeated shortcut flags: each is a term, never dropped', () => {
  it.each([
    [
      ['markings', 'list', '--name', 'colors', '--name', 'tmp-old', '--or'],
      ['colors', 'tmp-old'],
    ],
    [
      ['markings', 'list', '--starts-with', 'region', '--starts-with', 'tmp', '--or'],
      ['region-eu', 'region-us', 'tmp-old'],
    ],
    [
      ['markings', 'list', '--contains', 'o', '--contains', 'l'],
      ['colors', 'tmp-old'],
    ],
    [
      ['markings', 'list', '--contains', 'o', '--contains', 'l', '--or'],
      ['colors', 'region-eu', 'region-us', 'tmp-old'],
    ],
    [['markings', 'list', '--name', 'colors', '--name', 'colors'], ['colors']],
    [
      ['markings', 'list', '--name', 'colors', '--filter', 'name=tmp-old', '--or'],
      ['colors', 'tmp-old'],
    ],
    [
      ['markings', 'values', 'list', 'colors', '--name', 'red', '--name', 'blue', '--or'],
      ['blue', 'red'],
    ],
    [['markings', 'values', 'list', 'colors', '--contains', 'e', '--contains', 'd'], ['red']],
  ])('%j', async (argv, expected) => {
    expect(await names(argv)).toEqual(expected);
  });

  it('markings export --starts-with twice with --or writes both kinds', async () => {
    const result = await ksctl([
      'markings',
      'export',
      '--starts-with',
      'region-e',
      '--starts-with',
      'tmp',
      '--or',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('name: region-eu');
    expect(result.stdout).toContain('name: tmp-old');
    expect(result.stdout).not.toContain('region-us');
    expect(result.stdout).not.toContain('colors');
  });

  it('each repetition is sent as its own parameter, in the order given', async () => {
    await names(['markings', 'list', '--starts-with', 'tmp', '--starts-with', 'region', '--or']);
    const sent = new URLSearchParams((await listQueries())[0]);
    expect(sent.getAll('name__startswith')).toEqual(['tmp', 'region']);
    expect(sent.get('or')).toBe('true');
  });

  it.each([
    [
      ['markings', 'list', '--name', 'colors', '--name', 'tmp-old'],
      '--name "colors" and --name "tmp-old" together match nothing (name cannot be both)',
      'use --filter name__any=colors,tmp-old, or --or',
    ],
    [
      ['markings', 'export', '--name', 'colors', '--name', 'tmp-old'],
      '--name "colors" and --name "tmp-old" together match nothing',
      '--filter name__any=colors,tmp-old',
    ],
    [
      ['markings', 'values', 'list', 'colors', '--name', 'red', '--name', 'blue'],
      '--name "red" and --name "blue" together match nothing',
      '--filter name__any=red,blue',
    ],
    [
      ['markings', 'list', '--filter', 'name=a', '--filter', 'name=b'],
      '--filter "name=a" and --filter "name=b" together match nothing (name cannot be both)',
      'use --filter name__any=a,b, or --or',
    ],
    [
      ['markings', 'list', '--name', 'a', '--filter', 'name=b', '--filter', 'name=c'],
      '--name "a", --filter "name=b" and --filter "name=c" together match nothing (name cannot be all of them)',
      '--filter name__any=a,b,c',
    ],
    [
      ['markings', 'list', '--public', '--filter', 'public=false'],
      '--public and --filter "public=false" together match nothing',
      '--or',
    ],
  ])(
    '%j: different names under AND are refused, saying what lists either; nothing is sent',
    async (argv, message, hint) => {
      const result = await ksctl(argv);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(message);
      expect(result.stderr).toContain('nothing was sent');
      expect(result.stderr).toContain(hint);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      // Only the seeding request of beforeEach reached the service.
      expect(await suite.mock.journal()).toHaveLength(1);
    },
  );
});

describe('ksctl api --query: a key given twice is sent twice', () => {
  it('name__contains twice needs both; with or=true either', async () => {
    const listed = async (...pairs: string[]) => {
      const result = await ksctl([
        'api',
        'GET',
        '/markings',
        ...pairs.flatMap((p) => ['--query', p]),
      ]);
      expect(result.code).toBe(0);
      return (JSON.parse(result.stdout) as { Resources: { name: string }[] }).Resources.map(
        (m) => m.name,
      );
    };
    expect(await listed('name__contains=o', 'name__contains=l')).toEqual(['colors', 'tmp-old']);
    expect(await listed('name__startswith=tmp', 'name__startswith=colors', 'or=true')).toEqual([
      'colors',
      'tmp-old',
    ]);
    expect(await listQueries()).toEqual([
      'name__contains=o&name__contains=l',
      'name__startswith=tmp&name__startswith=colors&or=true',
    ]);
  });
});

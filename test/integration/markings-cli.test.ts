/**
 * Every markings and values command through the CLI's `run()` against the in-process mock:
 * what a user sees on stdout (piped and on a terminal), stderr and the exit code.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Marking, MarkingValue } from '../../src/common/markings/wire.js';
import { tsvRows } from '../helpers/cli.js';
import { mockSuite } from '../helpers/mock-suite.js';

/** The detail members the public Ionic API adds, for a marking without a default value. */
const PUBLIC_API = {
  dataType: 'string',
  default: false,
  defaultVersion: 0,
  policies: { referenced: 0 },
};
const suite = mockSuite();
const { ksctl } = suite;

/** Runs a command that must succeed and returns its stdout. */
async function ok(argv: string[]): Promise<string> {
  const result = await ksctl(argv);
  expect(result.stderr === '' || result.code === 0 ? result.code : result.stderr).toBe(0);
  return result.stdout;
}

async function json<T>(argv: string[]): Promise<T> {
  return JSON.parse(await ok([...argv, '-o', 'json'])) as T;
}

const createClassification = () =>
  ok([
    'markings',
    'create',
    'classification',
    '--description',
    'Data classification level',
    '--value',
    'public',
    '--value',
    'internal=Staff only',
    '--value',
    'restricted=Need to know',
    '--default-value',
    'internal',
  ]);

describe('markings create', () => {
  it('creates with values, description and default; says so on stderr, shows it on stdout', async () => {
    const result = await ksctl([
      'markings',
      'create',
      'classification',
      '--value',
      'public',
      '--value',
      'internal=Staff only',
      '--value',
      'a\\=b=escaped',
      '--default-value',
      'internal',
      '--description',
      'Data classification level',
      '--public',
      '--admin-only',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^created marking classification \([0-9a-f]{24}\) with 3 values\n$/,
    );
    const rows = tsvRows(result.stdout);
    expect(rows).toContainEqual(['Name', 'classification']);
    expect(rows).toContainEqual(['Public', 'yes']);
    expect(rows).toContainEqual(['Admin only', 'yes']);
    expect(rows).toContainEqual(['Default value', 'internal']);
    expect(rows.filter((r) => r[0] === 'Value').map((r) => [r[1], r[3]])).toEqual([
      ['a=b', 'escaped'],
      ['internal', 'Staff only'],
      ['public', ''],
    ]);
  });

  it('-o json prints the marking as the service returned it', async () => {
    const created = await json<Marking>(['markings', 'create', 'bare']);
    expect(created).toMatchObject({ name: 'bare', public: false, _version: 1 });
    expect(created.detail).toEqual({ description: '', valueCount: 0, values: [], ...PUBLIC_API });
  });

  it('--quiet prints the data only', async () => {
    const result = await ksctl(['markings', 'create', 'quiet', '-q', '-o', 'json']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout).name).toBe('quiet');
  });

  it('says 1 value, not 1 values', async () => {
    const one = await ksctl(['markings', 'create', 'x', '--value', 'a']);
    expect(one.stderr).toMatch(/^created marking x \([0-9a-f]{24}\) with 1 value$/m);
    const none = await ksctl(['markings', 'create', 'y']);
    expect(none.stderr).toMatch(/^created marking y \([0-9a-f]{24}\) with 0 values$/m);
  });
});

describe('markings list', () => {
  beforeEach(async () => {
    await createClassification();
    await ok(['markings', 'create', 'region', '--public', '--value', 'eu', '--value', 'us']);
    await ok(['markings', 'create', 'regional-office', '--value', 'x']);
    await ok(['markings', 'create', 'project']);
  });

  it('piped: one tab-separated row per marking, no header, ordered by name', async () => {
    const rows = tsvRows(await ok(['markings', 'list']));
    expect(rows.map((r) => r.length)).toEqual([7, 7, 7, 7]);
    expect(rows.map((r) => [r[0], r[2], r[3], r[4], r[6]])).toEqual([
      ['classification', '3', 'internal', 'no', 'Data classification level'],
      ['project', '0', '', 'no', ''],
      ['region', '2', '', 'yes', ''],
      ['regional-office', '1', '', 'no', ''],
    ]);
    expect(rows[0]![1]).toMatch(/^[0-9a-f]{24}$/);
  });

  it('on a terminal: a header first', async () => {
    const result = await ksctl(['markings', 'list'], { tty: true });
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+VALUES\s+DEFAULT\s+PUBLIC\s+DESCRIPTION$/);
    expect(lines).toHaveLength(5);
    const wide = await ksctl(['markings', 'list', '--wide'], { tty: true });
    expect(wide.stdout).toMatch(
      /^NAME\s+ID\s+VALUES\s+DEFAULT\s+PUBLIC\s+ADMIN ONLY\s+DESCRIPTION$/m,
    );
  });

  it('a table never asks the service for values', async () => {
    await ok(['markings', 'list']);
    const [request] = await suite.mock.journal().then((j) => j.filter((r) => r.method === 'GET'));
    expect(request!.path).toContain('valueLimit=0');
  });

  it.each([
    [['--name', 'region'], ['region']],
    [
      ['--contains', 'gion'],
      ['region', 'regional-office'],
    ],
    [['--starts-with', 'pro'], ['project']],
    [['--public'], ['region']],
    [['--no-public'], ['classification', 'project', 'regional-office']],
    [
      ['--contains', 'o', '--no-public'],
      ['classification', 'project', 'regional-office'],
    ],
    [
      ['--limit', '2'],
      ['classification', 'project'],
    ],
    [['--name', 'nothing'], []],
  ])('%j', async (flags, names) => {
    expect(tsvRows(await ok(['markings', 'list', ...flags])).map((r) => r[0])).toEqual(names);
  });

  it.each([
    [[], ['internal', 'public', 'restricted']],
    [['--value-limit', '1'], ['internal']],
  ])('-o json %j includes values', async (flags, values) => {
    const listed = await json<Marking[]>([
      'markings',
      'list',
      '--name',
      'classification',
      ...flags,
    ]);
    expect(listed[0]!.detail.values!.map((v) => v.name)).toEqual(values);
  });

  it('-o json --value-limit 0 has no values key at all', async () => {
    const listed = await json<Marking[]>(['markings', 'list', '--value-limit', '0']);
    expect(listed).toHaveLength(4);
    for (const m of listed)
      expect(Object.keys(m.detail).sort()).toEqual([
        'dataType',
        'default',
        'defaultVersion',
        'description',
        'policies',
        'valueCount',
      ]);
  });

  it('-o json of nothing is an empty array', async () => {
    expect(await json(['markings', 'list', '--name', 'nothing'])).toEqual([]);
  });

  it('-o yaml', async () => {
    const out = await ok(['markings', 'list', '--name', 'project', '-o', 'yaml']);
    expect(out).toMatch(/^- id: [0-9a-f]{24}\n {2}name: project\n/);
  });
});

describe('markings list over more than 1,000 markings', () => {
  it('pages through all of them; --limit stops early', async () => {
    const items = Array.from({ length: 1500 }, (_, i) => ({
      name: `m${String(i).padStart(4, '0')}`,
    }));
    for (let i = 0; i < items.length; i += 1000) {
      expect(
        (await suite.mock.call('POST', '/v2/dev/markings?valueLimit=0', items.slice(i, i + 1000)))
          .status,
      ).toBe(200);
    }
    const rows = tsvRows(await ok(['markings', 'list']));
    expect(rows.map((r) => r[0])).toEqual(items.map((m) => m.name));
    expect(await json<Marking[]>(['markings', 'list', '--value-limit', '0'])).toHaveLength(1500);
    expect(tsvRows(await ok(['markings', 'list', '--limit', '1200']))).toHaveLength(1200);
  });
});

describe('markings get', () => {
  let id: string;
  beforeEach(async () => {
    await createClassification();
    id = (await json<Marking>(['markings', 'get', 'classification'])).id;
  });

  it('by name and by id show the same marking', async () => {
    expect(await ok(['markings', 'get', id])).toBe(await ok(['markings', 'get', 'classification']));
  });

  it('on a terminal: labelled fields, then a values table', async () => {
    const { stdout } = await ksctl(['markings', 'get', 'classification'], { tty: true });
    expect(stdout).toMatch(/^Name: +classification$/m);
    expect(stdout).toMatch(/^Default value: +internal$/m);
    expect(stdout).toMatch(/^Values:\n/m);
    expect(stdout).toMatch(/^NAME\s+ID\s+DESCRIPTION\s*$/m);
    expect(stdout).toMatch(/^restricted\s+[0-9a-f]{24}\s+Need to know/m);
  });

  it('--value-limit 1 shows one value and says how many more there are', async () => {
    const rows = tsvRows(await ok(['markings', 'get', 'classification', '--value-limit', '1']));
    expect(rows.filter((r) => r[0] === 'Value')).toHaveLength(1);
    expect(rows).toContainEqual(['Not shown', '2 more values (raise --value-limit)']);
  });

  it('--value-limit 0 -o json has no values key', async () => {
    const got = await json<Marking>(['markings', 'get', id, '--value-limit', '0']);
    expect('values' in got.detail).toBe(false);
    expect(got.detail).toMatchObject({ description: 'Data classification level', valueCount: 3 });
  });
});

describe('markings update', () => {
  beforeEach(() => createClassification());

  const get = () => json<Marking>(['markings', 'get', 'classification']);
  const valueNames = (m: Marking) => m.detail.values!.map((v) => v.name);

  it('renames and changes fields', async () => {
    const result = await ksctl([
      'markings',
      'update',
      'classification',
      '--rename',
      'level',
      '--description',
      'new',
      '--public',
      '--admin-only',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'updated marking level: changed name (to "level"), description, public, admin-only\n',
    );
    const level = await json<Marking>(['markings', 'get', 'level']);
    expect(level).toMatchObject({
      public: true,
      adminOnly: true,
      detail: { description: 'new' },
      _version: 2,
    });
    await ok(['markings', 'update', 'level', '--no-public', '--no-admin-only']);
    expect(await json<Marking>(['markings', 'get', 'level'])).toMatchObject({
      public: false,
      adminOnly: false,
    });
  });

  it('--add-value and --remove-value change single values and keep the others', async () => {
    const before = await get();
    const result = await ksctl([
      'markings',
      'update',
      'classification',
      '--add-value',
      'secret=Few people',
      '--add-value',
      'top',
      '--remove-value',
      'public',
      '--yes',
    ]);
    expect(result.stderr).toBe(
      'updated marking classification: added values "secret", "top"; removed value "public"\n',
    );
    const after = await get();
    expect(valueNames(after)).toEqual(['internal', 'restricted', 'secret', 'top']);
    const ids = (m: Marking) => new Map(m.detail.values!.map((v) => [v.name, v.id]));
    expect(ids(after).get('internal')).toBe(ids(before).get('internal'));
  });

  it('--set-values gives the complete set and keeps the ids (and descriptions) of existing values', async () => {
    const before = await get();
    await ok([
      'markings',
      'update',
      'classification',
      '--set-values',
      'internal',
      '--set-values',
      'restricted=NTK',
      '--set-values',
      'new',
      '--yes',
    ]);
    const after = await get();
    expect(after.detail.values!.map((v) => [v.name, v.description])).toEqual([
      ['internal', 'Staff only'],
      ['new', ''],
      ['restricted', 'NTK'],
    ]);
    const id = (m: Marking, name: string) => m.detail.values!.find((v) => v.name === name)?.id;
    expect(id(after, 'internal')).toBe(id(before, 'internal'));
    expect(id(after, 'restricted')).toBe(id(before, 'restricted'));
  });

  it('a new default may be among the added values, and the old default removed in the same command', async () => {
    await ok([
      'markings',
      'update',
      'classification',
      '--add-value',
      'staff',
      '--default-value',
      'staff',
      '--remove-value',
      'internal',
      '--yes',
    ]);
    const after = await get();
    expect(after.defaultValue).toBe('staff');
    expect(valueNames(after)).toEqual(['public', 'restricted', 'staff']);
  });

  it('--no-default-value clears the default', async () => {
    await ok(['markings', 'update', 'classification', '--no-default-value']);
    expect((await get()).defaultValue).toBeNull();
  });

  it.each([
    [['--default-value', 'nope'], 3, /defaultValue: "nope" is not one of the marking's values/],
    [['--remove-value', 'internal'], 6, /default value/],
    [['--remove-value', 'nope'], 5, /value "nope" not found/],
    [['--add-value', 'public'], 6, /already has a value named "public"/],
    [['--rename', 'taken'], 6, /a marking named "taken" already exists/],
  ])('%j fails with exit %i', async (flags, code, message) => {
    await ok(['markings', 'create', 'taken']);
    const result = await ksctl(['markings', 'update', 'classification', ...flags]);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });

  it.each([
    [[], /nothing to change/],
    [['--set-values', 'a', '--add-value', 'b'], /cannot be combined/],
    [['--file', 'x.yaml'], /x\.yaml: no such file or directory/],
  ])('%j is a usage error (exit 2) and sends nothing', async (flags, message) => {
    const result = await ksctl(['markings', 'update', 'classification', ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    const writes = (await suite.mock.journal()).filter((r) => r.method !== 'GET');
    expect(writes.map((r) => r.method)).toEqual(['POST']);
  });
});

describe('markings delete', () => {
  beforeEach(async () => {
    await createClassification();
    await ok(['markings', 'create', 'region']);
    await ok(['markings', 'create', 'project']);
  });

  const names = async () => tsvRows(await ok(['markings', 'list'])).map((r) => r[0]);

  it('--yes deletes several at once, by name or id', async () => {
    const { id } = await json<Marking>(['markings', 'get', 'region']);
    const result = await ksctl(['markings', 'delete', 'classification', id, '--yes']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^deleted marking classification \(.*\)\ndeleted marking region \(.*\)\n$/,
    );
    expect(await names()).toEqual(['project']);
  });

  it('off a terminal without --yes: usage error (exit 2), nothing deleted', async () => {
    const result = await ksctl(['markings', 'delete', 'classification']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/confirmation needed\nhint: pass --yes/);
    expect(result.questions).toEqual([]);
    expect(await names()).toEqual(['classification', 'project', 'region']);
  });

  it('on a terminal, answering no: nothing deleted (exit 2)', async () => {
    const result = await ksctl(['markings', 'rm', 'classification', 'region'], {
      tty: true,
      answers: [false],
    });
    expect(result.questions).toEqual([
      'Delete 2 markings: "classification" (3 values), "region" (0 values)?',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cancelled; nothing was changed/);
    expect(await names()).toEqual(['classification', 'project', 'region']);
  });

  it('on a terminal, answering yes: deleted', async () => {
    const result = await ksctl(['markings', 'delete', 'classification'], {
      tty: true,
      answers: [true],
    });
    expect(result.questions).toEqual(['Delete marking "classification" (3 values)?']);
    expect(result.code).toBe(0);
    expect(await names()).toEqual(['project', 'region']);
  });

  it('on a terminal with --no-input or CI set: no question, needs --yes', async () => {
    for (const run of [
      () => ksctl(['markings', 'delete', 'region', '--no-input'], { tty: true }),
      () => ksctl(['markings', 'delete', 'region'], { tty: true, env: { CI: 'true' } }),
    ]) {
      const result = await run();
      expect(result.code).toBe(2);
      expect(result.questions).toEqual([]);
    }
    expect(await names()).toContain('region');
  });

  it('--if-version deletes only at that version (412 otherwise, exit 6)', async () => {
    const stale = await ksctl(['markings', 'delete', 'region', '--if-version', '2', '--yes']);
    expect(stale.code).toBe(6);
    expect(stale.stderr).toMatch(/is at version 1, not 2/);
    expect((await ksctl(['markings', 'delete', 'region', '--if-version', '1', '--yes'])).code).toBe(
      0,
    );
    expect(await names()).toEqual(['classification', 'project']);
  });
});

describe('markings values', () => {
  beforeEach(() => createClassification());

  it('list: piped rows of name, id, description; filters and limit', async () => {
    const rows = tsvRows(await ok(['markings', 'values', 'list', 'classification']));
    expect(rows.map((r) => [r[0], r[2]])).toEqual([
      ['internal', 'Staff only'],
      ['public', ''],
      ['restricted', 'Need to know'],
    ]);
    expect(
      tsvRows(await ok(['markings', 'values', 'ls', 'classification', '--contains', 'ic'])).map(
        (r) => r[0],
      ),
    ).toEqual(['public', 'restricted']);
    expect(
      tsvRows(await ok(['markings', 'values', 'list', 'classification', '--name', 'public'])).map(
        (r) => r[0],
      ),
    ).toEqual(['public']);
    expect(
      tsvRows(await ok(['markings', 'values', 'list', 'classification', '--limit', '2'])),
    ).toHaveLength(2);
    const onTerminal = await ksctl(['markings', 'values', 'list', 'classification'], { tty: true });
    expect(onTerminal.stdout).toMatch(/^NAME\s+DESCRIPTION$/m);
  });

  it('get by name and by id', async () => {
    const value = await json<MarkingValue>([
      'markings',
      'values',
      'get',
      'classification',
      'internal',
    ]);
    expect(value).toMatchObject({ name: 'internal', description: 'Staff only' });
    const byId = await json<MarkingValue>([
      'markings',
      'values',
      'get',
      'classification',
      value.id,
    ]);
    expect(byId).toEqual(value);
  });

  it('add one or several; --description applies to those without one', async () => {
    const one = await ksctl([
      'markings',
      'values',
      'add',
      'classification',
      'secret=Few',
      '-o',
      'json',
    ]);
    expect(one.stderr).toBe('added 1 value to marking classification\n');
    expect(JSON.parse(one.stdout)).toMatchObject({ name: 'secret', description: 'Few' });
    const several = await json<MarkingValue[]>([
      'markings',
      'values',
      'add',
      'classification',
      'a',
      'b=own',
      '--description',
      'shared',
    ]);
    expect(several.map((v) => [v.name, v.description])).toEqual([
      ['a', 'shared'],
      ['b', 'own'],
    ]);
  });

  it('update renames and describes; the default follows a rename', async () => {
    const updated = await json<MarkingValue>([
      'markings',
      'values',
      'update',
      'classification',
      'internal',
      '--rename',
      'staff',
      '--description',
      'Employees',
    ]);
    expect(updated).toMatchObject({ name: 'staff', description: 'Employees', _version: 2 });
    expect((await json<Marking>(['markings', 'get', 'classification'])).defaultValue).toBe('staff');
    const nothing = await ksctl(['markings', 'values', 'update', 'classification', 'staff']);
    expect(nothing.code).toBe(2);
  });

  it('delete: --yes, or a confirmation on a terminal', async () => {
    const refused = await ksctl(['markings', 'values', 'delete', 'classification', 'public']);
    expect(refused.code).toBe(2);
    const declined = await ksctl(
      ['markings', 'values', 'rm', 'classification', 'public', 'restricted'],
      {
        tty: true,
        answers: [false],
      },
    );
    expect(declined.questions).toEqual([
      'Delete values "public", "restricted" of marking "classification"?',
    ]);
    expect(declined.code).toBe(2);
    const deleted = await ksctl([
      'markings',
      'values',
      'delete',
      'classification',
      'public',
      '--yes',
    ]);
    expect(deleted.stderr).toBe('deleted 1 value from marking classification: "public"\n');
    expect(
      tsvRows(await ok(['markings', 'values', 'list', 'classification'])).map((r) => r[0]),
    ).toEqual(['internal', 'restricted']);
    const isDefault = await ksctl([
      'markings',
      'values',
      'delete',
      'classification',
      'internal',
      '--yes',
    ]);
    expect(isDefault.code).toBe(6);
    expect(isDefault.stderr).toMatch(/change the default first/);
  });
});

/**
 * `ksctl markings apply` and `export` end to end in-process: the real CLI through run(), the real
 * mock on port 0, and the mock's request journal as the witness of what was sent.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Marking } from '../../src/common/markings/wire.js';
import type { JournalEntry } from '../../src/common/mock/wire.js';
import { cliFor, expectUsageError, mockEnv } from '../helpers/cli.js';
import { startMock, type TestMock } from '../helpers/mock.js';
import { mockSuite } from '../helpers/mock-suite.js';
import { ROOT } from '../helpers/spawn.js';

const suite = mockSuite();
let mock: TestMock;
let dir: string;
let basePath: string;
const cli = cliFor(() => mockEnv(mock, join(dir, 'config')));

beforeAll(() => {
  ({ mock, configDir: dir } = suite);
  basePath = new URL(mock.baseUrl).pathname;
});

const EXAMPLE = 'examples/markings.yaml';
const WRITES = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

const writesIn = (journal: JournalEntry[]) => journal.filter((r) => WRITES.has(r.method));

/** The journal from the `from`-th request on, so a test looks at one command's requests. */
async function journalSince(from: number): Promise<JournalEntry[]> {
  return (await mock.journal()).slice(from);
}

async function marking(name: string): Promise<Marking> {
  const { body } = await mock.call(
    'GET',
    `${basePath}/markings?name=${encodeURIComponent(name)}&limit=1`,
  );
  const found = (body as { Resources: Marking[] }).Resources[0];
  if (!found) throw new Error(`no marking ${name}`);
  return found;
}

async function bulkCreate(items: unknown[]): Promise<void> {
  const answer = await mock.call('POST', `${basePath}/markings?valueLimit=0`, items);
  expect(answer.status).toBe(200);
}

const valueNames = (m: Marking) => (m.detail.values ?? []).map((v) => v.name);

describe('markings apply', () => {
  it('applies the example, then a second apply sends no write at all', async () => {
    const first = await cli(['markings', 'apply', '-f', EXAMPLE]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('+ create classification (4 values)');
    expect(first.stdout).toContain('Plan: 5 to create, 0 to update, 0 to delete, 0 unchanged.');
    expect(first.stderr).toContain('applied: 5 created, 0 updated, 0 deleted');
    expect(valueNames(await marking('classification'))).toEqual([
      'confidential',
      'internal',
      'public',
      'restricted',
    ]);
    expect((await marking('classification')).defaultValue).toBe('internal');

    const before = (await mock.journal()).length;
    const second = await cli(['markings', 'apply', '-f', EXAMPLE]);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('No changes. 5 markings are up to date.\n');
    const requests = await journalSince(before);
    expect(writesIn(requests)).toEqual([]);
    // One listing without values and one page with the values of the five, nothing per marking.
    expect(requests.map((r) => r.method)).toEqual(['GET', 'GET']);
    expect(requests[0]?.path).toContain('valueLimit=0');
  });

  it('plans every kind of change, and applies them', async () => {
    await bulkCreate([
      {
        name: 'fields',
        public: false,
        defaultValue: null,
        detail: { description: 'old', values: [{ name: 'a' }] },
      },
      {
        name: 'values',
        detail: {
          values: [{ name: 'keep', description: 'k' }, { name: 'drop' }, { name: 'edit' }],
        },
      },
      { name: 'same', detail: { values: [{ name: 'x' }] } },
      { name: 'legacy', detail: { values: [{ name: 'y' }, { name: 'z' }] } },
    ]);
    const path = await file(
      'kinds.yaml',
      [
        'markings:',
        '  - name: fields',
        '    description: new',
        '    public: true',
        '    adminOnly: true',
        '    defaultValue: a',
        '  - name: values',
        '    values:',
        '      - keep',
        '      - {name: edit, description: changed}',
        '      - {name: added, description: fresh}',
        '  - name: same',
        '    values: [x]',
        '  - name: fresh',
        '    values: [one, two]',
        '',
      ].join('\n'),
    );
    const dry = await cli(['markings', 'apply', '-f', path, '--prune', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.questions).toEqual([]);
    expect(dry.stdout).toBe(
      [
        '+ create fresh (2 values)',
        '~ update fields',
        '    ~ description: "old" → "new"',
        '    ~ public: false → true',
        '    ~ adminOnly: false → true',
        '    ~ defaultValue: null → "a"',
        '~ update values',
        '    + value added',
        '    - value drop',
        '    ~ value edit: description "" → "changed"',
        '- delete legacy (2 values)',
        '',
        'Plan: 1 to create, 2 to update, 1 to delete, 1 unchanged.',
        '',
      ].join('\n'),
    );

    const json = await cli(['markings', 'apply', '-f', path, '--prune', '--dry-run', '-o', 'json']);
    const plan = JSON.parse(json.stdout);
    expect(plan.summary).toEqual({ create: 1, update: 2, delete: 1, unchanged: 1 });
    expect(plan.create[0]).toMatchObject({ name: 'fresh', source: `${path}:14:5` });
    expect(json.stderr).toBe('');

    const applied = await cli(['markings', 'apply', '-f', path, '--prune', '--yes']);
    expect(applied.code).toBe(0);
    expect(applied.stderr).toContain('applied: 1 created, 2 updated, 1 deleted');
    const fields = await marking('fields');
    expect(fields).toMatchObject({ public: true, adminOnly: true, defaultValue: 'a' });
    expect(fields.detail.description).toBe('new');
    const values = await marking('values');
    expect(values.detail.values?.map((v) => [v.name, v.description])).toEqual([
      ['added', 'fresh'],
      ['edit', 'changed'],
      ['keep', 'k'],
    ]);
    const again = await cli(['markings', 'apply', '-f', path, '--prune', '--dry-run']);
    expect(again.stdout).toBe('No changes. 4 markings are up to date.\n');
  });

  it('--dry-run --exit-code exits 10 on changes and 0 without; nothing is written', async () => {
    const before = (await mock.journal()).length;
    const changes = await cli(['markings', 'apply', '-f', EXAMPLE, '--dry-run', '--exit-code']);
    expect(changes.code).toBe(10);
    expect(writesIn(await journalSince(before))).toEqual([]);
    await cli(['markings', 'apply', '-f', EXAMPLE]);
    const none = await cli(['markings', 'apply', '-f', EXAMPLE, '--dry-run', '--exit-code']);
    expect(none.code).toBe(0);
    const misuse = await cli(['markings', 'apply', '-f', EXAMPLE, '--exit-code']);
    expect(misuse.code).toBe(2);
    expect(misuse.stderr).toContain('--exit-code goes with --dry-run');
  });

  it('draws a progress bar on a terminal only, and clears it before the summary', async () => {
    const onTerminal = await cli(['markings', 'apply', '-f', EXAMPLE], { tty: true });
    expect(onTerminal.stderr).toMatch(
      /^\r\x1b\[2KApplying 5 changes \[█{30}\] 5\/5\r\x1b\[2Kapplied: 5 created/,
    );
    await mock.reset();
    const piped = await cli(['markings', 'apply', '-f', EXAMPLE]);
    expect(piped.stderr).toBe('applied: 5 created, 0 updated, 0 deleted\n');
  });

  it('folds a plan of more than 30 changes on a terminal; --verbose and pipes list every line', async () => {
    await bulkCreate(
      Array.from({ length: 3 }, (_, i) => ({
        name: `old-${i}`,
        detail: { values: [{ name: 'a' }, { name: 'b' }] },
      })),
    );
    const yaml = [
      'markings:',
      ...Array.from({ length: 32 }, (_, i) => `  - name: new-${i}\n    values: [x, y]`),
      '  - name: old-0\n    values: [a, c, d]',
    ].join('\n');
    const path = await file('many.yaml', `${yaml}\n`);
    const args = ['markings', 'apply', '-f', path, '--dry-run', '--prune'];

    const folded = await cli(args, { tty: true });
    expect(folded.code).toBe(0);
    expect(folded.stdout).toContain('+ 32 markings to create (64 values)');
    expect(folded.stdout).toMatch(/^~ 1 marking to update with 2 value additions and 1 removal$/m);
    expect(folded.stdout).toContain('- 2 markings to delete (4 values)');
    expect(folded.stdout).toContain('--verbose');
    expect(folded.stdout).not.toContain('+ create new-0');
    expect(folded.stdout).toContain('Plan: 32 to create, 1 to update, 2 to delete');

    for (const every of [await cli([...args, '--verbose'], { tty: true }), await cli(args)]) {
      expect(every.stdout).toContain('+ create new-31');
      expect(every.stdout).toContain('- value b');
      expect(every.stdout).toContain('- delete old-2');
      expect(every.stdout).not.toContain('to create (');
    }
  });

  it('-o json: stdout holds only the run report', async () => {
    const result = await cli(['markings', 'apply', '-f', EXAMPLE, '-o', 'json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.summary).toEqual({ created: 5, updated: 0, deleted: 0, failed: 0, skipped: 0 });
    expect(report.applied).toContainEqual({ name: 'region', action: 'create' });
    expect(report.interrupted).toBe(false);
  });

  it('refuses invalid files before any request, with file:line:column, exit 3', async () => {
    const bad = await file(
      'bad.yaml',
      'markings:\n  - name: ok\n  - name: flags\n    public: yes please\n  - name: " padded"\n',
    );
    const good = await file('good.json', '{"markings": [{"name": "ok"}]}');
    const result = await cli(['markings', 'apply', '-f', good, '-f', bad]);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      [
        'error: invalid markings files (3 problems; nothing was sent)',
        `  ${bad}:2:11: marking "ok" is defined more than once (first at ${good}:1:24)`,
        `  ${bad}:4:13: public must be true or false, found the text "yes please"`,
        `  ${bad}:5:11: marking name " padded" must not start or end with white space`,
        'hint: fix the files and run the command again',
        '',
      ].join('\n'),
    );
    expect(result.stdout).toBe('');
    expect(await mock.journal()).toEqual([]);
  });

  it('reads stdin and directories', async () => {
    const fromStdin = await cli(['markings', 'apply', '-f', '-'], {
      stdin: '{"markings": [{"name": "piped", "values": ["a"]}]}',
    });
    expect(fromStdin.code).toBe(0);
    expect(valueNames(await marking('piped'))).toEqual(['a']);

    const folder = join(dir, 'folder');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'a.yaml'), 'markings:\n  - name: from-a\n');
    await writeFile(join(folder, 'b.json'), '{"markings": [{"name": "from-b"}]}');
    await writeFile(join(folder, 'notes.txt'), 'not markings');
    const fromFolder = await cli(['markings', 'apply', '-f', folder]);
    expect(fromFolder.code).toBe(0);
    expect(fromFolder.stdout).toContain('+ create from-a\n+ create from-b\n');
  });

  it('--prune asks on a terminal, needs --yes elsewhere, and --dry-run never asks', async () => {
    await bulkCreate([{ name: 'stray' }]);
    const empty = await file('empty.yaml', 'markings: []\n');

    const piped = await cli(['markings', 'apply', '-f', empty, '--prune']);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('hint: pass --yes');
    expect(piped.stdout).toContain('- delete stray (0 values)');

    const declined = await cli(['markings', 'apply', '-f', empty, '--prune'], {
      tty: true,
      answers: [false],
    });
    expect(declined.code).toBe(2);
    expect(declined.questions).toEqual([
      'Delete 1 marking that no file lists ("stray") with all their values?',
    ]);
    await marking('stray');

    const confirmed = await cli(['markings', 'apply', '-f', empty, '--prune'], {
      tty: true,
      answers: [true],
    });
    expect(confirmed.code).toBe(0);
    await expect(marking('stray')).rejects.toThrow('no marking stray');

    await bulkCreate([{ name: 'stray' }]);
    const yes = await cli(['markings', 'apply', '-f', empty, '--prune', '--yes']);
    expect(yes.code).toBe(0);
    expect(yes.stderr).toContain('0 created, 0 updated, 1 deleted');
  });

  it('sends 2,500 new markings in three Create or Update Multiple requests', async () => {
    const markings = Array.from({ length: 2500 }, (_, i) => ({
      name: `m-${String(i).padStart(4, '0')}`,
      values: ['a', 'b'],
    }));
    const path = await file('many.json', JSON.stringify({ markings }));
    const result = await cli(['markings', 'apply', '-f', path]);
    expect(result.code).toBe(0);
    const writes = writesIn(await mock.journal());
    expect(writes.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(
      Array(3).fill(`POST ${basePath}/markings?valueLimit=0 200`),
    );
    const before = (await mock.journal()).length;
    const again = await cli(['markings', 'apply', '-f', path]);
    expect(again.stdout).toBe('No changes. 2500 markings are up to date.\n');
    expect(writesIn(await journalSince(before))).toEqual([]);
  });

  it('adds one value to a marking of many with one small request', async () => {
    const values = Array.from({ length: 2000 }, (_, i) => `v-${String(i).padStart(4, '0')}`);
    await bulkCreate([{ name: 'big', detail: { values: values.map((name) => ({ name })) } }]);
    const path = await file(
      'big.json',
      JSON.stringify({ markings: [{ name: 'big', values: [...values, 'v-new'] }] }),
    );
    const before = (await mock.journal()).length;
    const result = await cli(['markings', 'apply', '-f', path]);
    expect(result.code).toBe(0);
    const writes = writesIn(await journalSince(before));
    const big = await marking('big');
    expect(writes.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST ${basePath}/markings/${big.id}/values`,
    ]);
    expect(writes[0]?.requestBytes).toBeLessThan(2048);
  });

  it('a failing marking does not stop the others; the exit code is its; a rerun converges', async () => {
    const values = Array.from({ length: 1000 }, (_, i) => ({ name: `v-${i}` }));
    await bulkCreate([{ name: 'big', detail: { values } }, { name: 'doomed' }]);
    const big = await marking('big');
    const doomed = await marking('doomed');
    const path = await file(
      'partial.yaml',
      [
        'markings:',
        '  - name: big',
        '    values:',
        ...values.map((v) => `      - ${v.name}`),
        '      - added',
        '  - name: new-one',
        '  - name: doomed',
        '    description: changed',
        '',
      ].join('\n'),
    );
    await mock.setFaults([
      { method: 'POST', path: `${basePath}/markings/${big.id}/values`, status: 500 },
    ]);
    const failed = await cli(['markings', 'apply', '-f', path]);
    expect(failed.code).toBe(7);
    expect(failed.stderr).toMatch(/✗ update big: [^]*\[E_SERVICE, cid /);
    expect(failed.stderr).toContain('applied: 1 created, 1 updated, 0 deleted; 1 failed');
    expect((await marking('doomed')).detail.description).toBe('changed');
    await marking('new-one');
    expect(doomed.id).toBe((await marking('doomed')).id);

    await mock.setFaults([]);
    const rerun = await cli(['markings', 'apply', '-f', path]);
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toContain('~ update big\n    + value added\n');
    expect(rerun.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete, 2 unchanged.');
    const last = await cli(['markings', 'apply', '-f', path, '--dry-run', '--exit-code']);
    expect(last.code).toBe(0);
  });

  it('a conflict outranks an outage in the exit code', async () => {
    await bulkCreate([{ name: 'one' }, { name: 'two' }]);
    const one = await marking('one');
    const two = await marking('two');
    const empty = await file('none.yaml', 'markings: []\n');
    await mock.setFaults([
      { method: 'DELETE', path: `${basePath}/markings/${one.id}`, status: 500 },
      { method: 'DELETE', path: `${basePath}/markings/${two.id}`, status: 409 },
    ]);
    const result = await cli(['markings', 'apply', '-f', empty, '--prune', '--yes', '-o', 'json']);
    expect(result.code).toBe(6);
    const report = JSON.parse(result.stdout);
    expect(
      report.failed.map((f: { name: string; exitCode: number }) => [f.name, f.exitCode]),
    ).toEqual([
      ['one', 7],
      ['two', 6],
    ]);
  });

  it('-f README.md lists its problems, each on one short line, not 37 KB', async () => {
    const result = await cli(['markings', 'apply', '-f', join(ROOT, 'README.md')]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /^error: invalid markings files \(\d+ problems; nothing was sent\)$/m,
    );
    expect(result.stderr.length).toBeLessThan(8000);
    for (const line of result.stderr.split('\n')) expect(line.length).toBeLessThan(300);
  });

  it('-f - on a terminal says it reads standard input and how to end it', async () => {
    const result = await cli(['markings', 'apply', '-f', '-', '--dry-run'], {
      tty: true,
      stdin: 'markings:\n  - name: region\n    values: [eu]\n',
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^reading markings \(YAML or JSON\) from standard input; end it with Ctrl-D/m,
    );
    const piped = await cli(['markings', 'apply', '-f', '-', '--dry-run'], {
      stdin: 'markings:\n  - name: region\n    values: [eu]\n',
    });
    expect(piped.stderr).not.toMatch(/standard input/);
  });
});

describe('markings export', () => {
  it('exports a seeded tenant so that applying it plans no change', async () => {
    const seeded = await startMock({
      seed: {
        markings: [
          {
            name: 'classification',
            description: 'Data classification level',
            defaultValue: 'internal',
            values: ['public', { name: 'internal', description: 'Staff only' }],
          },
          { name: 'empty', public: true },
          { name: '1001', adminOnly: true, values: ['true', 'null', '0x10', 'x'] },
          {
            name: 'big',
            values: Array.from({ length: 3000 }, (_, i) => `v-${i}`),
          },
        ],
      },
    });
    try {
      const seededCli = cliFor(() => mockEnv(seeded, join(dir, 'config')));
      const yaml = await seededCli(['markings', 'export']);
      expect(yaml.code).toBe(0);
      expect(yaml.stdout).toMatch(/^markings:\n {2}- name: "1001"\n {4}adminOnly: true\n/);
      const exported = await file('export.yaml', yaml.stdout);
      const plan = await seededCli([
        'markings',
        'apply',
        '-f',
        exported,
        '--dry-run',
        '--exit-code',
      ]);
      expect(plan.stdout).toBe('No changes. 4 markings are up to date.\n');
      expect(plan.code).toBe(0);

      const target = join(dir, 'export.json');
      const json = await seededCli(['markings', 'export', '--file', target, '-o', 'json']);
      expect(json.stdout).toBe('');
      expect(json.stderr).toBe(`exported 4 markings with 3006 values to ${target}\n`);
      expect(JSON.parse(await readFile(target, 'utf8')).markings).toHaveLength(4);
      const fromJson = await seededCli([
        'markings',
        'apply',
        '-f',
        target,
        '--dry-run',
        '--exit-code',
      ]);
      expect(fromJson.code).toBe(0);

      const filtered = await seededCli(['markings', 'export', '--starts-with', 'cl', '-o', 'json']);
      expect(JSON.parse(filtered.stdout)).toEqual({
        markings: [
          {
            name: 'classification',
            description: 'Data classification level',
            defaultValue: 'internal',
            values: [{ name: 'internal', description: 'Staff only' }, 'public'],
          },
        ],
      });
    } finally {
      await seeded.close();
    }
  });
});

describe('markings export -o', () => {
  const seeded = mockSuite({
    seed: { markings: [{ name: 'classification', values: ['a'] }] },
    dirPerTest: true,
  });

  it('table is a usage error (it wrote YAML silently), and yaml and json still work', async () => {
    await expectUsageError(
      seeded.mock,
      await seeded.ksctl(['markings', 'export', '-o', 'table']),
      /markings export writes yaml or json, not a table\nhint: pass -o yaml \(the default\) or -o json/,
    );
    const yaml = await seeded.ksctl(['markings', 'export', '-o', 'yaml']);
    expect(yaml).toMatchObject({ code: 0 });
    expect(yaml.stdout).toMatch(/^markings:\n {2}- name: classification/);
    const json = await seeded.ksctl(['markings', 'export', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ markings: [{ name: 'classification' }] });
  });
});

describe('markings create|update -f', () => {
  it('creates a marking from a document, as itself or as a list of one', async () => {
    const single = await file(
      'single.yaml',
      'name: classification\ndescription: Levels\ndefaultValue: internal\nvalues:\n  - public\n  - {name: internal, description: Staff only}\n',
    );
    const created = await cli(['markings', 'create', '-f', single, '-o', 'json']);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      name: 'classification',
      defaultValue: 'internal',
      detail: { description: 'Levels', valueCount: 2 },
    });
    const listed = await cli(['markings', 'create', '-f', '-'], {
      stdin: '{"markings": [{"name": "region", "public": true, "values": ["eu"]}]}',
    });
    expect(listed.code).toBe(0);
    expect((await marking('region')).public).toBe(true);

    const two = await file('two.yaml', 'markings:\n  - name: a\n  - name: b\n');
    const refused = await cli(['markings', 'create', '-f', two]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('holds 2 markings; a marking document holds one');
    const mixed = await cli(['markings', 'create', '-f', single, '--public']);
    expect(mixed.code).toBe(2);
    const invalid = await file('invalid.yaml', 'name: x\nvalues: [a, a]\n');
    const before = (await mock.journal()).length;
    const bad = await cli(['markings', 'create', '-f', invalid]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain(`${invalid}:2:13: value "a" is listed twice`);
    expect(await journalSince(before)).toEqual([]);
  });

  it('updates a marking to the document: fields, rename, and the complete set of values', async () => {
    await bulkCreate([
      {
        name: 'classification',
        detail: { values: [{ name: 'public', description: 'Anyone' }, { name: 'secret' }] },
      },
    ]);
    const doc = await file(
      'update.yaml',
      'name: data-classification\nadminOnly: true\ndefaultValue: internal\nvalues: [public, internal]\n',
    );
    const refused = await cli(['markings', 'update', 'classification', '-f', doc]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'remove 1 value from marking "classification": "secret": confirmation needed',
    );
    const result = await cli(['markings', 'update', 'classification', '-f', doc, '--yes']);
    expect(result.code).toBe(0);
    // The words, whatever lines the message is broken over.
    expect(result.stderr.replace(/\s+/g, ' ')).toContain(
      `updated marking data-classification (renamed from classification) from ${doc}: added value "internal"; changed name (to "data-classification"), admin-only, default value; removed value "secret"`,
    );
    const updated = await marking('data-classification');
    expect(updated).toMatchObject({ adminOnly: true, defaultValue: 'internal' });
    // A value the document lists by name only keeps its description.
    expect(updated.detail.values?.map((v) => [v.name, v.description])).toEqual([
      ['internal', ''],
      ['public', 'Anyone'],
    ]);
    const writes = writesIn(await mock.journal()).slice(1);
    expect(writes.map((r) => r.method)).toEqual(['PUT']);
  });
});

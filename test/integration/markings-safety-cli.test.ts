/**
 * Issue 10: no markings command removes values or markings without listing them and asking (or
 * --yes), everything that can be checked is checked before the first request, and a command that
 * fails half-way says what it changed and what it did not.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Marking } from '../../src/common/markings/wire.js';
import type { JournalEntry } from '../../src/common/mock/wire.js';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite();
const { ksctl } = suite;

beforeEach(async () => {
  const created = await ksctl([
    'markings',
    'create',
    'classification',
    '--description',
    'Data classification level',
    '--value',
    'a',
    '--value',
    'b',
    '--value',
    'c',
    '--value',
    'internal',
    '--default-value',
    'internal',
  ]);
  expect(created.code).toBe(0);
  writesBefore = (await suite.mock.journal()).length;
});

let writesBefore = 0;
/** Requests that change something, sent since the test's marking was created. */
async function writesSince(): Promise<JournalEntry[]> {
  return (await suite.mock.journal()).slice(writesBefore).filter((r) => r.method !== 'GET');
}

async function classification(): Promise<Marking> {
  const result = await ksctl(['markings', 'get', 'classification', '-o', 'json']);
  return JSON.parse(result.stdout) as Marking;
}
const valueNames = (m: Marking) => m.detail.values!.map((v) => v.name);

describe('removing values asks first, or needs --yes', () => {
  const setZ = [
    'markings',
    'update',
    'classification',
    '--set-values',
    'z',
    '--set-values',
    'internal',
  ];
  const removeAB = [
    'markings',
    'update',
    'classification',
    '--remove-value',
    'a',
    '--remove-value',
    'b',
  ];

  it.each([
    ['--set-values', setZ, 'remove 3 values from marking "classification": "a", "b", "c"'],
    ['--remove-value', removeAB, 'remove 2 values from marking "classification": "a", "b"'],
  ])(
    '%s off a terminal: usage error naming --yes and listing what goes; nothing sent',
    async (_, argv, listed) => {
      const result = await ksctl(argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`error: ${listed}: confirmation needed`);
      expect(result.stderr).toContain('--yes');
      expect(await writesSince()).toEqual([]);
      expect(valueNames(await classification())).toEqual(['a', 'b', 'c', 'internal']);
    },
  );

  it('on a terminal: lists the values in the question; no keeps everything', async () => {
    const declined = await ksctl(setZ, { tty: true, answers: [false] });
    expect(declined.code).toBe(2);
    expect(declined.questions).toEqual([
      'Remove 3 values from marking "classification": "a", "b", "c"?',
    ]);
    expect(declined.stderr).toContain('cancelled; nothing was changed');
    expect(await writesSince()).toEqual([]);
  });

  it('on a terminal, yes: removes them and reports what was removed and added', async () => {
    const confirmed = await ksctl(setZ, { tty: true, answers: [true] });
    expect(confirmed.code).toBe(0);
    expect(confirmed.stderr).toBe(
      'updated marking classification: added value "z"; removed values "a", "b", "c"\n',
    );
    expect(valueNames(await classification())).toEqual(['internal', 'z']);
  });

  it('--yes removes without a question and names what went', async () => {
    const result = await ksctl([...removeAB, '--yes'], { tty: true });
    expect(result.code).toBe(0);
    expect(result.questions).toEqual([]);
    expect(result.stderr).toBe('updated marking classification: removed values "a", "b"\n');
  });

  it('a long list is cut in the question, and says how many more', async () => {
    const many = Array.from({ length: 30 }, (_, i) => `v${String(i).padStart(2, '0')}`);
    await ksctl(['markings', 'values', 'add', 'classification', ...many]);
    const result = await ksctl(setZ);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('remove 33 values from marking "classification": "a", "b"');
    expect(result.stderr).toContain('… and 23 more: confirmation needed');
  });

  it('markings apply whose plan removes values: asks, needs --yes, and reports what went', async () => {
    const file = join(suite.configDir, 'remove.yaml');
    await writeFile(
      file,
      'markings:\n  - name: classification\n    defaultValue: internal\n    values: [a, internal]\n',
    );
    const piped = await ksctl(['markings', 'apply', '-f', file]);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain(
      'remove 2 values (classification: "b", "c"): confirmation needed',
    );
    expect(await writesSince()).toEqual([]);

    const declined = await ksctl(['markings', 'apply', '-f', file], {
      tty: true,
      answers: [false],
    });
    expect(declined.code).toBe(2);
    expect(declined.questions).toEqual(['Remove 2 values (classification: "b", "c")?']);
    expect(await writesSince()).toEqual([]);

    const applied = await ksctl(['markings', 'apply', '-f', file, '--yes']);
    expect(applied.code).toBe(0);
    expect(applied.stderr).toContain('Removed from classification: 2 values ("b", "c").');
    expect(valueNames(await classification())).toEqual(['a', 'internal']);
  });

  it('adding values only never asks', async () => {
    const result = await ksctl(['markings', 'update', 'classification', '--add-value', 'd']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('updated marking classification: added value "d"\n');
  });
});

describe('everything is checked before the first request', () => {
  it('an added value that exists: exit 6, nothing sent, description unchanged', async () => {
    const result = await ksctl([
      'markings',
      'update',
      'classification',
      '--description',
      'CHANGED',
      '--add-value',
      'newone',
      '--add-value',
      'internal',
    ]);
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(
      'marking "classification" already has a value named "internal"; nothing was sent',
    );
    expect(await writesSince()).toEqual([]);
    const after = await classification();
    expect(after.detail.description).toBe('Data classification level');
    expect(valueNames(after)).not.toContain('newone');
  });

  it.each([
    [['--add-value', 'x', '--remove-value', 'nope'], 5, 'value "nope" not found'],
    [['--add-value', 'x', '--default-value', 'nope'], 3, '"nope" is not one of the marking'],
    [['--add-value', 'x', '--remove-value', 'internal', '--yes'], 6, 'is the default value'],
    [['--add-value', 'x', '--rename', 'taken'], 6, 'a marking named "taken" already exists'],
    [['--add-value', 'x', '--description', 'd'.repeat(4097)], 3, 'at most 4096 characters'],
    [['--set-values', 'a', '--yes'], 6, 'is the default value'],
  ])('%j: exit %i and nothing sent', async (flags, code, message) => {
    await suite.mock.call('POST', '/v2/dev/markings', { name: 'taken' });
    writesBefore = (await suite.mock.journal()).length;
    const result = await ksctl(['markings', 'update', 'classification', ...flags]);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('nothing was sent');
    expect(await writesSince()).toEqual([]);
  });

  it('a request failing midway: says what was changed, what failed and what was not sent', async () => {
    await suite.mock.setFaults([{ method: 'PUT', path: '/v2/dev/markings/*', status: 500 }]);
    const result = await ksctl([
      'markings',
      'update',
      'classification',
      '--add-value',
      'newone',
      '--description',
      'CHANGED',
      '--remove-value',
      'a',
      '--yes',
      '--quiet',
    ]);
    expect(result.code).toBe(7);
    expect(result.stderr).toContain(
      'marking "classification" was changed in part: added value "newone". Failed: change description. Not sent: remove value "a".',
    );
    await suite.mock.setFaults([]);
    const after = await classification();
    expect(valueNames(after)).toEqual(['a', 'b', 'c', 'internal', 'newone']);
    expect(after.detail.description).toBe('Data classification level');
  });

  it('the first request failing: says the marking was not changed', async () => {
    await suite.mock.setFaults([{ method: 'POST', path: '/v2/dev/markings/*', status: 500 }]);
    const result = await ksctl([
      'markings',
      'update',
      'classification',
      '--add-value',
      'newone',
      '--description',
      'CHANGED',
    ]);
    expect(result.code).toBe(7);
    expect(result.stderr).toContain(
      'marking "classification" was not changed. Failed: add value "newone". Not sent: change description.',
    );
  });
});

describe('deleting several, one request each', () => {
  it('markings delete: a failure midway says what was deleted and what was not sent', async () => {
    for (const name of ['x', 'y', 'z']) await ksctl(['markings', 'create', name]);
    const y = JSON.parse((await ksctl(['markings', 'get', 'y', '-o', 'json'])).stdout) as Marking;
    await suite.mock.setFaults([
      { method: 'DELETE', path: `/v2/dev/markings/${y.id}`, status: 500 },
    ]);
    const result = await ksctl(['markings', 'delete', 'x', 'y', 'z', '--yes', '--quiet']);
    expect(result.code).toBe(7);
    expect(result.stderr).toContain('deleted "x"; failed: "y"; not sent: "z"');
  });

  it('values delete: the same', async () => {
    const marking = await classification();
    const b = marking.detail.values!.find((v) => v.name === 'b')!;
    await suite.mock.setFaults([
      { method: 'DELETE', path: `/v2/dev/markings/${marking.id}/values/${b.id}`, status: 500 },
    ]);
    const result = await ksctl([
      'markings',
      'values',
      'delete',
      'classification',
      'a',
      'b',
      'c',
      '--yes',
    ]);
    expect(result.code).toBe(7);
    expect(result.stderr).toContain('deleted "a"; failed: "b"; not sent: "c"');
    await suite.mock.setFaults([]);
    expect(valueNames(await classification())).toEqual(['b', 'c', 'internal']);
  });
});

describe('adding several values, one request each', () => {
  it('names the values added before the failure and exits with the failure', async () => {
    const { api } = suite;
    await api.createMarking({ name: 'region', detail: { values: [{ name: 'us' }] } });
    const result = await ksctl(['markings', 'values', 'add', 'region', 'eu', 'us', 'apac']);
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('added eu to marking region before the failure');
    const values = [];
    for await (const v of api.listValues((await api.resolveMarking('region')).id)) {
      values.push(v.name);
    }
    expect(values).toEqual(['eu', 'us']);
  });
});

describe('markings export --file', () => {
  it('refuses a folder that does not exist, before reading anything, and creates none (exit 3)', async () => {
    const folder = join(suite.configDir, 'exports', 'today');
    const before = (await suite.mock.journal()).length;
    for (const file of [join(folder, 'markings.yaml'), 'no-such-folder/m.yaml']) {
      const result = await ksctl(['markings', 'export', '--file', file]);
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toMatch(
        /^error: cannot write .*m(arkings)?\.yaml: the folder .* does not exist\n/,
      );
      expect(result.stderr).toContain('hint: create it first (mkdir -p ');
    }
    expect(existsSync(join(suite.configDir, 'exports'))).toBe(false);
    expect((await suite.mock.journal()).slice(before)).toEqual([]);

    await mkdir(folder, { recursive: true });
    const written = await ksctl(['markings', 'export', '--file', join(folder, 'markings.yaml')]);
    expect(written.code).toBe(0);
    expect(await readFile(join(folder, 'markings.yaml'), 'utf8')).toContain('name: classification');
  });

  it('refuses a "folder" that is a file (exit 3)', async () => {
    const plain = join(suite.configDir, 'plain-file');
    await writeFile(plain, 'x\n');
    const result = await ksctl(['markings', 'export', '--file', join(plain, 'm.yaml')]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`${plain} is not a folder`);
  });

  it('keeps a file that has content unless --force, before reading anything (exit 6)', async () => {
    const file = join(suite.configDir, 'kept.yaml');
    await writeFile(file, 'mine\n');
    const before = (await suite.mock.journal()).length;
    const refused = await ksctl(['markings', 'export', '--file', file]);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain(`${file} already exists and is not empty`);
    expect(refused.stderr).toContain('--force');
    expect(await readFile(file, 'utf8')).toBe('mine\n');
    expect((await suite.mock.journal()).slice(before)).toEqual([]);

    const forced = await ksctl(['markings', 'export', '--file', file, '--force']);
    expect(forced.code).toBe(0);
    expect(await readFile(file, 'utf8')).toContain('name: classification');
  });

  it('writes over an empty file without --force', async () => {
    const file = join(suite.configDir, 'empty.yaml');
    await writeFile(file, '');
    expect((await ksctl(['markings', 'export', '--file', file])).code).toBe(0);
    expect(await readFile(file, 'utf8')).toContain('name: classification');
  });
});

describe('a comma in a value flag is never one value', () => {
  // `--set-values public,internal` was the value "public,internal", removing "a", "b", "c" and
  // "internal"; every value flag refuses a list before any request, and says how to mean it.
  const lists = ['a,b', 'z,internal', 'a, b', ',a', 'a,', 'new,one=with, a description'];
  it.each(
    ['--set-values', '--add-value', '--remove-value', '--value'].flatMap((flag) =>
      lists.map((list) => [flag, list] as const),
    ),
  )('%s %j: exit 2, a hint to repeat the flag, nothing sent', async (flag, list) => {
    const argv =
      flag === '--value'
        ? ['markings', 'create', 'other', flag, list]
        : ['markings', 'update', 'classification', flag, list, '--yes'];
    const result = await ksctl(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `error: ${flag} "${list}": one flag takes one value, not a list`,
    );
    expect(result.stderr).toContain('write \\, for a comma that is part of the name');
    const names = list
      .replace(/=.*/, '')
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    if (names.length > 1) {
      expect(result.stderr).toContain(names.map((n) => `${flag} ${n}`).join(' '));
    }
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await writesSince()).toEqual([]);
    expect(valueNames(await classification())).toEqual(['a', 'b', 'c', 'internal']);
  });

  it('\\, is a comma in the name: --add-value "x\\,y" adds the one value "x,y"', async () => {
    const added = await ksctl(['markings', 'update', 'classification', '--add-value', 'x\\,y']);
    expect(added.code).toBe(0);
    expect(valueNames(await classification())).toEqual(['a', 'b', 'c', 'internal', 'x,y']);
    const removed = await ksctl([
      'markings',
      'update',
      'classification',
      '--remove-value',
      'x\\,y',
      '--yes',
    ]);
    expect(removed.code).toBe(0);
    expect(valueNames(await classification())).toEqual(['a', 'b', 'c', 'internal']);
  });

  it('a comma in the description alone is fine', async () => {
    const added = await ksctl([
      'markings',
      'update',
      'classification',
      '--add-value',
      'secret=need to know, only',
    ]);
    expect(added.code).toBe(0);
    const secret = (await classification()).detail.values!.find((v) => v.name === 'secret');
    expect(secret?.description).toBe('need to know, only');
  });
});

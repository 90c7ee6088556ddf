/**
 * Issue 26: snapshots hold a marking's values packed (`marking.packed`, state format 3), their
 * columns kept apart and read when first used (format 4). A directory of format 2 or 3 (checked
 * in, written by the ksctl before) restarts into the same state and is rewritten as format 4; a
 * damaged packed line is told with its file and line, and `recover` keeps every other record.
 */
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import type { Marking } from '../../src/common/markings/wire.js';
import { DurableState } from '../../src/mock/model/durable-state.js';
import { journalHeaderLine, recordLine } from '../../src/mock/persistence/integrity.js';
import type { MockState } from '../../src/mock/model/state.js';
import { runCli } from '../helpers/cli.js';
import { MOCK_STATE_FORMAT2, MOCK_STATE_FORMAT3 } from '../helpers/fixtures.js';
import { tempDirs } from '../helpers/temp.js';
import { call, startMock } from './mock-enroll-fixtures.js';
import { openDurableState } from '../helpers/durable-state.js';

const dirs = tempDirs();
afterAll(() => dirs.removeAll());
const actor = { name: 'tester' };
/** A lock file of a process that is gone: the last mock died. */
const DEAD_HOLDER = `${2 ** 22 + 1}\n`;

const openState = (dir: string) => openDurableState(dir, 'ksdev.format');

/** Per tenant, every marking with its values, as the store lists them. */
function markingsOf(state: MockState): Record<string, unknown> {
  const held: Record<string, unknown> = {};
  for (const [id, tenant] of state.tenants) held[id] = [...tenant.markings.records()];
  return held;
}

/** The record kinds of a state file, line by line (its header first). */
async function kindsOf(path: string): Promise<string[]> {
  const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
  return lines.map((line) => String((JSON.parse(line) as { k?: unknown; file?: unknown }).k));
}

/** A state of three markings of two values each ("first-a", …), compacted into its snapshot. */
async function threeMarkingsCompacted(dir: string) {
  const s = await openState(dir);
  for (const name of ['first', 'second', 'third']) {
    s.markings.create(
      { name, detail: { values: [{ name: `${name}-a` }, { name: `${name}-b` }] } },
      actor,
    );
  }
  await s.durable.compact();
  return s;
}

const headerOf = async (path: string) =>
  JSON.parse((await readFile(path, 'utf8')).split('\n')[0]!) as Record<string, unknown>;

/**
 * A copy of a checked-in state directory (its snapshot and journal of generation 2), which `mock
 * state check` finds whole in `format`, and the markings it holds (expected-markings.json).
 */
async function fixtureState(fixture: string, format: number) {
  const dir = await dirs.make();
  for (const name of ['snapshot.jsonl', 'journal-2.jsonl']) {
    await copyFile(join(fixture, name), join(dir, name));
  }
  const expected = await readFile(join(fixture, 'expected-markings.json'), 'utf8');
  const checked = await runCli(['mock', 'state', 'check', dir]);
  expect(checked.code).toBe(0);
  expect(checked.stdout).toMatch(new RegExp(`snapshot\\.jsonl: format ${format}, generation 2`));
  return { dir, expected };
}

/** A moved directory restarts from format 4 into `markings` (their JSON), and checks whole. */
async function expectRestartsAs(dir: string, markings: string) {
  const again = await openState(dir);
  expect(JSON.stringify(markingsOf(again.state))).toBe(markings);
  await again.durable.close();
  const rechecked = await runCli(['mock', 'state', 'check', dir]);
  expect(rechecked.code).toBe(0);
  expect(rechecked.stdout).toMatch(/snapshot\.jsonl: format 4, generation 3/);
}

describe('a format-2 directory', () => {
  it('restarts into the same state, every member of every value, and is rewritten as format 4', async () => {
    const { dir, expected: text } = await fixtureState(MOCK_STATE_FORMAT2, 2);
    const expected = JSON.parse(text) as Record<string, unknown>;

    const s = await openState(dir);
    expect(markingsOf(s.state)).toEqual(expected);
    // Member order too: what the mock answers lists the members as they are held.
    expect(JSON.stringify(markingsOf(s.state))).toBe(JSON.stringify(expected));
    expect(s.state.users.get('zoe')?.enabled).toBe(true);
    expect(s.state.devToken).toBe('ksdev.format2');
    await s.durable.close();

    const files = (await readdir(dir)).sort();
    expect(files).toEqual(['journal-3.jsonl', 'snapshot.jsonl']);
    expect(await headerOf(join(dir, 'snapshot.jsonl'))).toMatchObject({
      version: 4,
      generation: 3,
    });
    expect(await headerOf(join(dir, 'journal-3.jsonl'))).toMatchObject({ version: 4 });
    const kinds = await kindsOf(join(dir, 'snapshot.jsonl'));
    expect(kinds.filter((k) => k === 'marking.packed')).toHaveLength(4);
    expect(kinds).not.toContain('marking.full');

    await expectRestartsAs(dir, JSON.stringify(expected));
  });
});

describe('a format-3 directory', () => {
  it('restarts into the same state, every member of every value, and is rewritten as format 4', async () => {
    const { dir, expected } = await fixtureState(MOCK_STATE_FORMAT3, 3);

    const s = await openState(dir);
    // Member order too: what the mock answers lists the members as they are held.
    expect(JSON.stringify(markingsOf(s.state))).toBe(JSON.stringify(JSON.parse(expected)));
    await s.durable.close();
    expect((await readdir(dir)).sort()).toEqual(['journal-3.jsonl', 'snapshot.jsonl']);
    const snapshot = join(dir, 'snapshot.jsonl');
    expect(await headerOf(snapshot)).toMatchObject({ version: 4, generation: 3 });
    // Every packed marking keeps its columns apart, read when the marking is first used.
    const packed = (await readFile(snapshot, 'utf8'))
      .split('\n')
      .filter((l) => l.includes('"k":"marking.packed"'));
    expect(packed).toHaveLength(9);
    for (const line of packed)
      expect(line).toMatch(/^\{"s":\d+,"k":"marking\.packed","vn":\d+,"d":/);

    // From format 4, the markings read when first asked for: the same state again.
    await expectRestartsAs(dir, JSON.stringify(JSON.parse(expected)));
  });
});

describe('a move to format 4 cut short by a crash', () => {
  it('after its new journal, before its snapshot: the format-2 state opens and is moved again', async () => {
    const dir = await dirs.make();
    for (const name of ['snapshot.jsonl', 'journal-2.jsonl']) {
      await copyFile(join(MOCK_STATE_FORMAT2, name), join(dir, name));
    }
    // What the dead start left: the journal of format 4 that was to follow its snapshot, and its lock.
    await writeFile(
      join(dir, 'journal-3.jsonl'),
      journalHeaderLine({ generation: 3, snapshot: 'a-snapshot-never-written' }),
    );
    await writeFile(join(dir, 'lock'), DEAD_HOLDER);
    const expected = await readFile(join(MOCK_STATE_FORMAT2, 'expected-markings.json'), 'utf8');

    const s = await openState(dir);
    expect(JSON.stringify(markingsOf(s.state))).toBe(JSON.stringify(JSON.parse(expected)));
    await s.durable.close();
    expect((await readdir(dir)).sort()).toEqual(['journal-3.jsonl', 'snapshot.jsonl']);
    expect(await headerOf(join(dir, 'snapshot.jsonl'))).toMatchObject({ version: 4 });
    const again = await openState(dir);
    expect(JSON.stringify(markingsOf(again.state))).toBe(JSON.stringify(JSON.parse(expected)));
    await again.durable.close();
  });
});

describe('a damaged packed line', () => {
  it('is refused with its file and line; recover keeps every other record', async () => {
    const dir = await dirs.make();
    const s = await threeMarkingsCompacted(dir);
    const before = markingsOf(s.state);
    await s.durable.close();

    const snapshot = join(dir, 'snapshot.jsonl');
    const lines = (await readFile(snapshot, 'utf8')).split('\n');
    const at = lines.findIndex((l) => l.includes('"marking.packed"') && l.includes('second-b'));
    expect(at).toBeGreaterThan(0);
    // The damage is in the columns, which start-up keeps unparsed: the checksum still finds it.
    expect(lines[at]).toMatch(/"vn":\d+,"d":.*"v":\{.*second-b/);
    lines[at] = lines[at]!.replace('second-b', 'second-B');
    await writeFile(snapshot, lines.join('\n'));

    const refused = await DurableState.open({ dir }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InputError);
    expect((refused as Error).message).toContain(
      `snapshot.jsonl:${at + 1}: the checksum does not match`,
    );
    const checked = await runCli(['mock', 'state', 'check', dir]);
    expect(checked.code).toBe(3);
    expect(checked.stderr).toContain(`snapshot.jsonl:${at + 1}: the checksum does not match`);

    const to = join(await dirs.make(), 'recovered');
    const recovered = await runCli(['mock', 'state', 'recover', dir, '--to', to]);
    expect(recovered.code).toBe(0);
    expect(recovered.stdout).toContain(`snapshot.jsonl:${at + 1}: the checksum does not match`);
    const r = await openState(to);
    const kept = markingsOf(r.state) as Record<string, { marking: { name: string } }[]>;
    const wanted = (before as typeof kept).dev!.filter((m) => m.marking.name !== 'second');
    expect(kept.dev!.map((m) => m.marking.name)).toEqual(['first', 'third']);
    expect(kept.dev).toEqual(wanted);
    await r.durable.close();
  });
});

describe('columns that verify but do not read back (a file changed by hand)', () => {
  it('the mock starts; the first use of that marking answers an error naming the line; recover leaves it out', async () => {
    const dir = await dirs.make();
    const s = await threeMarkingsCompacted(dir);
    const before = markingsOf(s.state) as Record<string, { marking: { name: string } }[]>;
    const second = s.markings.list({ terms: [], or: false }, 0, 10, 0).items[1]!;
    await s.durable.close();

    // The line of `second` sealed again, its column of names one short: it verifies.
    const snapshot = join(dir, 'snapshot.jsonl');
    const lines = (await readFile(snapshot, 'utf8')).split('\n');
    const at = lines.findIndex((l) => l.includes('"marking.packed"') && l.includes('second-b'));
    const {
      s: seq,
      d,
      v,
    } = JSON.parse(lines[at]!) as { s: number; d: unknown; v: { name: string[] } };
    v.name.pop();
    lines[at] = recordLine(seq, 'marking.packed', d, Buffer.from(JSON.stringify(v))).trimEnd();
    await writeFile(snapshot, lines.join('\n'));

    const mock = await startMock({ stateDir: dir });
    try {
      // What needs no values answers; the marking's values answer an error naming the line.
      const listed = await call(mock, 'GET', '/v2/dev/markings?valueLimit=0', { admin: true });
      expect(listed.status).toBe(200);
      const items = (listed.body as { Resources: Marking[] }).Resources;
      expect(items.map((m) => [m.name, m.detail.valueCount])).toEqual([
        ['first', 2],
        ['second', 2],
        ['third', 2],
      ]);
      const broken = await call(mock, 'GET', `/v2/dev/markings/${second.id}`, { admin: true });
      expect(broken.status).toBe(500);
      const message = (broken.body as { error: { message: string } }).error.message;
      expect(message).toContain(`the values of marking "second" cannot be read`);
      expect(message).toContain(
        `snapshot.jsonl:${at + 1} verifies, but the column of "name" does not hold 2 entries`,
      );
      // The mock goes on serving the other markings.
      const first = await call(mock, 'GET', `/v2/dev/markings/${items[0]!.id}`, { admin: true });
      expect(first.status).toBe(200);
      expect((first.body as Marking).detail.values!.map((v) => v.name)).toEqual([
        'first-a',
        'first-b',
      ]);
    } finally {
      await mock.close();
    }

    const to = join(await dirs.make(), 'recovered');
    const recovered = await runCli(['mock', 'state', 'recover', dir, '--to', to]);
    expect(recovered.code).toBe(0);
    expect(recovered.stdout).toContain(`snapshot.jsonl:${at + 1}`);
    expect(recovered.stdout).toContain('the column of "name" does not hold 2 entries');
    const r = await openState(to);
    const kept = markingsOf(r.state) as typeof before;
    expect(kept.dev!.map((m) => m.marking.name)).toEqual(['first', 'third']);
    expect(kept.dev).toEqual(before.dev!.filter((m) => m.marking.name !== 'second'));
    await r.durable.close();
  });
});

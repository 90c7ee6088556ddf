/**
 * The durable state's engine on its own (src/mock/state/): torn tails, newer formats, damage,
 * and compaction that changes nothing but the files.
 */
import { appendFile, open as fsOpen, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { NO_FILTER } from '../../src/common/markings/filters.js';
import { InputError } from '../../src/common/errors.js';
import { journalHeaderLine, recordLine } from '../../src/mock/persistence/integrity.js';
import { DurableState, stateRecords } from '../../src/mock/model/durable-state.js';
import type { MockState } from '../../src/mock/model/state.js';
import { tempDirs } from '../helpers/temp.js';
import { openDurableState } from '../helpers/durable-state.js';

const dirs = tempDirs();
afterAll(() => dirs.removeAll());

const actor = { name: 'tester' };
/** A lock file of a process that is gone (no pid is above Linux's pid_max default): a crash. */
const DEAD_HOLDER = `${2 ** 22 + 1}\n`;

/** Every file of a directory with its bytes, to show that a refusal changed nothing. */
async function filesOf(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    files[name] = (await readFile(join(dir, name))).toString('base64');
  }
  return files;
}

const open = (dir: string, options: { compactAfterBytes?: number } = {}) =>
  openDurableState(dir, 'ksdev.unit', options);

/** The state as records, without the random id parts (a restart adds one by design). */
/** The state's records; what a record keeps apart as bytes (values not read yet) as its JSON. */
const contents = (state: MockState) =>
  [...stateRecords(state)]
    .filter(([kind]) => kind !== 'idPart')
    .map(([kind, data, kept]) => [
      kind,
      data,
      Buffer.isBuffer(kept) ? (JSON.parse(kept.toString()) as unknown) : kept,
    ]);

describe('journal', () => {
  it('ignores a torn last line with a warning, and appends after the last whole record', async () => {
    const dir = await dirs.make();
    let s = await open(dir);
    s.markings.create({ name: 'kept' }, actor);
    await s.durable.sync();
    await s.durable.close();
    const journal = join(dir, 'journal-1.jsonl');
    await appendFile(journal, '{"s":99,"k":"marking.set","d":{"tenant":"dev","mark');
    // Only a mock that died (its lock file left behind) leaves a torn line.
    const files = await filesOf(dir);
    await expect(DurableState.open({ dir })).rejects.toThrow(
      /journal-1\.jsonl: ends in an incomplete last line, but the last mock stopped cleanly/,
    );
    expect(await filesOf(dir)).toEqual(files);
    await writeFile(join(dir, 'lock'), DEAD_HOLDER);

    s = await open(dir);
    expect(s.warnings).toEqual([
      expect.stringContaining(`took over the lock of ${dir} from a mock that is not running`),
      expect.stringContaining('ignored an incomplete last line'),
    ]);
    expect(s.markings.list(NO_FILTER, 0, 10, 0).items.map((m) => m.name)).toEqual(['kept']);
    s.markings.create({ name: 'after' }, actor);
    await s.durable.sync();
    await s.durable.close();

    s = await open(dir);
    expect(s.warnings).toEqual([]);
    expect(s.markings.list(NO_FILTER, 0, 10, 0).items.map((m) => m.name)).toEqual([
      'after',
      'kept',
    ]);
    await s.durable.close();
  });

  it('writes changes made together with one write and one flush (group commit)', async () => {
    const dir = await dirs.make();
    const s = await open(dir);
    const handle = await fsOpen(join(dir, 'probe'), 'w');
    const prototype = Object.getPrototypeOf(handle) as { datasync(): Promise<void> };
    await handle.close();
    const flushes = vi.spyOn(prototype, 'datasync');
    try {
      // As 50 requests arriving together would: each changes the state, then waits for the disk.
      const waits = Array.from({ length: 50 }, (_, i) => {
        s.markings.create({ name: `together-${i}` }, actor);
        return s.durable.sync();
      });
      await Promise.all(waits);
      expect(flushes).toHaveBeenCalledTimes(1);
    } finally {
      flushes.mockRestore();
      await s.durable.close();
    }
    const reopened = await open(dir);
    expect(reopened.markings.size).toBe(50);
    await reopened.durable.close();
  });

  it('refuses a damaged line before the last, and leaves the file as it was', async () => {
    const dir = await dirs.make();
    const s = await open(dir);
    s.markings.create({ name: 'one' }, actor);
    await s.durable.sync();
    await s.durable.close();
    const journal = join(dir, 'journal-1.jsonl');
    const lines = (await readFile(journal, 'utf8')).split('\n');
    lines.splice(1, 0, 'garbage');
    await writeFile(journal, lines.join('\n'));

    const opening = DurableState.open({ dir });
    await expect(opening).rejects.toThrow(InputError);
    await expect(opening).rejects.toThrow(/journal-1\.jsonl:2: the line has no checksum/);
    expect(await readFile(journal, 'utf8')).toBe(lines.join('\n'));
    // Refused, the directory is not held: a fixed state opens.
    await writeFile(journal, lines.filter((l) => l !== 'garbage').join('\n'));
    await (await open(dir)).durable.close();
  });

  it('refuses files of a newer format and never rewrites them', async () => {
    const dir = await dirs.make();
    await (await open(dir)).durable.close();
    const snapshot = join(dir, 'snapshot.jsonl');
    const newer = (await readFile(snapshot, 'utf8')).replace('"version":4', '"version":5');
    await writeFile(snapshot, newer);
    const before = await readdir(dir);

    await expect(DurableState.open({ dir })).rejects.toThrow(
      /written by a newer ksctl \(state format 5; this ksctl reads formats 1 to 4\)/,
    );
    expect(await readFile(snapshot, 'utf8')).toBe(newer);
    expect(await readdir(dir)).toEqual(before);
  });
});

describe('a compaction cut short by a crash', () => {
  it('replays the old journal and the new one; a leftover snapshot temp file is ignored', async () => {
    const dir = await dirs.make();
    let s = await open(dir);
    s.markings.create({ name: 'in-the-old-journal' }, actor);
    await s.durable.sync();
    await s.durable.close();
    // The new journal was started, the new snapshot never renamed into place.
    const record = {
      k: 'marking.set',
      d: {
        tenant: 'dev',
        marking: {
          id: 'ffffffffffffffffffffffff',
          name: 'in-the-new-journal',
          public: false,
          adminOnly: false,
          defaultValue: null,
          description: '',
          createdTs: 1,
          createdBy: 'x',
          updatedTs: 1,
          updatedBy: 'x',
          version: 1,
        },
      },
    };
    const last = (await readFile(join(dir, 'journal-1.jsonl'), 'utf8')).trim().split('\n').at(-1)!;
    const seq = (JSON.parse(last) as { s: number }).s;
    await writeFile(
      join(dir, 'journal-2.jsonl'),
      journalHeaderLine({ generation: 2, snapshot: 'never-written' }) +
        recordLine(seq + 1, record.k, record.d) +
        recordLine(seq + 2, 'close', null),
    );
    await writeFile(join(dir, '.snapshot.jsonl.123.abc.tmp'), '{"format":"ksctl-mock-state"');

    s = await open(dir);
    expect(s.markings.list(NO_FILTER, 0, 10, 0).items.map((m) => m.name)).toEqual([
      'in-the-new-journal',
      'in-the-old-journal',
    ]);
    expect(await readdir(dir)).not.toContain('.snapshot.jsonl.123.abc.tmp');
    await s.durable.close();
  });
});

describe('lock', () => {
  it("of two mocks taking over a dead holder's lock at once, exactly one gets it", async () => {
    const dir = await dirs.make();
    // No process has pid 2^22 + 1 (above Linux's pid_max default): a dead holder.
    await writeFile(join(dir, 'lock'), `${2 ** 22 + 1}\n`);
    const results = await Promise.allSettled([
      DurableState.open({ dir }),
      DurableState.open({ dir }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(String(lost[0]?.reason)).toMatch(/in use by another mock|being taken by another mock/);
    expect((await readFile(join(dir, 'lock'), 'utf8')).split(' ')[0]).toBe(`${process.pid}`);
    expect((await readdir(dir)).filter((f) => f.startsWith('lock'))).toEqual(['lock']);
    await won[0]!.value.close();
  });
});

describe('compaction', () => {
  it('leaves the state as it was: after compaction and a restart, the same records', async () => {
    const dir = await dirs.make();
    // A small bound: compaction happens several times while the changes are made.
    let s = await open(dir, { compactAfterBytes: 20_000 });
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const m = s.markings.create(
        { name: `m${i}`, detail: { values: [{ name: 'a' }, { name: 'b' }] } },
        actor,
      );
      ids.push(m.id);
      const [a] = m.detail.values!;
      s.markings.updateValue(m.id, a!.id, { name: 'z', description: `d${i}` }, actor);
      if (i % 3 === 0) s.markings.createValue(m.id, { name: 'c' }, actor);
      if (i % 5 === 0)
        s.markings.delete(s.markings.create({ name: `tmp${i}` }, actor).id, undefined);
      // Renames that swap two names inside one bulk request.
      if (i % 7 === 6) {
        s.markings.bulk(
          [
            { id: ids[i], name: `m${i - 1}` },
            { id: ids[i - 1], name: `m${i}` },
          ],
          actor,
          0,
        );
      }
      await s.durable.sync();
    }
    s.state.users.set('zoe', { name: 'zoe', tenant: 'dev', enabled: false });
    s.state.enrollment.addDevice(
      { deviceId: 'ABcd.1.x', keyspace: 'ABcd', tenant: 'dev', user: 'zoe', createdAt: 'now' },
      { cdEi: Buffer.alloc(32, 1), cdIdc: Buffer.alloc(32, 2) },
    );
    s.state.enrollment.claimPair('jti-1');
    s.state.faults.replace([{ status: 503, times: 2 }]);
    await s.durable.compact();
    const before = contents(s.state);
    await s.durable.close();
    const files = await readdir(dir);
    expect(files.filter((f) => f.startsWith('journal-'))).toHaveLength(1);
    expect(files).not.toContain('journal-1.jsonl');

    s = await open(dir);
    expect(contents(s.state)).toEqual(before);
    expect(s.state.enrollment.keysOf('ABcd.1.x')?.cdIdc).toEqual(Buffer.alloc(32, 2));
    await s.durable.close();
  });
});

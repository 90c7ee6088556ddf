/**
 * Issue 17: a damaged state directory is never taken for an empty or a shorter one. Each damage
 * the issue found is a regression test asserting the refusal (exit 3 naming the file, the line and
 * what is wrong) and that every file is byte for byte as it was; `mock state check` and
 * `mock state recover` round trips; and a seeded corruption run (byte flips, truncations,
 * deletions): the state either opens with exactly what was acknowledged, or is refused.
 */
import {
  chmod,
  copyFile,
  mkdir,
  open,
  readdir,
  readFile,
  rm,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { DurableState, stateRecords } from '../../src/mock/model/durable-state.js';
import { MockState } from '../../src/mock/model/state.js';
import { runCli } from '../helpers/cli.js';
import { prng } from '../helpers/random.js';
import { tempDirs } from '../helpers/temp.js';
import { openDurableState } from '../helpers/durable-state.js';

const dirs = tempDirs();
afterAll(() => dirs.removeAll());
const actor = { name: 'tester' };
/** A lock file of a process that is gone: the last mock died. */
const DEAD_HOLDER = `${2 ** 22 + 1}\n`;

const openState = (dir: string, compactAfterBytes?: number) =>
  openDurableState(dir, 'ksdev.damage', { compactAfterBytes });

/** What a restart must give back: the records, without the id parts each run adds. */
const contents = (state: MockState) =>
  JSON.stringify([...stateRecords(state)].filter(([kind]) => kind !== 'idPart'));

async function filesOf(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    files[entry.name] = entry.isFile()
      ? (await readFile(join(dir, entry.name))).toString('base64')
      : 'a directory';
  }
  return files;
}

/**
 * A directory made by three runs: markings keep-0..keep-5 (the first two runs compact, so there
 * is a snapshot of generation > 1; the last run's changes are in the journal after it), every
 * change acknowledged.
 */
async function makeState(): Promise<{ dir: string; acknowledged: string }> {
  const dir = await dirs.make();
  let acknowledged = '';
  for (let run = 0; run < 3; run++) {
    // The first runs compact at every change; the last one keeps its changes in the journal.
    const s = await openState(dir, run < 2 ? 1 : undefined);
    for (const i of [2 * run, 2 * run + 1]) {
      const marking = s.markings.create({ name: `keep-${i}` }, actor);
      s.markings.createValue(marking.id, { name: `value-${i}` }, actor);
      await s.durable.sync();
    }
    acknowledged = contents(s.state);
    await s.durable.close();
  }
  return { dir, acknowledged };
}

let base: { dir: string; acknowledged: string };
beforeAll(async () => {
  base = await makeState();
});

async function copy(): Promise<string> {
  const dir = await dirs.make();
  for (const name of await readdir(base.dir)) await copyFile(join(base.dir, name), join(dir, name));
  return dir;
}

async function journalOf(dir: string): Promise<string> {
  return (await readdir(dir)).find((name) => name.startsWith('journal-'))!;
}

/** Opening is refused with exit 3 matching `message`, and no file changed. */
async function expectRefused(dir: string, message: RegExp): Promise<void> {
  const before = await filesOf(dir);
  const error = await DurableState.open({ dir }).then(
    async (durable) => {
      await durable.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputError);
  expect((error as InputError).exitCode).toBe(3);
  expect((error as Error).message).toMatch(message);
  expect(await filesOf(dir)).toEqual(before);
}

describe('the damage of issue 17 is refused, every file left as it was', () => {
  it('the state opens whole when nothing is damaged', async () => {
    const dir = await copy();
    const s = await openState(dir);
    expect(contents(s.state)).toBe(base.acknowledged);
    await s.durable.close();
  });

  it('snapshot.jsonl removed: refused, the journal kept (it used to start empty and delete it)', async () => {
    const dir = await copy();
    await rm(join(dir, 'snapshot.jsonl'));
    await expectRefused(dir, /snapshot\.jsonl: is missing, but journal-\d+\.jsonl is there/);
  });

  it('the journal removed beside its snapshot', async () => {
    const dir = await copy();
    await rm(join(dir, await journalOf(dir)));
    await expectRefused(
      dir,
      /journal-\d+\.jsonl: is missing: snapshot\.jsonl \(generation \d+\) is followed by its journal/,
    );
  });

  it('the journal emptied', async () => {
    const dir = await copy();
    await writeFile(join(dir, await journalOf(dir)), '');
    await expectRefused(dir, /journal-\d+\.jsonl: the file is empty/);
  });

  it('the snapshot emptied', async () => {
    const dir = await copy();
    await writeFile(join(dir, 'snapshot.jsonl'), '');
    await expectRefused(dir, /snapshot\.jsonl: the file is empty/);
  });

  it('a flipped byte in the last complete journal line (it used to be skipped as never acknowledged)', async () => {
    const dir = await copy();
    const path = join(dir, await journalOf(dir));
    const bytes = await readFile(path);
    const at = bytes.length - 10;
    bytes[at] = bytes[at]! ^ 0x01;
    await writeFile(path, bytes);
    const lines = bytes.toString('utf8').trimEnd().split('\n').length;
    await expectRefused(
      dir,
      new RegExp(`journal-\\d+\\.jsonl:${lines}: the checksum does not match`),
    );
  });

  it('a byte changed inside a record (keep-2 → kEep-2; it used to be served as is)', async () => {
    const dir = await copy();
    for (const name of await readdir(dir)) {
      const text = await readFile(join(dir, name), 'utf8');
      if (text.includes('keep-2'))
        await writeFile(join(dir, name), text.replace('keep-2', 'kEep-2'));
    }
    await expectRefused(
      dir,
      /\.jsonl:\d+: the checksum does not match: the line was changed or damaged/,
    );
  });

  it('a record missing from the middle of the journal: a sequence gap', async () => {
    const dir = await copy();
    const path = join(dir, await journalOf(dir));
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines.splice(2, 1);
    await writeFile(path, lines.join('\n'));
    await expectRefused(
      dir,
      /journal-\d+\.jsonl:3: sequence gap: record \d+ is missing before record \d+/,
    );
  });

  it('a damaged line is told once, not again as the sequence gap it leaves', async () => {
    const dir = await copy();
    const name = await journalOf(dir);
    const lines = (await readFile(join(dir, name), 'utf8')).split('\n');
    lines[2] = lines[2]!.replace('"s":', '"s" :');
    await writeFile(join(dir, name), lines.join('\n'));
    const error = await DurableState.open({ dir }).catch((e: unknown) => e as InputError);
    expect((error as InputError).message).toMatch(
      new RegExp(`${name}:3: the checksum does not match`),
    );
    // One problem: no detail lines under the message.
    expect((error as InputError).details).toEqual([]);
  });

  it('the journal cut at a line after a clean stop', async () => {
    const dir = await copy();
    const path = join(dir, await journalOf(dir));
    const lines = (await readFile(path, 'utf8')).split('\n');
    await writeFile(path, lines.slice(0, -2).join('\n') + '\n');
    await expectRefused(dir, /does not end with the record of a clean stop/);
  });

  it('a journal of another state directory beside this snapshot', async () => {
    const dir = await copy();
    const other = await makeState();
    const name = await journalOf(dir);
    const otherName = await journalOf(other.dir);
    await rm(join(dir, name));
    const text = await readFile(join(other.dir, otherName), 'utf8');
    await writeFile(
      join(dir, name),
      text.replace(otherName.match(/\d+/)![0], name.match(/\d+/)![0]),
    );
    await expectRefused(dir, /journal-\d+\.jsonl:1: /);
  });

  it('a state file that cannot be read is named (it used to read as "cannot listen")', async () => {
    const dir = await copy();
    const name = await journalOf(dir);
    // A directory where the journal should be: EISDIR for root and everyone else alike.
    await rm(join(dir, name));
    await mkdir(join(dir, name));
    await expectRefused(dir, new RegExp(`${name}: cannot be read: it is a directory`));
    if (process.getuid?.() !== 0) {
      await rm(join(dir, name), { recursive: true });
      await copyFile(join(base.dir, name), join(dir, name));
      await chmod(join(dir, name), 0o000);
      await expectRefused(dir, new RegExp(`${name}: cannot be read: permission denied`));
      await chmod(join(dir, name), 0o600);
    }
  });

  it('a write that fails (ENOSPC) names the state file', async () => {
    const dir = await dirs.make();
    const probe = await open(join(dir, 'probe'), 'w');
    const prototype = Object.getPrototypeOf(probe) as { datasync(): Promise<void> };
    await probe.close();
    await rm(join(dir, 'probe'));
    const noSpace = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    const flush = vi.spyOn(prototype, 'datasync').mockRejectedValueOnce(noSpace);
    const durable = await DurableState.open({ dir });
    try {
      await expect(durable.attach(new MockState('ksdev.full'))).rejects.toThrow(
        `cannot write ${join(dir, 'journal-1.jsonl')}: no space left on the device`,
      );
    } finally {
      flush.mockRestore();
      await durable.close();
    }
    // Nothing half-made is left: the next start begins a new state.
    expect(await readdir(dir)).toEqual([]);
    const s = await openState(dir);
    expect(s.durable.fresh).toBe(true);
    await s.durable.close();
  });

  it('a first start killed before its journal had a header: the next start begins a new state', async () => {
    const dir = await dirs.make();
    await writeFile(join(dir, 'journal-1.jsonl'), '');
    // While the mock that made it might still run, nothing is guessed: the state is refused.
    await expectRefused(dir, /snapshot\.jsonl: is missing, but journal-1\.jsonl is there/);
    await writeFile(join(dir, 'lock'), DEAD_HOLDER);
    const s = await openState(dir);
    expect(s.durable.fresh).toBe(true);
    await s.durable.close();
    expect(await readFile(join(dir, 'snapshot.jsonl'), 'utf8')).toMatch(/"fresh"|"version"/);
  });

  it('a torn last line is forgiven after a crash only, and the state is the acknowledged one', async () => {
    const dir = await copy();
    const path = join(dir, await journalOf(dir));
    await writeFile(path, `${await readFile(path, 'utf8')}{"s":1000,"k":"marking.set","d":{`);
    await expectRefused(dir, /ends in an incomplete last line, but the last mock stopped cleanly/);
    await writeFile(join(dir, 'lock'), DEAD_HOLDER);
    const s = await openState(dir);
    expect(contents(s.state)).toBe(base.acknowledged);
    await s.durable.close();
  });
});

describe('format 1 is still read', () => {
  it('a format-1 directory opens with its records, and is moved to format 4', async () => {
    const dir = await dirs.make();
    const header = (generation: number) =>
      `${JSON.stringify({ format: 'ksctl-mock-state', version: 1, generation })}\n`;
    const line = (k: string, d: unknown) => `${JSON.stringify({ k, d })}\n`;
    await writeFile(
      join(dir, 'snapshot.jsonl'),
      header(1) + line('devToken', 'ksdev.old') + line('tenant.set', 'dev'),
    );
    await writeFile(
      join(dir, 'journal-1.jsonl'),
      header(1) +
        line('user.set', {
          name: 'zoe',
          tenant: 'dev',
          enabled: true,
          password: 'pw',
          email: 'z@example.com',
        }),
    );
    const s = await openState(dir);
    expect(s.state.users.get('zoe')?.email).toBe('z@example.com');
    expect(s.state.devToken).toBe('ksdev.old');
    await s.durable.close();
    expect(await readFile(join(dir, 'snapshot.jsonl'), 'utf8')).toMatch(/"version":4/);
    expect(await readdir(dir)).not.toContain('journal-1.jsonl');
    const again = await openState(dir);
    expect(again.state.users.get('zoe')?.email).toBe('z@example.com');
    await again.durable.close();
  });
});

describe('ksctl mock state check and recover', () => {
  it('check: a whole state is described (exit 0); a damaged one lists every problem (exit 3)', async () => {
    const dir = await copy();
    const whole = await runCli(['mock', 'state', 'check', dir]);
    expect(whole.code).toBe(0);
    expect(whole.stdout).toMatch(
      /snapshot\.jsonl: format 4, generation \d+, \d+ records, up to journal record \d+/,
    );
    expect(whole.stdout).toMatch(
      /journal-\d+\.jsonl: format 4, generation \d+, \d+ records, \d+ clean stops? \(sequence \d+-\d+\), ends with a clean stop/,
    );
    expect(whole.stdout).toMatch(/the state is whole/);

    const path = join(dir, await journalOf(dir));
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines[1] = lines[1]!.replace('"s":', '"s" :');
    lines.splice(3, 1);
    await writeFile(path, lines.join('\n'));
    const before = await filesOf(dir);
    const damaged = await runCli(['mock', 'state', 'check', dir]);
    expect(damaged.code).toBe(3);
    expect(damaged.stderr).toMatch(/\n {2}journal-\d+\.jsonl:2: the checksum does not match/);
    expect(damaged.stderr).toMatch(/\n {2}journal-\d+\.jsonl:4: sequence gap/);
    expect(await filesOf(dir)).toEqual(before);
  });

  it('recover: every record that verifies, into a new directory that opens; what was dropped is said', async () => {
    const dir = await copy();
    const path = join(dir, await journalOf(dir));
    const lines = (await readFile(path, 'utf8')).split('\n');
    const damagedLine = lines.findIndex((l) => l.includes('keep-5'));
    lines[damagedLine] = lines[damagedLine]!.replace('keep-5', 'kEep-5');
    await writeFile(path, lines.join('\n'));
    const before = await filesOf(dir);
    const to = join(await dirs.make(), 'recovered');
    const recovered = await runCli(['mock', 'state', 'recover', dir, '--to', to]);
    expect(recovered.code).toBe(0);
    expect(recovered.stdout).toMatch(/kept \d+ of the \d+ records/);
    expect(recovered.stdout).toMatch(
      new RegExp(`journal-\\d+\\.jsonl:${damagedLine + 1}: the checksum does not match`),
    );
    expect(await filesOf(dir)).toEqual(before);
    expect((await runCli(['mock', 'state', 'check', to])).code).toBe(0);
    const s = await openState(to);
    const names = s.markings.list({ terms: [] } as never, 0, 100, 0).items.map((m) => m.name);
    expect(names).toContain('keep-4');
    expect(names).not.toContain('kEep-5');
    await s.durable.close();
    // A target with content is refused.
    const again = await runCli(['mock', 'state', 'recover', dir, '--to', to]);
    expect(again.code).toBe(2);
  });

  it("recover keeps the key server's key pair: clients' fetched public keys stay good", async () => {
    const dir = await dirs.make();
    const first = await openState(dir);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    first.state.enrollment.setKeyServerKey(privateKey);
    const served = (await first.state.enrollment.keyServer()).spkiBase64;
    await first.durable.sync();
    await first.durable.close();
    const to = join(await dirs.make(), 'recovered');
    expect((await runCli(['mock', 'state', 'recover', dir, '--to', to])).code).toBe(0);
    const s = await openState(to);
    expect(s.state.enrollment.hasKeyServerKey).toBe(true);
    expect((await s.state.enrollment.keyServer()).spkiBase64).toBe(served);
    await s.durable.close();
  });
});

interface Report {
  verdict: string;
  files: { file: string; read: boolean; records: number; damagedLines: number }[];
  problems: { file: string; line?: number; reason: string }[];
  counts: { files: number; records: number; problems: number };
}
interface RecoverReport extends Report {
  kept: number;
  unusable: { file: string; line: number; kind: string; reason: string }[];
  written: { dir: string; records: number };
}

describe('mock state check and recover under -o json, in the same units', () => {
  it('check -o json: every file, its records, the verdict; damaged: each problem, exit 3', async () => {
    const dir = await copy();
    const whole = await runCli(['-o', 'json', 'mock', 'state', 'check', dir]);
    expect(whole.code).toBe(0);
    const report = JSON.parse(whole.stdout) as Report;
    expect(report.verdict).toBe('whole');
    expect(report.files.map((f) => f.file)).toEqual((await readdir(dir)).sort().reverse());
    expect(report.counts.records).toBe(report.files.reduce((n, f) => n + f.records, 0));
    expect(report.counts.records).toBeGreaterThan(0);
    expect(report.problems).toEqual([]);

    const name = await journalOf(dir);
    const path = join(dir, name);
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines[2] = lines[2]!.replace('"s":', '"s" :');
    await writeFile(path, lines.join('\n'));
    const before = await filesOf(dir);
    const damaged = await runCli(['-o', 'json', 'mock', 'state', 'check', dir]);
    expect(damaged.code).toBe(3);
    expect(damaged.stderr).toMatch(/cannot be used/);
    const found = JSON.parse(damaged.stdout) as Report;
    expect(found.verdict).toBe('damaged');
    // The damaged line is one problem: the record it held is not told again as a sequence gap.
    expect(found.problems).toEqual([
      {
        file: name,
        line: 3,
        reason: 'the checksum does not match: the line was changed or damaged',
      },
    ]);
    expect(found.counts).toEqual({
      files: report.counts.files,
      records: report.counts.records - 1,
      problems: 1,
    });
    expect(found.files.find((f) => f.file === name)?.damagedLines).toBe(1);
    expect(await filesOf(dir)).toEqual(before);
  });

  it('check, then recover on a damaged directory: the same records, problems and files; the new one checks as written', async () => {
    const dir = await copy();
    const path = join(dir, await journalOf(dir));
    const lines = (await readFile(path, 'utf8')).split('\n');
    // A marking's line changed (so the value after it cannot be applied), and a line removed.
    const changed = lines.findIndex((l) => l.includes('"marking.set"') && l.includes('keep-5'));
    lines[changed] = lines[changed]!.replace('keep-5', 'kEep-5');
    lines.splice(2, 1);
    await writeFile(path, lines.join('\n'));

    const checked = await runCli(['-o', 'json', 'mock', 'state', 'check', dir]);
    expect(checked.code).toBe(3);
    const check = JSON.parse(checked.stdout) as Report;
    const to = join(await dirs.make(), 'recovered');
    const recovered = await runCli(['-o', 'json', 'mock', 'state', 'recover', dir, '--to', to]);
    expect(recovered.code).toBe(0);
    const recover = JSON.parse(recovered.stdout) as RecoverReport;
    expect(recover.files).toEqual(check.files);
    expect(recover.problems).toEqual(check.problems);
    expect(recover.counts).toMatchObject(check.counts);
    expect(recover.unusable.map((u) => u.kind)).toContain('value.set');
    expect(recover.kept + recover.unusable.length).toBe(check.counts.records);
    const again = JSON.parse(
      (await runCli(['-o', 'json', 'mock', 'state', 'check', to])).stdout,
    ) as Report;
    expect(again.verdict).toBe('whole');
    expect(again.counts.records).toBe(recover.written.records);

    // The text reports say the same numbers.
    const text = await runCli(['mock', 'state', 'check', dir]);
    expect(text.stdout).toContain(
      `${check.counts.records} records verify; ${check.counts.problems} problems`,
    );
    const to2 = join(await dirs.make(), 'recovered');
    const recoveredText = await runCli(['mock', 'state', 'recover', dir, '--to', to2]);
    expect(recoveredText.stdout).toContain(
      `${check.counts.records} records verify; ${check.counts.problems} problems`,
    );
    expect(recoveredText.stdout).toContain(
      `kept ${recover.kept} of the ${check.counts.records} records; ${recover.unusable.length} could not be applied`,
    );
    expect(recoveredText.stdout).toContain(`as a snapshot of ${recover.written.records} records`);
    expect((await runCli(['mock', 'state', 'check', to2])).stdout).toContain(
      `exactly these ${recover.written.records} records`,
    );
  });
});

describe('seeded corruption: the acknowledged state, exactly, or a refusal', () => {
  const SEED = Number(process.env.KSCTL_CORRUPTION_SEED ?? 17);
  const ROUNDS = 60;

  it(`${ROUNDS} rounds of byte flips, truncations and deletions (seed ${SEED})`, async () => {
    const random = prng(SEED);
    const outcomes = { refused: 0, whole: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const dir = await copy();
      const names = (await readdir(dir)).filter((n) => n.endsWith('.jsonl'));
      const name = random.pick(names);
      const path = join(dir, name);
      const bytes = await readFile(path);
      const damage = random.pick(['flip', 'flip', 'truncate', 'delete'] as const);
      if (damage === 'flip') {
        const at = random.int(bytes.length);
        bytes[at] = bytes[at]! ^ (1 << random.int(8));
        await writeFile(path, bytes);
      } else if (damage === 'truncate') {
        await truncate(path, random.int(bytes.length));
      } else {
        await rm(path);
      }
      const before = await filesOf(dir);
      const opened = await DurableState.open({ dir }).catch((e: unknown) => e);
      if (opened instanceof DurableState) {
        const state = new MockState('ksdev.damage');
        await opened.attach(state);
        expect(contents(state), `round ${round}: ${damage} of ${name}`).toBe(base.acknowledged);
        await opened.close();
        outcomes.whole++;
      } else {
        expect(opened, `round ${round}: ${damage} of ${name}`).toBeInstanceOf(InputError);
        expect(await filesOf(dir)).toEqual(before);
        outcomes.refused++;
      }
    }
    // Every round damaged something the checks see.
    expect(outcomes.refused).toBeGreaterThan(ROUNDS / 2);
  });
});

/**
 * `ksctl mock state check DIR` and `ksctl mock state recover DIR --to NEW` (issue 17): what a
 * state directory holds and what is wrong with it, and a new directory made of every record that
 * verifies, saying what was left out. Neither changes DIR.
 */
import { readdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { errnoCode } from '../../files/fs-errors.js';
import { writeOut } from '../../output/render.js';
import type { CommandContext } from '../command-context.js';

export interface RecoverOptions {
  to: string;
}

async function existingDirectory(dir: string): Promise<string> {
  const path = resolve(dir);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`${path} is not a directory`);
  return path;
}

export async function check(ctx: CommandContext, dirArgument: string): Promise<void> {
  const dir = await existingDirectory(dirArgument);
  const { damagedStateError } = await import('../../mock/persistence/durable.js');
  const { inspectStateDir } = await import('../../mock/persistence/inspection.js');
  const { CLOSE_KIND } = await import('../../mock/persistence/integrity.js');
  const { lockHolder } = await import('../../mock/persistence/state-lock.js');
  const holder = await lockHolder(dir);
  // A lock file left behind means the last mock died: a torn last line is then forgiven.
  const inspection = await inspectStateDir(dir, { crashed: holder !== undefined });
  const lines: string[] = [];
  if (holder?.live) {
    lines.push(`in use by a running mock (pid ${holder.pid}): what it writes now may read as torn`);
  } else if (holder !== undefined) {
    lines.push(
      'the last mock did not stop cleanly (its lock file is left): a torn last line is forgiven',
    );
  }
  if (inspection.problems.length > 0) {
    for (const line of lines) ctx.say(line);
    throw damagedStateError(dir, inspection.problems);
  }
  if (inspection.fresh) {
    lines.push('no state yet: a mock started on it begins with its defaults and seed');
  } else {
    const snapshot = inspection.snapshot!;
    const covers =
      inspection.version >= 2 ? `, up to journal record ${String(snapshot.header.covers)}` : '';
    lines.push(
      `${snapshot.name}: format ${inspection.version}, generation ${String(snapshot.header.generation)}, ${snapshot.records.length} records${covers}`,
    );
    for (const journal of inspection.journals) {
      const records = journal.records.filter((r) => r.kind !== CLOSE_KIND);
      const range =
        inspection.version >= 2 && journal.records.length > 0
          ? ` (${journal.records[0]!.seq}-${journal.records.at(-1)!.seq})`
          : '';
      const end = journal.records.at(-1)?.kind === CLOSE_KIND ? ', ends with a clean stop' : '';
      const count = `${records.length} record${records.length === 1 ? '' : 's'}`;
      lines.push(`${journal.name}: ${count}${range}${end}`);
    }
    for (const warning of inspection.warnings) lines.push(warning);
    lines.push('the state is whole: a mock starts from it with exactly these records');
  }
  writeOut(ctx.io.stdout, `${lines.join('\n')}\n`);
}

export async function recover(
  ctx: CommandContext,
  dirArgument: string,
  options: RecoverOptions,
): Promise<void> {
  const dir = await existingDirectory(dirArgument);
  const to = resolve(options.to);
  if (to === dir) throw new UsageError('--to must name another directory than the damaged one');
  const present = await readdir(to).catch((error: unknown) => {
    if (errnoCode(error) === 'ENOENT') return [];
    throw new UsageError(`${to} cannot be used: it is not a directory that can be read`);
  });
  if (present.length > 0) {
    throw new UsageError(`${to} is not empty; recover writes a new state directory`, {
      hint: 'name a directory that does not exist yet, or an empty one',
    });
  }
  const { inspectStateDir } = await import('../../mock/persistence/inspection.js');
  const { CLOSE_KIND, problemText } = await import('../../mock/persistence/integrity.js');
  const { RECORD_KINDS } = await import('../../mock/persistence/records.js');
  const { MockState } = await import('../../mock/state.js');
  const { DurableState } = await import('../../mock/persistence/durable.js');
  const inspection = await inspectStateDir(dir, { crashed: true });
  const state = new MockState('ksdev.recovered');
  const dropped = inspection.problems.map(problemText);
  let kept = 0;
  for (const file of [inspection.snapshot, ...inspection.journals]) {
    for (const record of file?.records ?? []) {
      if (record.kind === CLOSE_KIND) continue;
      try {
        RECORD_KINDS[record.kind]!(state, record.data as never);
        kept++;
      } catch (error) {
        dropped.push(
          `${record.file}:${record.line}: the record (${record.kind}) cannot be applied: ${(error as Error).message}`,
        );
      }
    }
  }
  const target = await DurableState.open({ dir: to });
  await target.attach(state);
  await target.close();
  const lines = [`kept ${kept} records in ${to}`];
  if (dropped.length === 0) lines.push('dropped nothing: every record verified');
  else lines.push(`dropped or found wrong (${dropped.length}):`, ...dropped.map((d) => `  ${d}`));
  writeOut(ctx.io.stdout, `${lines.join('\n')}\n`);
}

/**
 * `ksctl mock state check DIR` and `ksctl mock state recover DIR --to NEW` (issue 17): what a
 * state directory holds and what is wrong with it, and a new directory made of every record that
 * verifies, saying what was left out. Neither changes DIR.
 */
import { readdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../../../common/errors.js';
import { errnoCode } from '../../../common/files/fs-errors.js';
import { writeReport } from '../../output/render.js';
import { plural } from '../../../common/text/words.js';
import type { StateReport } from '../../usecases/mock.js';
import type { CommandContext } from '../kit/command-context.js';

export interface RecoverOptions {
  to: string;
}

async function existingDirectory(dir: string): Promise<string> {
  const path = resolve(dir);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`${path} is not a directory`);
  return path;
}

/** Who holds the lock, in words, when anyone does. */
function lockLine(report: StateReport): string | undefined {
  if (report.lock === null) return undefined;
  if (report.lock.running) {
    return `in use by a running mock (pid ${String(report.lock.pid)}): what it writes now may read as torn`;
  }
  return 'the last mock did not stop cleanly (its lock file is left): a torn last line is forgiven';
}

/** One line per state file, in the units `check` and `recover` share. */
function fileLines(report: StateReport): string[] {
  return report.files.map((f) => {
    if (!f.read) return `${f.file}: not read: ${f.note ?? ''}`;
    const parts = [`${f.file}: format ${String(f.format)}`];
    if (f.generation !== undefined) parts.push(`generation ${f.generation}`);
    let records = plural(f.records, 'record');
    if (f.cleanStops > 0) records += `, ${plural(f.cleanStops, 'clean stop')}`;
    if (f.role === 'journal' && f.sequence !== undefined) {
      records += ` (sequence ${f.sequence.first}-${f.sequence.last})`;
    }
    parts.push(records);
    if (f.covers !== undefined) parts.push(`up to journal record ${f.covers}`);
    if (f.endsWithCleanStop) parts.push('ends with a clean stop');
    if (f.damagedLines > 0) {
      parts.push(
        `${plural(f.damagedLines, 'line')} that ${f.damagedLines === 1 ? 'does' : 'do'} not verify`,
      );
    }
    return parts.join(', ');
  });
}

export async function check(ctx: CommandContext, dirArgument: string): Promise<void> {
  const dir = await existingDirectory(dirArgument);
  const format = ctx.format();
  const { checkStateDir } = await import('../../usecases/mock.js');
  const { report } = await checkStateDir(dir);
  const damaged = report.verdict === 'damaged';
  if (format !== 'table') {
    await ctx.render({ kind: 'text', data: report, text: '' });
  } else {
    const lines = [lockLine(report) ?? [], fileLines(report)].flat();
    if (report.verdict === 'new') {
      lines.push('no state yet: a mock started on it begins with its defaults and seed');
    } else if (damaged) {
      lines.push(
        `${plural(report.counts.records, 'record')} verify; ${plural(report.counts.problems, 'problem')}, so a mock refuses this directory`,
      );
    } else {
      lines.push(...report.warnings);
      lines.push(
        `the state is whole: a mock starts from it with exactly these ${plural(report.counts.records, 'record')}`,
      );
    }
    writeReport(ctx.io, lines);
  }
  if (damaged) {
    const { damagedStateDirError } = await import('../../usecases/mock.js');
    throw damagedStateDirError(dir, report);
  }
}

export async function recover(
  ctx: CommandContext,
  dirArgument: string,
  options: RecoverOptions,
): Promise<void> {
  const dir = await existingDirectory(dirArgument);
  const format = ctx.format();
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
  const { recoverStateDir } = await import('../../usecases/mock.js');
  // What was written is read back as `check` reads it: the numbers a check of NEW gives.
  const { report, kept, unusable, problems, writtenRecords } = await recoverStateDir(dir, to);
  const data = {
    ...report,
    kept,
    unusable,
    written: { dir: to, records: writtenRecords },
    counts: {
      ...report.counts,
      kept,
      unusable: unusable.length,
      written: writtenRecords,
    },
  };
  if (format !== 'table') {
    await ctx.render({ kind: 'text', data, text: '' });
    return;
  }
  const lines = [lockLine(report) ?? [], fileLines(report)].flat();
  const { records } = report.counts;
  if (report.counts.problems === 0) lines.push(`${plural(records, 'record')} verify; no problems`);
  else {
    lines.push(
      `${plural(records, 'record')} verify; ${plural(report.counts.problems, 'problem')} (a line that does not verify is not kept):`,
      ...problems.map((text) => `  ${text}`),
    );
  }
  lines.push(...report.warnings);
  if (unusable.length === 0)
    lines.push(`kept ${kept === records ? 'all ' : ''}${plural(kept, 'record')}`);
  else {
    lines.push(
      `kept ${kept} of the ${plural(records, 'record')}; ${unusable.length} could not be applied:`,
      ...unusable.map(
        (u) => `  ${u.file}:${u.line}: the record (${u.kind}) cannot be applied: ${u.reason}`,
      ),
    );
  }
  lines.push(
    `wrote ${to}: the state they build, as a snapshot of ${plural(writtenRecords, 'record')} (a record per item, however often it changed)`,
  );
  writeReport(ctx.io, lines);
}

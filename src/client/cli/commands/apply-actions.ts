/**
 * The actions of `markings apply` (files, plan, confirmation, requests, report) and
 * `markings export` (every marking, or the filtered ones, in the file format), with their option
 * types.
 */
import { MARKING_FILTER_FIELDS } from '../../../common/markings/filters.js';
import { DEFAULT_CONCURRENCY } from '../../apply/execute.js';
import { markingsInputLimit } from '../../apply/sources.js';
import { type Plan, planIsEmpty } from '../../apply/plan.js';
import {
  planToJson,
  FOLD_PLAN_OVER,
  renderPlan,
  renderRunReport,
  runReportToJson,
  type Styler,
  type TextRole,
} from '../../apply/render.js';
import { type RunReport, runExitCode } from '../../apply/report.js';
import type { StepAction } from '../../apply/strategy.js';
import { EXIT_PLAN_HAS_CHANGES, UsageError } from '../../../common/errors.js';
import { progressBar } from '../../output/progress.js';
import { writeOut } from '../../output/render.js';
import { plural, quotedNames } from '../../../common/text/words.js';
import { writeChunks } from '../../output/streaming.js';
import { proseWidth } from '../../../common/text/wrap.js';
import { writeFileAtomic } from '../../../common/files/atomic-write.js';
import { requireParentDirectory } from '../../../common/files/directories.js';
import { refuseToReplace } from '../../../common/files/replace-guard.js';
import { applyPlan, desiredMarkings, planChanges } from '../../usecases/markings-apply.js';
import { exportMarkings } from '../../usecases/markings-export.js';
import type { CommandContext } from '../kit/command-context.js';
import { filterFromOptions } from '../kit/filter-options.js';
import type { FilterOptionValues } from '../kit/filter-options.js';

export interface ApplyOptions {
  file?: string[];
  dryRun?: boolean;
  exitCode?: boolean;
  prune?: boolean;
  yes?: boolean;
  concurrency?: number;
  verbose?: boolean;
}

export interface ExportOptions extends FilterOptionValues {
  file?: string;
  force?: boolean;
  concurrency?: number;
}

/**
 * `markings apply`: files → plan → requests. stdout carries the data (the plan, or with -o json
 * the plan of a dry run or the run report); the progress bar and the run summary go to stderr.
 */
export async function apply(ctx: CommandContext, options: ApplyOptions): Promise<void> {
  const files = options.file ?? [];
  if (files.length === 0) {
    throw new UsageError('no markings files given', {
      hint: 'ksctl markings apply -f FILE (a file, a directory of them, or - for stdin)',
    });
  }
  if (options.exitCode && !options.dryRun) {
    throw new UsageError('--exit-code goes with --dry-run', {
      hint: 'ksctl markings apply -f FILE --dry-run --exit-code exits 10 when there are changes',
    });
  }
  const format = ctx.format();
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  // Every file is read and checked before the first request.
  const limit = markingsInputLimit(ctx.env);
  const stdin = files.includes('-')
    ? await ctx.readStdin('markings (YAML or JSON)', limit)
    : undefined;
  const desired = await desiredMarkings({ files, stdin, limit });
  // Ctrl-C from here on: no new request starts, those in flight finish, the report says what
  // was done, and the exit code is 130.
  ctx.stopsGracefully();

  const api = await ctx.markings();
  const plan = await planChanges(api, desired, {
    prune: options.prune,
    concurrency,
    signal: ctx.signal,
  });

  if (format === 'table') {
    // A long plan on a terminal folds into a line per kind; piped, or with --verbose, every line.
    const foldOver = ctx.io.stdoutIsTTY && options.verbose !== true ? FOLD_PLAN_OVER : undefined;
    const style = await styler(ctx.io.color);
    // Within the terminal, or 80 columns in a pipe or a CI log (COLUMNS says otherwise).
    const width = ctx.io.stdoutIsTTY ? proseWidth(ctx.io.columns) : ctx.io.columns;
    writeOut(ctx.io.stdout, lines(renderPlan(plan, { style, foldOver, width })));
  } else if (options.dryRun) {
    await writeData(ctx, format, planToJson(plan));
  }
  if (options.dryRun) {
    if (options.exitCode && !planIsEmpty(plan)) ctx.exitCode = EXIT_PLAN_HAS_CHANGES;
    return;
  }
  const question = destructiveQuestion(plan);
  if (question !== undefined) await ctx.confirm(question, options.yes);

  let total = 0;
  let progress: ReturnType<typeof progressBar> | undefined;
  const report = await applyPlan(api, plan, {
    concurrency,
    signal: ctx.signal,
    onStart: (changes) => {
      total = changes;
      progress = progressBar(ctx.io, total, `Applying ${plural(total, 'change')}`, {
        quiet: ctx.quiet,
      });
    },
    onProgress: ({ done, failed }) => progress?.set(done, failed),
  });
  progress?.done();

  if (total > 0) {
    const problems = report.failed.length > 0 || report.skipped.length > 0;
    // --quiet keeps failures: a script must still learn what did not happen.
    if (!ctx.quiet || problems) {
      const style = await styler(ctx.io.color && ctx.io.stderrIsTTY);
      // Within the terminal, or 80 columns in a log: never a line of every name not attempted.
      const width = proseWidth(ctx.io.columns);
      ctx.io.stderr.write(lines(renderRunReport(report, { style, width })));
    }
    const removals = removalsDone(plan, report);
    if (removals.length > 0) ctx.say(removals.join('\n'));
  }
  if (format !== 'table') await writeData(ctx, format, runReportToJson(report));
  ctx.exitCode = runExitCode(report);
}

/**
 * Removing values and deleting markings are destructive (docs/design.md 5): the question lists what goes.
 * Undefined when the plan removes nothing.
 */
function destructiveQuestion(plan: Plan): string | undefined {
  const parts: string[] = [];
  const removing = plan.update.filter((marking) => marking.valuesRemoved.length > 0);
  if (removing.length > 0) {
    const count = removing.reduce((sum, marking) => sum + marking.valuesRemoved.length, 0);
    const which = removing.slice(0, 5).map(
      (m) =>
        `${m.name}: ${quotedNames(
          m.valuesRemoved.map((v) => v.name),
          5,
        )}`,
    );
    if (removing.length > 5) which.push(`… and ${removing.length - 5} more markings`);
    parts.push(`remove ${plural(count, 'value')} (${which.join('; ')})`);
  }
  if (plan.delete.length > 0) {
    const names = quotedNames(
      plan.delete.map((marking) => marking.name),
      5,
    );
    parts.push(
      `delete ${plural(plan.delete.length, 'marking')} that no file lists (${names}) with all their values`,
    );
  }
  if (parts.length === 0) return undefined;
  const text = parts.join(' and ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}?`;
}

/** After the run, what was removed: the values of updated markings and the deleted markings. */
function removalsDone(plan: Plan, report: RunReport): string[] {
  const applied = (action: StepAction) =>
    new Set(report.applied.filter((t) => t.action === action).map((t) => t.name));
  const updated = applied('update');
  const deleted = applied('delete');
  const lines = plan.update
    .filter((m) => updated.has(m.name) && m.valuesRemoved.length > 0)
    .map(
      (m) =>
        `Removed from ${m.name}: ${plural(m.valuesRemoved.length, 'value')} (${quotedNames(m.valuesRemoved.map((v) => v.name))}).`,
    );
  const gone = plan.delete.filter((m) => deleted.has(m.name));
  if (gone.length > 0) {
    lines.push(
      `Deleted ${plural(gone.length, 'marking')}: ${quotedNames(gone.map((m) => m.name))}.`,
    );
  }
  return lines;
}

/** `markings export`: every marking (or the filtered ones) with all values, in the file format. */
export async function exportFile(ctx: CommandContext, options: ExportOptions): Promise<void> {
  const format = ctx.format();
  const filter = filterFromOptions(options, MARKING_FILTER_FIELDS);
  // A missing folder or a file not to replace is refused before every marking is read for nothing.
  if (options.file !== undefined) {
    await requireParentDirectory(options.file);
    await refuseToReplace(options.file, options.force);
  }
  const api = await ctx.markings();
  let count = 0;
  let values = 0;
  const text = exportMarkings(api, {
    format: format === 'json' ? 'json' : 'yaml',
    filter,
    concurrency: options.concurrency,
    signal: ctx.signal,
    onMarking: (marking) => {
      count += 1;
      values += marking.detail.valueCount;
    },
  });
  // The markings are read as they are written: the spinner covers both, wherever stdout goes.
  const file = options.file;
  if (file === undefined) {
    await ctx.waiting('exporting markings', () => writeChunks(ctx.io.stdout, text));
    return;
  }
  // A failed write leaves the previous export whole; an export is an ordinary file, not a secret.
  await ctx.waiting(`exporting markings to ${file}`, () => writeFileAtomic(file, text, 0o644));
  ctx.say(`exported ${plural(count, 'marking')} with ${plural(values, 'value')} to ${file}`);
}

function lines(text: string[]): string {
  return text.length === 0 ? '' : `${text.join('\n')}\n`;
}

async function writeData(ctx: CommandContext, format: 'json' | 'yaml', data: unknown) {
  if (format === 'json') {
    writeOut(ctx.io.stdout, `${JSON.stringify(data, null, 2)}\n`);
    return;
  }
  const { stringify } = await import('yaml');
  writeOut(ctx.io.stdout, stringify(data, { lineWidth: 0 }));
}

const COLORS: Record<TextRole, 'green' | 'yellow' | 'red' | 'dim'> = {
  create: 'green',
  update: 'yellow',
  delete: 'red',
  muted: 'dim',
  error: 'red',
};

/** Colours for the plan and the report; chalk is loaded only when the stream is a terminal. */
async function styler(color: boolean): Promise<Styler | undefined> {
  if (!color) return undefined;
  const { default: chalk } = await import('chalk');
  return (role, text) => chalk[COLORS[role]](text);
}

/**
 * The plan and the run report of `markings apply` as text for people, like terraform's plan:
 * rendering marks each piece with its role, and the command decides the colours.
 */
import { fill } from '../../common/text/wrap.js';
import type { FieldChange, Plan } from './plan.js';
import { planIsEmpty } from './plan.js';
import type { RunReport } from './report.js';
import type { StepAction, StepTarget } from './strategy.js';

/** What a piece of text means, so the command can colour it; rendering adds no escape codes. */
export type TextRole = 'create' | 'update' | 'delete' | 'muted' | 'error';
export type Styler = (role: TextRole, text: string) => string;

export const plainText: Styler = (_role, text) => text;

export interface RenderOptions {
  style?: Styler;
  /** Items of one list (values added, failures, ...) shown before "… and N more". */
  maxListed?: number;
  /** A plan of more markings than this shows one line per kind of change instead of each. */
  foldOver?: number;
  /** On a terminal: a change longer than this goes on over lines, under its own text. */
  width?: number;
}

/** The fold of a long plan on a terminal (`--verbose` shows every line). */
export const FOLD_PLAN_OVER = 30;

const DEFAULT_MAX_LISTED = 20;
const INDENT = '    ';

/**
 * The plan for people, like terraform's:
 *   + create classification (3 values)
 *   ~ update region
 *       ~ description: "old" → "new"
 *       + value eu-west
 *   - delete legacy (12 values)
 *
 *   Plan: 1 to create, 1 to update, 1 to delete, 5 unchanged.
 */
export function renderPlan(plan: Plan, options: RenderOptions = {}): string[] {
  const style = options.style ?? plainText;
  const limit = options.maxListed ?? DEFAULT_MAX_LISTED;
  const lines: string[] = [];
  const changes = plan.create.length + plan.update.length + plan.delete.length;
  if (options.foldOver !== undefined && changes > options.foldOver) {
    // Loops, not push(...lines): a spread of a million lines overflows the stack.
    for (const line of foldedPlan(plan, style)) lines.push(line);
    lines.push(style('muted', '(--verbose lists every change)'));
  } else {
    for (const line of planLines(plan, style, limit, options.width)) lines.push(line);
  }

  if (planIsEmpty(plan)) {
    const upToDate =
      plan.unchanged === 1
        ? '1 marking is up to date.'
        : `${plan.unchanged} markings are up to date.`;
    lines.push(`No changes. ${upToDate}`);
    return lines;
  }
  lines.push(
    '',
    `Plan: ${plan.create.length} to create, ${plan.update.length} to update, ` +
      `${plan.delete.length} to delete, ${plan.unchanged} unchanged.`,
  );
  return lines;
}

/** One line per kind of change, with the value counts: a long plan that fits on a screen. */
function foldedPlan(plan: Plan, style: Styler): string[] {
  const lines: string[] = [];
  const sum = (numbers: number[]) => numbers.reduce((total, n) => total + n, 0);
  if (plan.create.length > 0) {
    const values = sum(plan.create.map((m) => m.values?.length ?? 0));
    lines.push(
      style('create', `+ ${count(plan.create.length, 'marking')} to create`) +
        style('muted', ` (${count(values, 'value')})`),
    );
  }
  if (plan.update.length > 0) {
    const added = sum(plan.update.map((u) => u.valuesAdded.length));
    const removed = sum(plan.update.map((u) => u.valuesRemoved.length));
    const changed = sum(plan.update.map((u) => u.valuesChanged.length));
    const fields = sum(plan.update.map((u) => u.fieldChanges.length));
    const also = [
      changed > 0 ? count(changed, 'value description') : '',
      fields > 0 ? count(fields, 'marking field') : '',
    ].filter((text) => text !== '');
    lines.push(
      style(
        'update',
        `~ ${count(plan.update.length, 'marking')} to update with ${count(added, 'value addition')} and ${count(removed, 'removal')}`,
      ) + (also.length === 0 ? '' : style('muted', ` (${also.join(' and ')} changed)`)),
    );
  }
  if (plan.delete.length > 0) {
    const values = sum(plan.delete.map((m) => m.valueCount));
    lines.push(
      style('delete', `- ${count(plan.delete.length, 'marking')} to delete`) +
        style('muted', ` (${count(values, 'value')})`),
    );
  }
  return lines;
}

/**
 * A change in `role` at `indent`: one line, or, wider than `width`, broken between words with the
 * rest under its text (a description changed is two texts of up to 4,096 characters).
 */
function changeLines(
  indent: string,
  role: TextRole,
  text: string,
  style: Styler,
  width: number | undefined,
): string[] {
  if (width === undefined || indent.length + text.length <= width) {
    return [indent + style(role, text)];
  }
  const hang = `${indent}  `;
  return fill(text, width - indent.length, { rest: '  ' }).map((line, i) =>
    i === 0 ? indent + style(role, line) : hang + style(role, line.slice(2)),
  );
}

/** Every change, one line each (values cut to `limit` per list). */
function planLines(plan: Plan, style: Styler, limit: number, width?: number): string[] {
  const lines: string[] = [];
  for (const marking of plan.create) {
    const line = style('create', `+ create ${marking.name}`);
    lines.push(
      marking.values === undefined
        ? line
        : line + style('muted', ` (${count(marking.values.length, 'value')})`),
    );
  }
  for (const update of plan.update) {
    lines.push(style('update', `~ update ${update.name}`));
    const change = (role: TextRole, text: string) => changeLines(INDENT, role, text, style, width);
    for (const field of update.fieldChanges) {
      for (const line of change('update', `~ ${describeField(field)}`)) lines.push(line);
    }
    const added = update.valuesAdded.map((value) => change('create', `+ value ${value.name}`));
    const removed = update.valuesRemoved.map((value) => change('delete', `- value ${value.name}`));
    const changed = update.valuesChanged.map((value) =>
      change(
        'update',
        `~ value ${value.name}: description ${quote(value.from)} → ${quote(value.to)}`,
      ),
    );
    for (const [group, what] of [
      [added, 'to add'],
      [removed, 'to remove'],
      [changed, 'to change'],
    ] as const) {
      const { shown, rest } = shownAndRest(group, limit);
      for (const one of shown) for (const line of one) lines.push(line);
      if (rest > 0) lines.push(INDENT + style('muted', `… and ${rest} more values ${what}`));
    }
  }
  for (const marking of plan.delete) {
    lines.push(
      style('delete', `- delete ${marking.name}`) +
        style('muted', ` (${count(marking.valueCount, 'value')})`),
    );
  }
  return lines;
}

/** The plan as plain JSON for `-o json`: no complete value sets (they can be huge), counts added. */
export function planToJson(plan: Plan) {
  return {
    create: plan.create.map(({ source, ...marking }) => ({
      ...marking,
      source: `${source.file}:${source.line}:${source.column}`,
    })),
    update: plan.update.map(({ targetValues: _complete, ...update }) => update),
    delete: plan.delete,
    unchanged: plan.unchanged,
    summary: {
      create: plan.create.length,
      update: plan.update.length,
      delete: plan.delete.length,
      unchanged: plan.unchanged,
    },
  };
}

/** The run report for `-o json`: what was applied, what failed and why, and the counts. */
export function runReportToJson(report: RunReport) {
  const count = (action: StepAction) =>
    report.applied.filter((target) => target.action === action).length;
  return {
    ...report,
    summary: {
      created: count('create'),
      updated: count('update'),
      deleted: count('delete'),
      failed: report.failed.length,
      skipped: report.skipped.length,
    },
  };
}

const PAST_TENSE: Record<StepAction, string> = {
  create: 'created',
  update: 'updated',
  delete: 'deleted',
};

/**
 * What apply did: failures with their reason, one marking per line, then a summary such as
 * `applied: 3 created, 1 updated, 0 deleted; 1 failed`; with a `width`, each goes on over lines,
 * under its own text, rather than past it.
 */
export function renderRunReport(report: RunReport, options: RenderOptions = {}): string[] {
  const style = options.style ?? plainText;
  const limit = options.maxListed ?? DEFAULT_MAX_LISTED;
  const width = options.width;
  const lines: string[] = [];
  const line = (role: TextRole | undefined, text: string, indent = '') =>
    lines.push(
      ...changeLines(indent, role ?? 'muted', text, role === undefined ? plainText : style, width),
    );

  const failures = shownAndRest(report.failed, limit);
  for (const failure of failures.shown) {
    const reference = failure.conversationId ? `, cid ${failure.conversationId}` : '';
    const what = `✗ ${failure.action} ${failure.name}: ${failure.message}`;
    const tag = ` [${failure.code}${reference}]`;
    if (width === undefined || what.length + tag.length <= width) {
      lines.push(style('error', what) + style('muted', tag));
    } else {
      // The reason broken under its text; the code and conversation id after it, or below.
      const broken = fill(what, width, { rest: '  ' });
      const last = broken.at(-1)!;
      const apart = last.length + tag.length > width;
      lines.push(...broken.map((part) => style('error', part)));
      if (apart) {
        for (const part of fill(tag, width - 2)) lines.push(`  ${style('muted', part)}`);
      } else lines[lines.length - 1] += style('muted', tag);
    }
    if (failure.hint !== undefined) line('muted', `hint: ${failure.hint}`, INDENT);
  }
  if (failures.rest > 0) line('muted', `… and ${failures.rest} more failures`);

  if (report.skipped.length > 0) {
    const why = report.interrupted
      ? 'interrupted'
      : 'the service refused the credentials, so no further request was sent';
    line('muted', `not attempted (${why}): ${listNames(report.skipped, limit)}`);
  }

  const done = (action: StepAction) =>
    `${report.applied.filter((target) => target.action === action).length} ${PAST_TENSE[action]}`;
  const failed = report.failed.length > 0 ? `; ${report.failed.length} failed` : '';
  const skipped = report.skipped.length > 0 ? `; ${report.skipped.length} not attempted` : '';
  line(
    undefined,
    `applied: ${done('create')}, ${done('update')}, ${done('delete')}${failed}${skipped}`,
  );
  if (report.failed.length > 0 || report.skipped.length > 0) {
    line('muted', 'run apply again to retry: it only sends what is still different');
  }
  return lines;
}

/** The first `limit` items, or all when only one more would remain ("… and 1 more" saves nothing). */
function shownAndRest<T>(
  items: readonly T[],
  limit: number,
): { shown: readonly T[]; rest: number } {
  if (items.length <= limit + 1) return { shown: items, rest: 0 };
  return { shown: items.slice(0, limit), rest: items.length - limit };
}

function listNames(targets: StepTarget[], limit: number): string {
  const { shown, rest } = shownAndRest(targets, limit);
  const names = shown.map((target) => target.name).join(', ');
  return rest > 0 ? `${names} … and ${rest} more` : names;
}

function describeField(change: FieldChange): string {
  return `${change.field}: ${quote(change.from)} → ${quote(change.to)}`;
}

function quote(value: string | boolean | null): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

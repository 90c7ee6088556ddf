/**
 * The actions of `ksctl markings list|get|create|update|delete`, with their option types: the
 * command side (options, prompts, rendering). How an update changes a marking is
 * src/client/markings/update.ts.
 */
import { MARKING_FILTER_FIELDS } from '../../../common/markings/filters.js';
import { nameProblem } from '../../../common/markings/names.js';
import { quoted } from '../../../common/text/words.js';
import type { Marking, MarkingUpdate, MarkingValue } from '../../../common/markings/wire.js';
import { type DesiredMarking, formatPosition } from '../../../common/markings/desired.js';
import { InputError, UsageError } from '../../../common/errors.js';
import { markingsListView, markingView } from '../../markings/views.js';
import { plural, quotedNames } from '../../../common/text/words.js';
import type { CommandContext } from '../kit/command-context.js';
import { filterFromOptions } from '../kit/filter-options.js';
import {
  changedFields,
  checkNameFree,
  checkValuesChange,
  describeSetResult,
  describeSteps,
  putCompleteSet,
  type UpdateStep,
} from '../../markings/update.js';
import {
  checkDescriptionFlag,
  deleteInTurn,
  parseValueOptions,
  runInOrder,
} from '../../markings/changes.js';
import type { FilterOptionValues } from '../kit/filter-options.js';

export interface ListOptions extends FilterOptionValues {
  valueLimit?: number;
  limit?: number;
}

export interface GetOptions {
  valueLimit?: number;
}

export interface CreateOptions {
  value?: string[];
  description?: string;
  public?: boolean;
  adminOnly?: boolean;
  defaultValue?: string;
  file?: string;
}

export interface UpdateOptions {
  rename?: string;
  description?: string;
  public?: boolean;
  adminOnly?: boolean;
  defaultValue?: string | false;
  addValue?: string[];
  removeValue?: string[];
  setValues?: string[];
  file?: string;
  yes?: boolean;
}

export interface DeleteOptions {
  yes?: boolean;
  ifVersion?: number;
}

function checkName(name: string, what: string): void {
  const problem = nameProblem(name);
  if (problem)
    throw new InputError(`invalid ${what} ${quoted(name)}: ${problem}; nothing was sent`);
}

export async function list(ctx: CommandContext, options: ListOptions): Promise<void> {
  const format = ctx.format();
  const filter = filterFromOptions(options, MARKING_FILTER_FIELDS);
  const api = await ctx.markings();
  // A table shows value counts only, so it never asks for values.
  const valueLimit = format === 'table' ? 0 : options.valueLimit;
  const items = api.listMarkings({ filter, valueLimit }, options.limit);
  await ctx.renderList('listing markings', items, markingsListView);
}

export async function get(ctx: CommandContext, ref: string, options: GetOptions): Promise<void> {
  const api = await ctx.markings();
  const marking = await ctx.waiting(`reading marking ${ref}`, () =>
    api.resolveMarking(ref, options.valueLimit),
  );
  await ctx.render(markingView(marking));
}

export async function create(
  ctx: CommandContext,
  name: string | undefined,
  options: CreateOptions,
): Promise<void> {
  if (options.file !== undefined) return createFromFile(ctx, name, options.file, options);
  if (name === undefined) throw new UsageError('a name is needed: ksctl markings create NAME');
  checkName(name, 'marking name');
  checkDescriptionFlag(options.description, `marking ${quoted(name)}`);
  const values = parseValueOptions(options.value, '--value');
  if (options.defaultValue !== undefined && !values.some((v) => v.name === options.defaultValue)) {
    throw new InputError(
      `--default-value ${quoted(options.defaultValue)} is not one of the --value options; nothing was sent`,
    );
  }
  const api = await ctx.markings();
  const created = await api.createMarking({
    name,
    public: options.public,
    adminOnly: options.adminOnly,
    defaultValue: options.defaultValue,
    detail: { description: options.description, values },
  });
  ctx.say(
    `created marking ${created.name} (${created.id}) with ${plural(created.detail.valueCount, 'value')}`,
  );
  await ctx.render(markingView(created));
}

/** Removing values is destructive (docs/design.md 5): list what goes and ask, or need --yes. */
async function confirmRemoval(
  ctx: CommandContext,
  marking: Marking,
  removed: MarkingValue[],
  yes: boolean | undefined,
): Promise<void> {
  if (removed.length === 0) return;
  await ctx.confirm(
    `Remove ${plural(removed.length, 'value')} from marking "${marking.name}": ${quotedNames(removed.map((v) => v.name))}?`,
    yes,
  );
}

/** Runs an update's requests in order; when one fails, says what was changed and what was not. */
function runSteps(ctx: CommandContext, marking: Marking, steps: UpdateStep[]): Promise<void> {
  return runInOrder(
    steps,
    (step) => step.run(),
    (made, failed, rest) =>
      ctx.warn(
        `marking "${marking.name}" ${made.length === 0 ? 'was not changed' : `was changed in part: ${describeSteps(made, 'done')}`}. ` +
          `Failed: ${describeSteps([failed], 'todo')}.` +
          (rest.length > 0 ? ` Not sent: ${describeSteps(rest, 'todo')}.` : ''),
      ),
  );
}

export async function update(
  ctx: CommandContext,
  ref: string,
  options: UpdateOptions,
): Promise<void> {
  if (options.file !== undefined) return updateFromFile(ctx, ref, options.file, options);
  if (options.setValues && (options.addValue || options.removeValue)) {
    throw new UsageError(
      '--set-values gives the complete set; it cannot be combined with --add-value or --remove-value',
    );
  }
  if (options.rename !== undefined) checkName(options.rename, 'new name');
  checkDescriptionFlag(options.description, `marking ${quoted(ref)}`);
  const adds = parseValueOptions(options.addValue, '--add-value');
  const removes = parseValueOptions(options.removeValue, '--remove-value').map((v) => v.name);
  const set = options.setValues ? parseValueOptions(options.setValues, '--set-values') : undefined;
  const scalar: MarkingUpdate = {};
  if (options.rename !== undefined) scalar.name = options.rename;
  if (options.description !== undefined) scalar.detail = { description: options.description };
  if (options.public !== undefined) scalar.public = options.public;
  if (options.adminOnly !== undefined) scalar.adminOnly = options.adminOnly;
  if (options.defaultValue !== undefined)
    scalar.defaultValue = options.defaultValue === false ? null : options.defaultValue;
  if (Object.keys(scalar).length === 0 && !adds.length && !removes.length && !set) {
    throw new UsageError('nothing to change', { hint: 'see `ksctl markings update --help`' });
  }

  const api = await ctx.markings();
  // Values are read only when the update concerns them: a marking may have thousands.
  const needValues = adds.length > 0 || removes.length > 0 || set !== undefined;
  const checksDefault = typeof scalar.defaultValue === 'string';
  const marking = await api.resolveMarking(ref, needValues || checksDefault ? undefined : 0);
  const removed = checkValuesChange(marking, { adds, removes, set }, scalar);
  if (scalar.name !== undefined) await checkNameFree(api, marking, scalar.name);
  await confirmRemoval(ctx, marking, removed, options.yes);

  const fields = changedFields(scalar);
  let final: Marking;
  let summary: string;
  if (set) {
    final = await putCompleteSet(api, marking, scalar, set, new Set(removed.map((v) => v.name)));
    summary = describeSetResult(marking, final, fields);
  } else {
    // Additions first (a new default may be among them), removals last (the old default may be).
    const steps: UpdateStep[] = [
      ...adds.map((v) => ({
        kind: 'add' as const,
        what: v.name,
        run: () => api.createValue(marking.id, v),
      })),
      ...(fields.length > 0
        ? [
            {
              kind: 'fields' as const,
              what: fields.join(', '),
              run: () => api.updateMarking(marking.id, scalar),
            },
          ]
        : []),
      ...removed.map((v) => ({
        kind: 'remove' as const,
        what: v.name,
        run: () => api.deleteValue(marking.id, v.id),
      })),
    ];
    await runSteps(ctx, marking, steps);
    final = await api.getMarking(marking.id, needValues ? undefined : 0);
    summary = describeSteps(steps, 'done');
  }
  ctx.say(`updated marking ${final.name}: ${summary}`);
  await ctx.render(markingView(final));
}

/** `--file` gives the whole marking, so the flags that give parts of it cannot come with it. */
function refuseWithFile(options: object, flags: Record<string, string>): void {
  const given = Object.entries(flags)
    .filter(([key]) => (options as Record<string, unknown>)[key] !== undefined)
    .map(([, flag]) => flag);
  if (given.length > 0) {
    throw new UsageError(
      `--file gives the whole marking; it cannot be combined with ${given.join(', ')}`,
    );
  }
}

async function readMarkingDocument(ctx: CommandContext, file: string): Promise<DesiredMarking> {
  const { loadMarkingDocument, markingsInputLimit } = await import('../../apply/sources.js');
  const limit = markingsInputLimit(ctx.env);
  const stdin = file === '-' ? await ctx.readStdin('a marking (YAML or JSON)', limit) : undefined;
  return loadMarkingDocument(file, { stdin, limit });
}

/** `markings create -f FILE`: Create New Marking with the document's marking. */
async function createFromFile(
  ctx: CommandContext,
  name: string | undefined,
  file: string,
  options: CreateOptions,
): Promise<void> {
  refuseWithFile(options, {
    value: '--value',
    description: '--description',
    public: '--public',
    adminOnly: '--admin-only',
    defaultValue: '--default-value',
  });
  const marking = await readMarkingDocument(ctx, file);
  if (name !== undefined && name !== marking.name) {
    throw new UsageError(
      `the name ${quoted(name)} is not the name in ${file}, ${quoted(marking.name)}`,
      {
        hint: 'leave the name out: the file gives it',
      },
    );
  }
  if (typeof marking.defaultValue === 'string' && marking.values === undefined) {
    throw new InputError(
      `${formatPosition(marking.source)}: marking "${marking.name}" is new, so its defaultValue "${marking.defaultValue}" must be one of the values it lists; nothing was sent`,
    );
  }
  const { markingInput } = await import('../../apply/strategy.js');
  const api = await ctx.markings();
  const created = await api.createMarking(markingInput(marking));
  ctx.say(
    `created marking ${created.name} (${created.id}) with ${plural(created.detail.valueCount, 'value')}`,
  );
  await ctx.render(markingView(created));
}

/**
 * `markings update MARKING -f FILE`: the document is the marking's new state. A field it leaves
 * out is kept, as in apply; its name renames the marking; its values are the complete set, sent
 * with If-Match and rebuilt on a conflict.
 */
async function updateFromFile(
  ctx: CommandContext,
  ref: string,
  file: string,
  options: UpdateOptions,
): Promise<void> {
  refuseWithFile(options, {
    rename: '--rename',
    description: '--description',
    public: '--public/--no-public',
    adminOnly: '--admin-only/--no-admin-only',
    defaultValue: '--default-value/--no-default-value',
    addValue: '--add-value',
    removeValue: '--remove-value',
    setValues: '--set-values',
  });
  const wanted = await readMarkingDocument(ctx, file);
  const api = await ctx.markings();
  const marking = await api.resolveMarking(ref, wanted.values === undefined ? 0 : undefined);
  const scalar: MarkingUpdate = {};
  if (wanted.name !== marking.name) scalar.name = wanted.name;
  if (wanted.description !== undefined) scalar.detail = { description: wanted.description };
  if (wanted.public !== undefined) scalar.public = wanted.public;
  if (wanted.adminOnly !== undefined) scalar.adminOnly = wanted.adminOnly;
  if (wanted.defaultValue !== undefined) scalar.defaultValue = wanted.defaultValue;
  if (scalar.name !== undefined) await checkNameFree(api, marking, scalar.name);
  let updated: Marking;
  if (wanted.values !== undefined) {
    const removed = checkValuesChange(
      marking,
      { adds: [], removes: [], set: wanted.values },
      scalar,
    );
    await confirmRemoval(ctx, marking, removed, options.yes);
    updated = await putCompleteSet(
      api,
      marking,
      scalar,
      wanted.values,
      new Set(removed.map((v) => v.name)),
    );
  } else {
    updated = await api.updateMarking(marking.id, scalar);
  }
  const renamed = updated.name === marking.name ? '' : ` (renamed from ${marking.name})`;
  const changes =
    wanted.values === undefined
      ? ''
      : `: ${describeSetResult(marking, updated, changedFields(scalar))}`;
  ctx.say(`updated marking ${updated.name}${renamed} from ${file}${changes}`);
  await ctx.render(markingView(updated));
}

export async function remove(
  ctx: CommandContext,
  refs: string[],
  options: DeleteOptions,
): Promise<void> {
  const api = await ctx.markings();
  const targets: Marking[] = [];
  for (const ref of refs) targets.push(await api.resolveMarking(ref, 0));
  const describe = (m: Marking) => `"${m.name}" (${plural(m.detail.valueCount, 'value')})`;
  await ctx.confirm(
    targets.length === 1
      ? `Delete marking ${describe(targets[0]!)}?`
      : `Delete ${targets.length} markings: ${targets.map(describe).join(', ')}?`,
    options.yes,
  );
  await deleteInTurn(
    (text) => ctx.warn(text),
    targets.map((m) => ({
      name: m.name,
      run: async () => {
        await api.deleteMarking(m.id, options.ifVersion);
        ctx.say(`deleted marking ${m.name} (${m.id})`);
      },
    })),
    'markings',
  );
  await ctx.outcome({ deleted: targets.map((m) => ({ id: m.id, name: m.name })) });
}

import type { MarkingsApi } from '../../api/markings-api.js';
import { descriptionProblem, nameProblem } from '../../api/names.js';
import type { Marking, MarkingUpdate, MarkingValue, ValueInput } from '../../api/wire.js';
import { type DesiredMarking, formatPosition } from '../../apply/types.js';
import { ConflictError, InputError, NotFoundError, UsageError } from '../../errors.js';
import { markingsListView, markingView } from '../../output/markings.js';
import { plural, quotedNames } from '../../output/render.js';
import type { CommandContext } from '../context.js';
import { filterFromOptions } from '../filter-options.js';
import { type NameAndDescription, nameAndDescription } from '../options.js';
import type {
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  UpdateOptions,
} from './markings.js';

/** Values from NAME[=DESCRIPTION] options, checked before anything is sent. */
export function parseValueOptions(texts: string[] | undefined, flag: string): NameAndDescription[] {
  const values = (texts ?? []).map(nameAndDescription);
  const problems = values.flatMap((v) => {
    const problem = nameProblem(v.name);
    return problem
      ? [{ path: `${flag} ${JSON.stringify(v.name)}`, message: `value name ${problem}` }]
      : [];
  });
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v.name))
      problems.push({ path: `${flag} ${JSON.stringify(v.name)}`, message: 'given twice' });
    seen.add(v.name);
  }
  if (problems.length > 0)
    throw new InputError('invalid values; nothing was sent', { details: problems });
  return values;
}

function checkName(name: string, what: string): void {
  const problem = nameProblem(name);
  if (problem)
    throw new InputError(`invalid ${what} ${JSON.stringify(name)}: ${problem}; nothing was sent`);
}

function checkDescription(description: string, what: string): void {
  const problem = descriptionProblem(description);
  if (problem) throw new InputError(`${what}: description ${problem}; nothing was sent`);
}

export async function list(ctx: CommandContext, o: ListOptions): Promise<void> {
  const format = ctx.format();
  const api = await ctx.markings();
  // A table shows value counts only, so it never asks for values.
  const valueLimit = format === 'table' ? 0 : o.valueLimit;
  const items = api.listMarkings(
    {
      name: o.name,
      name__contains: o.contains,
      name__startswith: o.startsWith,
      public: o.public,
      filter: filterFromOptions(o),
      valueLimit,
    },
    o.limit,
  );
  await ctx.renderList('listing markings', items, markingsListView);
}

export async function get(ctx: CommandContext, ref: string, o: GetOptions): Promise<void> {
  const api = await ctx.markings();
  const marking = await ctx.waiting(`reading marking ${ref}`, () =>
    api.resolveMarking(ref, o.valueLimit),
  );
  await ctx.render(markingView(marking));
}

export async function create(
  ctx: CommandContext,
  name: string | undefined,
  o: CreateOptions,
): Promise<void> {
  if (o.file !== undefined) return createFromFile(ctx, name, o.file, o);
  if (name === undefined) throw new UsageError('a name is needed: ksctl markings create NAME');
  checkName(name, 'marking name');
  const values = parseValueOptions(o.value, '--value');
  if (o.defaultValue !== undefined && !values.some((v) => v.name === o.defaultValue)) {
    throw new InputError(
      `--default-value "${o.defaultValue}" is not one of the --value options; nothing was sent`,
    );
  }
  const api = await ctx.markings();
  const created = await api.createMarking({
    name,
    public: o.public,
    adminOnly: o.adminOnly,
    defaultValue: o.defaultValue,
    detail: { description: o.description, values },
  });
  ctx.say(
    `created marking ${created.name} (${created.id}) with ${created.detail.valueCount} values`,
  );
  await ctx.render(markingView(created));
}

const SET_VALUES_ATTEMPTS = 5;

/**
 * Update Marking with a complete set of values, guarded by If-Match: if someone changed the marking
 * meanwhile (412), read it again and rebuild the set, so their other changes are not overwritten
 * blindly. A value the user was not shown as going (one added meanwhile) is never removed: the
 * command stops instead, with nothing changed.
 */
async function putCompleteSet(
  api: MarkingsApi,
  read: Marking,
  scalar: MarkingUpdate,
  wanted: NameAndDescription[],
  confirmedRemovals: ReadonlySet<string>,
): Promise<Marking> {
  let current = read;
  for (let attempt = 1; ; attempt++) {
    const existing = new Map((current.detail.values ?? []).map((v) => [v.name, v]));
    const wantedNames = new Set(wanted.map((w) => w.name));
    const unconfirmed = [...existing.keys()].filter(
      (name) => !wantedNames.has(name) && !confirmedRemovals.has(name),
    );
    if (unconfirmed.length > 0) {
      throw new ConflictError(
        `marking "${current.name}" changed meanwhile: the new set would also remove ${quotedNames(unconfirmed)}; nothing was changed`,
        { hint: 'run the command again to see and confirm what it removes' },
      );
    }
    const values: ValueInput[] = wanted.map((w) => {
      const old = existing.get(w.name);
      return old
        ? { id: old.id, name: w.name, description: w.description ?? old.description }
        : { name: w.name, description: w.description };
    });
    try {
      return await api.updateMarking(
        current.id,
        { ...scalar, detail: { ...scalar.detail, values } },
        current._version,
      );
    } catch (error) {
      const stale = error instanceof ConflictError && error.status === 412;
      if (!stale || attempt >= SET_VALUES_ATTEMPTS) throw error;
    }
    current = await api.getMarking(read.id);
  }
}

/** The marking fields an update changes, as a user calls them. */
function changedFields(scalar: MarkingUpdate): string[] {
  const fields: string[] = [];
  if (scalar.name !== undefined) fields.push(`name (to ${JSON.stringify(scalar.name)})`);
  if (scalar.detail?.description !== undefined) fields.push('description');
  if (scalar.public !== undefined) fields.push('public');
  if (scalar.adminOnly !== undefined) fields.push('admin-only');
  if (scalar.defaultValue !== undefined) fields.push('default value');
  return fields;
}

/**
 * Everything about an update that the marking as read can tell, checked before the first request
 * so that a command never stops half-way over something it could have known. Returns the values
 * that go.
 */
function checkValuesChange(
  marking: Marking,
  change: { adds: NameAndDescription[]; removes: string[]; set?: NameAndDescription[] },
  scalar: MarkingUpdate,
): MarkingValue[] {
  // Read without values: the update touches neither the values nor the default.
  if (marking.detail.values === undefined) return [];
  const values = marking.detail.values;
  const byName = new Map(values.map((v) => [v.name, v]));
  const where = `marking "${marking.name}"`;
  let removed: MarkingValue[];
  let after: Set<string>;
  if (change.set) {
    after = new Set(change.set.map((v) => v.name));
    removed = values.filter((v) => !after.has(v.name));
  } else {
    const taken = change.adds.filter((v) => byName.has(v.name)).map((v) => v.name);
    if (taken.length > 0) {
      throw new ConflictError(
        `${where} already has a value named ${quotedNames(taken)}; nothing was sent`,
      );
    }
    removed = [];
    for (const ref of change.removes) {
      const value = byName.get(ref) ?? values.find((v) => v.id === ref);
      if (!value) {
        throw new NotFoundError(`value "${ref}" not found in ${where}; nothing was sent`, {
          hint: `list its values with \`ksctl markings values list ${marking.name}\``,
        });
      }
      if (change.adds.some((v) => v.name === value.name)) {
        throw new UsageError(`value "${value.name}" is both added and removed`);
      }
      removed.push(value);
    }
    after = new Set(values.map((v) => v.name));
    for (const v of removed) after.delete(v.name);
    for (const v of change.adds) after.add(v.name);
  }
  if (typeof scalar.defaultValue === 'string' && !after.has(scalar.defaultValue)) {
    throw new InputError(
      `defaultValue: "${scalar.defaultValue}" is not one of the marking's values${change.adds.length || change.set ? ' after this update' : ''}; nothing was sent`,
    );
  }
  const defaultValue = marking.defaultValue;
  if (scalar.defaultValue === undefined && defaultValue && !after.has(defaultValue)) {
    throw new ConflictError(
      `value "${defaultValue}" is the default value of ${where}; nothing was sent`,
      { hint: 'give another one with --default-value, or clear it with --no-default-value' },
    );
  }
  return removed;
}

/** A rename onto a name another marking has would fail after the other changes were made. */
async function checkNameFree(api: MarkingsApi, marking: Marking, name: string): Promise<void> {
  if (name === marking.name) return;
  const { items } = await api.listMarkingsPage({ name, valueLimit: 0, limit: 1 });
  if (items.length > 0) {
    throw new ConflictError(`a marking named "${name}" already exists; nothing was sent`);
  }
}

/** Removing values is destructive (DESIGN 5): list what goes and ask, or need --yes. */
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

type ChangeKind = 'add' | 'fields' | 'remove';

interface Change {
  kind: ChangeKind;
  /** The value name, or the fields changed. */
  what: string;
}

/** One request of an update. */
interface UpdateStep extends Change {
  run: () => Promise<unknown>;
}

const STEP_WORDS: Record<ChangeKind, { done: string; todo: string }> = {
  add: { done: 'added', todo: 'add' },
  fields: { done: 'changed', todo: 'change' },
  remove: { done: 'removed', todo: 'remove' },
};

/** Steps as one phrase per kind: `added values "a", "b"; changed description`. */
function describeSteps(steps: readonly Change[], tense: 'done' | 'todo'): string {
  const phrases: string[] = [];
  for (const kind of ['add', 'fields', 'remove'] as const) {
    const names = steps.filter((s) => s.kind === kind).map((s) => s.what);
    if (names.length === 0) continue;
    const verb = STEP_WORDS[kind][tense];
    phrases.push(
      kind === 'fields'
        ? `${verb} ${names.join(', ')}`
        : `${verb} ${names.length === 1 ? 'value' : 'values'} ${quotedNames(names)}`,
    );
  }
  return phrases.join('; ');
}

/**
 * Runs one request per item, in order. When one fails, `report` hears what was done, which item
 * failed and what was never sent; then the error goes on.
 */
async function runInOrder<T>(
  items: readonly T[],
  run: (item: T) => Promise<unknown>,
  report: (done: T[], failed: T, notSent: T[]) => void,
): Promise<void> {
  let done = 0;
  try {
    for (const item of items) {
      await run(item);
      done++;
    }
  } catch (error) {
    report(items.slice(0, done), items[done]!, items.slice(done + 1));
    throw error;
  }
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

export async function update(ctx: CommandContext, ref: string, o: UpdateOptions): Promise<void> {
  if (o.file !== undefined) return updateFromFile(ctx, ref, o.file, o);
  if (o.setValues && (o.addValue || o.removeValue)) {
    throw new UsageError(
      '--set-values gives the complete set; it cannot be combined with --add-value or --remove-value',
    );
  }
  if (o.rename !== undefined) checkName(o.rename, 'new name');
  if (o.description !== undefined) checkDescription(o.description, '--description');
  const adds = parseValueOptions(o.addValue, '--add-value');
  const removes = parseValueOptions(o.removeValue, '--remove-value').map((v) => v.name);
  const set = o.setValues ? parseValueOptions(o.setValues, '--set-values') : undefined;
  for (const v of [...adds, ...(set ?? [])]) {
    if (v.description !== undefined) checkDescription(v.description, `value "${v.name}"`);
  }
  const scalar: MarkingUpdate = {};
  if (o.rename !== undefined) scalar.name = o.rename;
  if (o.description !== undefined) scalar.detail = { description: o.description };
  if (o.public !== undefined) scalar.public = o.public;
  if (o.adminOnly !== undefined) scalar.adminOnly = o.adminOnly;
  if (o.defaultValue !== undefined)
    scalar.defaultValue = o.defaultValue === false ? null : o.defaultValue;
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
  await confirmRemoval(ctx, marking, removed, o.yes);

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

/** What a complete-set update did, from the marking before and after. */
function describeSetResult(before: Marking, after: Marking, fields: string[]): string {
  const names = (m: Marking) => new Set((m.detail.values ?? []).map((v) => v.name));
  const old = names(before);
  const now = names(after);
  const changes: Change[] = [
    ...[...now].filter((n) => !old.has(n)).map((n) => ({ kind: 'add' as const, what: n })),
    ...(fields.length > 0 ? [{ kind: 'fields' as const, what: fields.join(', ') }] : []),
    ...[...old].filter((n) => !now.has(n)).map((n) => ({ kind: 'remove' as const, what: n })),
  ];
  return changes.length > 0
    ? describeSteps(changes, 'done')
    : `kept its ${plural(now.size, 'value')}`;
}

/** `--file` gives the whole marking, so the flags that give parts of it cannot come with it. */
function refuseWithFile(o: object, flags: Record<string, string>): void {
  const given = Object.entries(flags)
    .filter(([key]) => (o as Record<string, unknown>)[key] !== undefined)
    .map(([, flag]) => flag);
  if (given.length > 0) {
    throw new UsageError(
      `--file gives the whole marking; it cannot be combined with ${given.join(', ')}`,
    );
  }
}

async function readMarkingDocument(ctx: CommandContext, file: string): Promise<DesiredMarking> {
  const { loadMarkingDocument, readSourcesInput } = await import('../../apply/files.js');
  return loadMarkingDocument(file, await readSourcesInput([file], ctx.io.stdin, ctx.env));
}

/** `markings create -f FILE`: Create New Marking with the document's marking. */
async function createFromFile(
  ctx: CommandContext,
  name: string | undefined,
  file: string,
  o: CreateOptions,
): Promise<void> {
  refuseWithFile(o, {
    value: '--value',
    description: '--description',
    public: '--public',
    adminOnly: '--admin-only',
    defaultValue: '--default-value',
  });
  const marking = await readMarkingDocument(ctx, file);
  if (name !== undefined && name !== marking.name) {
    throw new UsageError(`the name "${name}" is not the name in ${file}, "${marking.name}"`, {
      hint: 'leave the name out: the file gives it',
    });
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
  o: UpdateOptions,
): Promise<void> {
  refuseWithFile(o, {
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
    await confirmRemoval(ctx, marking, removed, o.yes);
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

export async function remove(ctx: CommandContext, refs: string[], o: DeleteOptions): Promise<void> {
  const api = await ctx.markings();
  const targets: Marking[] = [];
  for (const ref of refs) targets.push(await api.resolveMarking(ref, 0));
  const describe = (m: Marking) => `"${m.name}" (${plural(m.detail.valueCount, 'value')})`;
  await ctx.confirm(
    targets.length === 1
      ? `Delete marking ${describe(targets[0]!)}?`
      : `Delete ${targets.length} markings: ${targets.map(describe).join(', ')}?`,
    o.yes,
  );
  await deleteInTurn(
    ctx,
    targets.map((m) => ({
      name: m.name,
      run: async () => {
        await api.deleteMarking(m.id, o.ifVersion);
        ctx.say(`deleted marking ${m.name} (${m.id})`);
      },
    })),
    'markings',
  );
}

/**
 * Deletions sent one request each, in order. When one fails, says which were deleted and which
 * were not sent (even with --quiet), then rethrows its error.
 */
export async function deleteInTurn(
  ctx: CommandContext,
  items: { name: string; run: () => Promise<void> }[],
  what: string,
): Promise<void> {
  const names = (list: typeof items) => quotedNames(list.map((item) => item.name));
  await runInOrder(
    items,
    (item) => item.run(),
    (done, failed, rest) => {
      if (items.length === 1) return;
      ctx.warn(
        `${done.length === 0 ? `no ${what} were deleted` : `deleted ${names(done)}`}; failed: ${names([failed])}` +
          (rest.length > 0 ? `; not sent: ${names(rest)}` : ''),
      );
    },
  );
}

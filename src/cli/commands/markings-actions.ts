import type { MarkingsApi } from '../../api/markings-api.js';
import { nameProblem } from '../../api/names.js';
import type { Marking, MarkingUpdate, ValueInput } from '../../api/wire.js';
import { type DesiredMarking, formatPosition } from '../../apply/types.js';
import { ConflictError, InputError, UsageError } from '../../errors.js';
import { readAll } from '../../output/io.js';
import { markingsListView, markingView } from '../../output/markings.js';
import { plural, writeJsonArray } from '../../output/render.js';
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
  if (format === 'json') {
    await writeJsonArray(ctx.io, items);
    return;
  }
  const markings: Marking[] = [];
  for await (const m of items) markings.push(m);
  await ctx.render(markingsListView(markings));
}

export async function get(ctx: CommandContext, ref: string, o: GetOptions): Promise<void> {
  const api = await ctx.markings();
  await ctx.render(markingView(await api.resolveMarking(ref, o.valueLimit)));
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
    `Created marking ${created.name} (${created.id}) with ${created.detail.valueCount} values.`,
  );
  await ctx.render(markingView(created));
}

const SET_VALUES_ATTEMPTS = 5;

/**
 * Update Marking with a complete set of values, guarded by If-Match: if someone changed the marking
 * meanwhile (412), read it again and rebuild the set, so their other changes are not overwritten
 * blindly.
 */
async function putCompleteSet(
  api: MarkingsApi,
  id: string,
  scalar: MarkingUpdate,
  wanted: NameAndDescription[],
): Promise<Marking> {
  for (let attempt = 1; ; attempt++) {
    const current = await api.getMarking(id);
    const existing = new Map((current.detail.values ?? []).map((v) => [v.name, v]));
    const values: ValueInput[] = wanted.map((w) => {
      const old = existing.get(w.name);
      return old
        ? { id: old.id, name: w.name, description: w.description ?? old.description }
        : { name: w.name, description: w.description };
    });
    try {
      return await api.updateMarking(
        id,
        { ...scalar, detail: { ...scalar.detail, values } },
        current._version,
      );
    } catch (error) {
      const stale = error instanceof ConflictError && error.status === 412;
      if (!stale || attempt >= SET_VALUES_ATTEMPTS) throw error;
    }
  }
}

export async function update(ctx: CommandContext, ref: string, o: UpdateOptions): Promise<void> {
  if (o.file !== undefined) return updateFromFile(ctx, ref, o.file, o);
  if (o.setValues && (o.addValue || o.removeValue)) {
    throw new UsageError(
      '--set-values gives the complete set; it cannot be combined with --add-value or --remove-value',
    );
  }
  if (o.rename !== undefined) checkName(o.rename, 'new name');
  const adds = parseValueOptions(o.addValue, '--add-value');
  const removes = parseValueOptions(o.removeValue, '--remove-value');
  const set = o.setValues ? parseValueOptions(o.setValues, '--set-values') : undefined;
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
  const marking = await api.resolveMarking(ref, 0);
  const changes: string[] = [];
  let result: Marking | undefined;
  if (set) {
    result = await putCompleteSet(api, marking.id, scalar, set);
    changes.push(`set ${plural(set.length, 'value')}`);
  } else {
    // Additions first (a new default may be among them), removals last (the old default may be).
    for (const v of adds) await api.createValue(marking.id, v);
    if (adds.length) changes.push(`added ${plural(adds.length, 'value')}`);
    if (Object.keys(scalar).length > 0) result = await api.updateMarking(marking.id, scalar);
    for (const r of removes) {
      const value = await api.resolveValue(marking.id, r.name);
      await api.deleteValue(marking.id, value.id);
    }
    if (removes.length) changes.push(`removed ${plural(removes.length, 'value')}`);
  }
  if (Object.keys(scalar).length > 0) changes.unshift('updated fields');
  const final =
    result && !adds.length && !removes.length ? result : await api.getMarking(marking.id);
  ctx.say(`Updated marking ${final.name}: ${changes.join(', ')}.`);
  await ctx.render(markingView(final));
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
  const { loadMarkingDocument } = await import('../../apply/files.js');
  const stdin = file === '-' ? await readAll(ctx.io.stdin) : undefined;
  return loadMarkingDocument(file, { stdin });
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
    `Created marking ${created.name} (${created.id}) with ${plural(created.detail.valueCount, 'value')}.`,
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
  const marking = await api.resolveMarking(ref, 0);
  const scalar: MarkingUpdate = {};
  if (wanted.name !== marking.name) scalar.name = wanted.name;
  if (wanted.description !== undefined) scalar.detail = { description: wanted.description };
  if (wanted.public !== undefined) scalar.public = wanted.public;
  if (wanted.adminOnly !== undefined) scalar.adminOnly = wanted.adminOnly;
  if (wanted.defaultValue !== undefined) scalar.defaultValue = wanted.defaultValue;
  const updated =
    wanted.values !== undefined
      ? await putCompleteSet(api, marking.id, scalar, wanted.values)
      : await api.updateMarking(marking.id, scalar);
  const renamed = updated.name === marking.name ? '' : ` (renamed from ${marking.name})`;
  ctx.say(`Updated marking ${updated.name}${renamed} from ${file}.`);
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
  for (const m of targets) {
    await api.deleteMarking(m.id, o.ifVersion);
    ctx.say(`Deleted marking ${m.name} (${m.id}).`);
  }
}

import { VALUE_FILTER_FIELDS } from '../../../common/markings/filters.js';
import { nameProblem } from '../../../common/markings/names.js';
import { quoted } from '../../../common/text/words.js';
import type { MarkingValue } from '../../../common/markings/wire.js';
import { InputError, UsageError } from '../../../common/errors.js';
import { valuesListView, valueView } from '../../markings/views.js';
import { plural, quotedNames } from '../../../common/text/words.js';
import type { CommandContext } from '../kit/command-context.js';
import { filterFromOptions } from '../kit/filter-options.js';
import { checkDescriptionFlag, deleteInTurn, parseValueOptions } from '../../markings/changes.js';
import type { FilterOptionValues } from '../kit/filter-options.js';

export interface ValuesListOptions extends FilterOptionValues {
  limit?: number;
}

export interface ValuesAddOptions {
  description?: string;
}

export interface ValuesUpdateOptions {
  rename?: string;
  description?: string;
}

export interface ValuesDeleteOptions {
  yes?: boolean;
}

export async function list(
  ctx: CommandContext,
  markingRef: string,
  options: ValuesListOptions,
): Promise<void> {
  const filter = filterFromOptions(options, VALUE_FILTER_FIELDS);
  const api = await ctx.markings();
  const marking = await api.resolveMarking(markingRef, 0);
  const values: MarkingValue[] = [];
  // Many short pages are one wait: the spinner covers them all, not each.
  await ctx.waiting(`listing the values of marking ${quoted(marking.name)}`, async () => {
    for await (const v of api.listValues(marking.id, { filter }, options.limit)) values.push(v);
  });
  await ctx.render(valuesListView(values));
}

export async function get(
  ctx: CommandContext,
  markingRef: string,
  valueRef: string,
): Promise<void> {
  const api = await ctx.markings();
  const marking = await api.resolveMarking(markingRef, 0);
  await ctx.render(valueView(await api.resolveValue(marking.id, valueRef, marking.name)));
}

export async function add(
  ctx: CommandContext,
  markingRef: string,
  texts: string[],
  options: ValuesAddOptions,
): Promise<void> {
  checkDescriptionFlag(options.description, 'the values added');
  const values = parseValueOptions(texts, 'value').map((v) => ({
    ...v,
    description: v.description ?? options.description,
  }));
  const api = await ctx.markings();
  const marking = await api.resolveMarking(markingRef, 0);
  const created: MarkingValue[] = [];
  try {
    for (const v of values) created.push(await api.createValue(marking.id, v));
  } catch (error) {
    // Each value is its own request: say which ones went in before the failure.
    if (created.length > 0) {
      ctx.warn(
        `added ${created.map((v) => v.name).join(', ')} to marking ${marking.name} before the failure; the rest were not sent`,
      );
    }
    throw error;
  }
  ctx.say(
    `added ${created.length} value${created.length === 1 ? '' : 's'} to marking ${marking.name}`,
  );
  if (created.length === 1) await ctx.render(valueView(created[0]!));
  else await ctx.render(valuesListView(created));
}

export async function update(
  ctx: CommandContext,
  markingRef: string,
  valueRef: string,
  options: ValuesUpdateOptions,
): Promise<void> {
  if (options.rename === undefined && options.description === undefined) {
    throw new UsageError('nothing to change: give --rename or --description');
  }
  if (options.rename !== undefined) {
    const problem = nameProblem(options.rename);
    if (problem)
      throw new InputError(
        `invalid new name ${quoted(options.rename)}: ${problem}; nothing was sent`,
      );
  }
  checkDescriptionFlag(options.description, `value ${quoted(valueRef)}`);
  const api = await ctx.markings();
  const marking = await api.resolveMarking(markingRef, 0);
  const value = await api.resolveValue(marking.id, valueRef, marking.name);
  const updated = await api.updateValue(marking.id, value.id, {
    name: options.rename,
    description: options.description,
  });
  ctx.say(`updated value ${updated.name} of marking ${marking.name}`);
  await ctx.render(valueView(updated));
}

export async function remove(
  ctx: CommandContext,
  markingRef: string,
  refs: string[],
  options: ValuesDeleteOptions,
): Promise<void> {
  const api = await ctx.markings();
  const marking = await api.resolveMarking(markingRef, 0);
  const targets: MarkingValue[] = [];
  for (const ref of refs) targets.push(await api.resolveValue(marking.id, ref, marking.name));
  const names = targets.map((v) => quoted(v.name)).join(', ');
  await ctx.confirm(
    `Delete ${targets.length === 1 ? 'value' : 'values'} ${names} of marking "${marking.name}"?`,
    options.yes,
  );
  await deleteInTurn(
    (text) => ctx.warn(text),
    targets.map((v) => ({ name: v.name, run: () => api.deleteValue(marking.id, v.id) })),
    `values of marking ${marking.name}`,
  );
  ctx.say(
    `deleted ${plural(targets.length, 'value')} from marking ${marking.name}: ${quotedNames(targets.map((v) => v.name))}`,
  );
  await ctx.outcome({
    marking: { id: marking.id, name: marking.name },
    deleted: targets.map((v) => ({ id: v.id, name: v.name })),
  });
}

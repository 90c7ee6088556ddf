/**
 * `--filter FIELD[__OP]=VALUE` (repeatable) and `--or` of the list commands: each filter is
 * checked with the service's own grammar (src/api/filters.ts) while the options are parsed, so a
 * typo is a usage error (exit 2) naming it and nothing is sent. Filters go to the service as is.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import {
  combineRepeatedTerms,
  FILTER_OPERATORS,
  type FilterFields,
  FilterProblem,
  type FilterTerm,
  type ListFilter,
  parseFilterExpression,
} from '../api/filters.js';

export interface FilterOptionValues {
  filter?: FilterTerm[];
  or?: boolean;
}

function filterParser(fields: FilterFields) {
  return (text: string, previous: FilterTerm[] | undefined): FilterTerm[] => {
    try {
      // Repeated --filter NAME__any terms are one union; other repeats are refused here, as
      // the service would refuse them.
      return combineRepeatedTerms([...(previous ?? []), parseFilterExpression(text, fields)]);
    } catch (error) {
      if (error instanceof FilterProblem) {
        throw new InvalidArgumentError(`${JSON.stringify(text)}: ${error.reason}.`);
      }
      throw error;
    }
  };
}

/** Comma-separated items in lines of at most `width` characters, each line indented. */
export function wrapList(items: readonly string[], width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const item of items) {
    const next = line === '' ? item : `${line}, ${item}`;
    if (next.length + indent.length > width && line !== '') {
      lines.push(`${line},`);
      line = item;
    } else line = next;
  }
  lines.push(line);
  return lines.map((text) => indent + text).join('\n');
}

function filterHelp(fields: FilterFields): string {
  return `
Filters are applied by the service, never locally:
  FIELD=VALUE          equality
  FIELD__OP=VALUE      OP is one of ${FILTER_OPERATORS.join(', ')}
                       (empty takes true/false; any and all a comma-separated list)
  FIELD__OP__ne=VALUE  the operator negated (every operator but ne and empty)
  --or                 a result passes one filter instead of all (shortcuts included)
Fields (times are epoch milliseconds):
${wrapList(Object.keys(fields), 80, '  ')}
Example: --filter name__startswith=region --filter description__contains__ne=legacy`;
}

/** Adds --filter and --or; `fields` are the filterable fields of the listed resource. */
export function withFilterOptions(command: Command, fields: FilterFields): Command {
  return command
    .addOption(
      new Option(
        '--filter <field[__op]=value>',
        'a filter the service applies; repeat for more (see below)',
      ).argParser(filterParser(fields)),
    )
    .addOption(new Option('--or', 'a result needs to pass one filter, not all'))
    .addHelpText('after', filterHelp(fields));
}

/** The filter to send: --filter terms; undefined when none was given. */
export function filterFromOptions(options: FilterOptionValues): ListFilter | undefined {
  if (options.filter === undefined && !options.or) return undefined;
  return { terms: options.filter ?? [], or: options.or === true };
}

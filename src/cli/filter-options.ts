/**
 * `--filter FIELD[__OP]=VALUE` (repeatable) and `--or` of the list commands: each filter is
 * checked with the service's own grammar (src/api/filters.ts) while the options are parsed, so a
 * typo is a usage error (exit 2) naming it and nothing is sent. Filters go to the service as is.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import {
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
      return [...(previous ?? []), parseFilterExpression(text, fields)];
    } catch (error) {
      if (error instanceof FilterProblem) {
        throw new InvalidArgumentError(`${JSON.stringify(text)}: ${error.reason}.`);
      }
      throw error;
    }
  };
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
    .addHelpText(
      'after',
      `\nFilters (sent to the service): FIELD=VALUE tests equality; FIELD__OP=VALUE applies an operator:
  ${FILTER_OPERATORS.join(', ')} (empty takes true/false; any and all a comma-separated list).
  Append __ne to negate an operator (name__contains__ne=tmp). Fields: ${Object.keys(fields).join(', ')}.
  Times are epoch milliseconds. --or combines every filter, the shortcuts included, with OR.`,
    );
}

/** The filter to send: --filter terms; undefined when none was given. */
export function filterFromOptions(o: FilterOptionValues): ListFilter | undefined {
  if (o.filter === undefined && !o.or) return undefined;
  return { terms: o.filter ?? [], or: o.or === true };
}

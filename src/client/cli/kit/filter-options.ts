/**
 * `--filter FIELD[__OP]=VALUE` (repeatable), `--or` and the name shortcuts of the list commands
 * (`--name`, `--contains`, `--starts-with`, each repeatable, and `--[no-]public`): each filter is
 * checked with the service's own grammar (src/common/markings/filters.ts) while the options are parsed, so a
 * typo is a usage error (exit 2) naming it and nothing is sent. Every flag given is one term, sent
 * to the service as written (a repeat is neither dropped nor merged); terms that together could
 * match nothing (two different names under AND) are refused before anything is sent.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import {
  clashingEqualities,
  clashProblem,
  FILTER_OPERATORS,
  type FilterFields,
  FilterProblem,
  type FilterTerm,
  type ListFilter,
  parseFilterExpression,
  parseFilterTerm,
} from '../../../common/markings/filters.js';
import { UsageError } from '../../../common/errors.js';

export interface FilterOptionValues {
  /** `--name`, `--contains`, `--starts-with`: every one given, in order. */
  name?: string[];
  contains?: string[];
  startsWith?: string[];
  public?: boolean;
  filter?: FilterTerm[];
  or?: boolean;
}

/** The shortcut flags and the filter parameter each stands for, in the order they are sent. */
const SHORTCUTS = [
  ['name', '--name', 'name'],
  ['contains', '--contains', 'name__contains'],
  ['startsWith', '--starts-with', 'name__startswith'],
] as const;

/** The parser of a repeatable flag: every value given, in order. */
export function repeatable(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
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
  a repeated flag      is a filter each time (--contains a --contains b: both);
                       --name a --name b matches nothing without --or: refused
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

/**
 * The filter to send: a term for each shortcut given, then the --filter terms; undefined when
 * none was given. Throws UsageError (nothing sent) for equalities on one field that together
 * match nothing, saying what lists either.
 */
export function filterFromOptions(
  options: FilterOptionValues,
  fields: FilterFields,
): ListFilter | undefined {
  const given: { term: FilterTerm; flag: string }[] = [];
  for (const [key, flag, parameter] of SHORTCUTS) {
    for (const text of options[key] ?? []) {
      given.push({
        term: parseFilterTerm(parameter, text, fields),
        flag: `${flag} ${JSON.stringify(text)}`,
      });
    }
  }
  if (options.public !== undefined) {
    const flag = options.public ? '--public' : '--no-public';
    given.push({ term: parseFilterTerm('public', String(options.public), fields), flag });
  }
  for (const term of options.filter ?? []) {
    given.push({ term, flag: `--filter ${JSON.stringify(`${term.parameter}=${term.text}`)}` });
  }
  if (given.length === 0 && !options.or) return undefined;
  const terms = given.map(({ term }) => term);
  const clash = clashingEqualities(terms, options.or === true);
  if (clash !== undefined) {
    const flags = given.filter(({ term }) => clash.includes(term)).map(({ flag }) => flag);
    const { brief, any } = clashProblem(clash);
    const together = `${flags.slice(0, -1).join(', ')} and ${flags.at(-1)!}`;
    throw new UsageError(`${together} together match nothing (${brief}); nothing was sent`, {
      hint: `for either, use ${any === undefined ? '' : `--filter ${any}, or `}--or (a result then passes one filter, not all)`,
    });
  }
  return { terms, or: options.or === true };
}

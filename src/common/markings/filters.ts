/**
 * The list filter grammar of the public Ionic API (docs/design.md 1.2), defined once: the mock parses
 * query strings with it (and evaluates the result: mock/markings/filter-match.ts), ksctl parses `--filter` with it before sending.
 *
 *   FIELD=V              equality
 *   FIELD__OP=V          an operator: contains, startswith, gte, lte, ne, empty, any, all
 *   FIELD__OP__ne=V      the operator negated (every operator but ne and empty)
 *   or=true              terms combine with OR instead of AND
 */
import { closest } from '../text/did-you-mean.js';

export const FILTER_OPERATORS = [
  'contains',
  'startswith',
  'gte',
  'lte',
  'ne',
  'empty',
  'any',
  'all',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** `eq` is the bare `FIELD=V` form; it has no suffix on the wire. */
export type FilterOp = 'eq' | FilterOperator;

export type FilterFieldType = 'string' | 'boolean' | 'timestamp';
export type FilterScalar = string | number | boolean;

/** Filterable fields of List Markings; `description` is `detail.description`. */
export const MARKING_FILTER_FIELDS = {
  id: 'string',
  name: 'string',
  description: 'string',
  public: 'boolean',
  adminOnly: 'boolean',
  defaultValue: 'string',
  _createdTs: 'timestamp',
  _updatedTs: 'timestamp',
  _createdBy: 'string',
  _updatedBy: 'string',
} as const satisfies Record<string, FilterFieldType>;

/** Filterable fields of List Values. */
export const VALUE_FILTER_FIELDS = {
  id: 'string',
  name: 'string',
  description: 'string',
  _createdTs: 'timestamp',
  _updatedTs: 'timestamp',
} as const satisfies Record<string, FilterFieldType>;

export type MarkingFilterField = keyof typeof MARKING_FILTER_FIELDS;
export type ValueFilterField = keyof typeof VALUE_FILTER_FIELDS;
export type FilterFields = Readonly<Record<string, FilterFieldType>>;

/** Operators each field type takes (substring tests make no sense on a flag or a time). */
const OPERATORS_BY_TYPE: Record<FilterFieldType, ReadonlySet<FilterOp>> = {
  string: new Set<FilterOp>(['eq', ...FILTER_OPERATORS]),
  timestamp: new Set<FilterOp>(['eq', 'gte', 'lte', 'ne', 'empty', 'any', 'all']),
  boolean: new Set<FilterOp>(['eq', 'ne', 'empty', 'any', 'all']),
};

/** Operators that cannot take the `__ne` suffix (they are a negation, or a yes/no test). */
const NOT_NEGATABLE: ReadonlySet<FilterOp> = new Set<FilterOp>(['ne', 'empty']);

/** One term of a filter, parsed and typed. */
export interface FilterTerm {
  field: string;
  type: FilterFieldType;
  op: FilterOp;
  negated: boolean;
  /** The operands: one, or the list of `any`/`all`; `empty` holds one boolean. */
  operands: FilterScalar[];
  /** The query parameter as sent (`name__contains__ne`) and its text, to send it again. */
  parameter: string;
  text: string;
}

export interface ListFilter {
  terms: FilterTerm[];
  /** Terms combine with OR (`or=true`); AND otherwise. */
  or: boolean;
}

export const NO_FILTER: ListFilter = { terms: [], or: false };

/** A filter that cannot be used; `parameter` is what to name in the message. */
export class FilterProblem extends Error {
  constructor(
    readonly parameter: string,
    readonly reason: string,
  ) {
    super(`${parameter}: ${reason}`);
  }
}

const TIMESTAMP = /^\d{1,16}$/;

function operand(type: FilterFieldType, text: string, parameter: string): FilterScalar {
  if (type === 'string') return text;
  if (type === 'boolean') {
    if (text === 'true' || text === 'false') return text === 'true';
    throw new FilterProblem(parameter, `must be true or false, not ${JSON.stringify(text)}`);
  }
  if (TIMESTAMP.test(text)) return Number(text);
  throw new FilterProblem(
    parameter,
    `must be a time in epoch milliseconds, not ${JSON.stringify(text)}`,
  );
}

/**
 * One term from a query parameter and its text. Throws FilterProblem naming the parameter for an
 * unknown field or operator, a misplaced `__ne`, or an operand of the wrong type.
 */
export function parseFilterTerm(
  parameter: string,
  text: string,
  fields: FilterFields,
  otherParameters: readonly string[] = [],
): FilterTerm {
  const [field = '', ...suffixes] = parameter.split('__');
  const type = Object.hasOwn(fields, field) ? fields[field] : undefined;
  if (type === undefined) {
    // `nme`, or `limt` among a list's paging parameters: say what was most likely meant.
    const guess =
      suffixes.length === 0
        ? closest(field, [...Object.keys(fields), ...otherParameters])
        : closest(field, Object.keys(fields));
    throw new FilterProblem(
      parameter,
      `unknown field ${JSON.stringify(field)}${guess === undefined ? '' : `; did you mean ${guess}?`} (filterable: ${Object.keys(fields).join(', ')})`,
    );
  }
  let op: FilterOp = 'eq';
  let negated = false;
  if (suffixes.length > 2) throw new FilterProblem(parameter, 'too many __ suffixes');
  if (suffixes.length >= 1) {
    const name = suffixes[0]!;
    if (!(FILTER_OPERATORS as readonly string[]).includes(name)) {
      const guess = closest(name, FILTER_OPERATORS);
      throw new FilterProblem(
        parameter,
        `unknown operator ${JSON.stringify(name)}${guess === undefined ? '' : `; did you mean ${guess}?`} (operators: ${FILTER_OPERATORS.join(', ')})`,
      );
    }
    op = name as FilterOperator;
  }
  if (suffixes.length === 2) {
    if (suffixes[1] !== 'ne') {
      throw new FilterProblem(parameter, 'only __ne may follow an operator (it negates it)');
    }
    if (NOT_NEGATABLE.has(op)) throw new FilterProblem(parameter, `${op} cannot be negated`);
    negated = true;
  }
  if (!OPERATORS_BY_TYPE[type].has(op)) {
    throw new FilterProblem(
      parameter,
      `operator ${op} does not apply to the ${type} field ${field}`,
    );
  }
  let operands: FilterScalar[];
  if (op === 'empty') operands = [operand('boolean', text, parameter)];
  else if (op === 'any' || op === 'all') {
    const items = text.split(',');
    if (text === '') throw new FilterProblem(parameter, 'needs a comma-separated list of values');
    operands = items.map((item) => operand(type, item, parameter));
  } else operands = [operand(type, text, parameter)];
  return { field, type, op, negated, operands, parameter, text };
}

/**
 * The terms the service evaluates (docs/design.md 1.2): every occurrence of a parameter is a term
 * of its own, but a repeated `__any` (or `__any__ne`) is one term with the union of the lists
 * (`name__any=a&name__any=b` is `name__any=a,b`, as clients that send lists as repeated parameters
 * mean it). Order is kept (a union stands where its first occurrence was).
 */
export function unionOfRepeatedAny(terms: readonly FilterTerm[]): FilterTerm[] {
  const merged: FilterTerm[] = [];
  const anyAt = new Map<string, number>();
  for (const term of terms) {
    const at = term.op === 'any' ? anyAt.get(term.parameter) : undefined;
    if (at === undefined) {
      if (term.op === 'any') anyAt.set(term.parameter, merged.length);
      merged.push(term);
      continue;
    }
    const seen = merged[at]!;
    const operands = [...seen.operands];
    for (const operand of term.operands) if (!operands.includes(operand)) operands.push(operand);
    merged[at] = { ...seen, operands, text: operands.map(String).join(',') };
  }
  return merged;
}

/**
 * Equalities on one field with different values, under AND (`name=a&name=b`): together they
 * match nothing, so whoever wrote them surely meant something else (either value). The
 * equalities of the first such field, in order; undefined when there are none, or under OR.
 */
export function clashingEqualities(
  terms: readonly FilterTerm[],
  or: boolean,
): FilterTerm[] | undefined {
  if (or) return undefined;
  const byField = new Map<string, FilterTerm[]>();
  for (const term of terms) {
    if (term.op !== 'eq') continue;
    const same = byField.get(term.field) ?? [];
    same.push(term);
    byField.set(term.field, same);
  }
  for (const same of byField.values()) {
    if (new Set(same.map((term) => term.operands[0])).size > 1) return same;
  }
  return undefined;
}

/**
 * Why clashing equalities (from `clashingEqualities`) are refused: `reason` names the values
 * (`name cannot be both "a" and "b"`), `brief` does not (`name cannot be both`); `any` is the
 * `__any` term that means either value (none when a value holds a comma, which a list could not
 * carry).
 */
export function clashProblem(clash: readonly FilterTerm[]): {
  reason: string;
  brief: string;
  any?: string;
} {
  const texts = [...new Set(clash.map((term) => term.text))];
  const field = clash[0]!.field;
  const quoted = texts.map((text) => JSON.stringify(text));
  const brief = `${field} cannot be ${texts.length === 2 ? 'both' : 'all of them'}`;
  const values = `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)!}`;
  return {
    reason: `${field} cannot be ${texts.length === 2 ? 'both' : 'all of'} ${values}`,
    brief,
    any: texts.some((text) => text.includes(',')) ? undefined : `${field}__any=${texts.join(',')}`,
  };
}

/** `true`/`false` of the `or` parameter. */
export function parseOrParameter(text: string): boolean {
  if (text === 'true' || text === 'false') return text === 'true';
  throw new FilterProblem('or', `must be true or false, not ${JSON.stringify(text)}`);
}

/**
 * `FIELD[__OP]=VALUE` as given to `--filter`: split at the first `=` (a value may hold more).
 * Throws FilterProblem naming the whole text.
 */
export function parseFilterExpression(expression: string, fields: FilterFields): FilterTerm {
  const at = expression.indexOf('=');
  if (at <= 0) {
    throw new FilterProblem(expression, 'expected FIELD=VALUE or FIELD__OPERATOR=VALUE');
  }
  try {
    return parseFilterTerm(expression.slice(0, at), expression.slice(at + 1), fields);
  } catch (error) {
    if (error instanceof FilterProblem) throw new FilterProblem(expression, error.reason);
    throw error;
  }
}

/** Query parameters that send a filter: one per term, and `or=true` when terms are ORed. */
export function filterQuery(filter: ListFilter): [string, string][] {
  const pairs = filter.terms.map((term): [string, string] => [term.parameter, term.text]);
  if (filter.or) pairs.push(['or', 'true']);
  return pairs;
}

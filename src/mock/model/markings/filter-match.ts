/**
 * Evaluates a parsed list filter (src/common/markings/filters.ts) against the mock's markings and values.
 * Only the mock evaluates filters; ksctl sends them as they are.
 */
import type { FilterScalar, FilterTerm, ListFilter } from '../../../common/markings/filters.js';

/** Compares strings by Unicode code point (JavaScript's `<` compares UTF-16 units). */
function compareCodePoints(a: string, b: string): number {
  const x = a[Symbol.iterator]();
  const y = b[Symbol.iterator]();
  for (;;) {
    const p = x.next();
    const q = y.next();
    if (p.done || q.done) return p.done ? (q.done ? 0 : -1) : 1;
    const d = p.value.codePointAt(0)! - q.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

function compare(a: FilterScalar, b: FilterScalar): number {
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  return Number(a) - Number(b);
}

/** The field's value as the filter sees it; null or undefined is "no value". */
export type FieldReader<T> = (item: T, field: string) => FilterScalar | null | undefined;

function termHolds(term: FilterTerm, value: FilterScalar | null | undefined): boolean {
  const present = value !== null && value !== undefined;
  const [first] = term.operands as [FilterScalar];
  switch (term.op) {
    case 'empty':
      return (!present || value === '') === first;
    case 'ne':
      return !present || value !== first;
    case 'eq':
      return present && value === first;
    case 'contains':
      return present && String(value).includes(String(first));
    case 'startswith':
      return present && String(value).startsWith(String(first));
    case 'gte':
      return present && compare(value, first) >= 0;
    case 'lte':
      return present && compare(value, first) <= 0;
    case 'any':
      return present && term.operands.includes(value);
    case 'all':
      return present && term.operands.every((operand) => operand === value);
  }
}

/** Whether an item passes the filter (no terms: everything passes). */
export function matchesFilter<T>(filter: ListFilter, item: T, read: FieldReader<T>): boolean {
  if (filter.terms.length === 0) return true;
  const holds = (term: FilterTerm) => termHolds(term, read(item, term.field)) !== term.negated;
  return filter.or ? filter.terms.some(holds) : filter.terms.every(holds);
}

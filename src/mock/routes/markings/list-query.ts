/**
 * The query string of a list request (docs/design.md 1.2): paging (skip/limit, or the SCIM pair
 * startIndex/count), `valueLimit` where it applies, `or`, and filter terms. Nothing is ignored:
 * any other parameter, or a term the grammar refuses, is a 400 naming it. A repeated filter
 * parameter is a term each time, but a repeated `__any` is the union of its lists; equalities on
 * one field that together could match nothing (`name=a&name=b` under AND) are a 400 naming it.
 */
import {
  clashingEqualities,
  clashProblem,
  type FilterFields,
  FilterProblem,
  type FilterTerm,
  type ListFilter,
  parseFilterTerm,
  parseOrParameter,
  unionOfRepeatedAny,
} from '../../../common/markings/filters.js';
import {
  MarkingsErrorCode,
  PAGE_LIMIT_DEFAULT,
  PAGE_LIMIT_MAX,
} from '../../../common/markings/wire.js';
import { MockHttpError } from '../../kit/http.js';

export function badQuery(name: string, message: string): MockHttpError {
  return new MockHttpError(
    400,
    MarkingsErrorCode.badRequest,
    `query parameter ${name}: ${message}`,
    [{ path: name, message }],
  );
}

/** A whole number parameter; absent gives undefined. */
export function wholeNumberParameter(query: URLSearchParams, name: string): number | undefined {
  const texts = query.getAll(name);
  if (texts.length === 0) return undefined;
  if (texts.length > 1) throw badQuery(name, 'is given more than once');
  const text = texts[0]!;
  if (!/^\d{1,9}$/.test(text)) throw badQuery(name, 'must be a whole number');
  return Number(text);
}

/** A request that takes no query parameters but `allowed`: anything else is a 400 naming it. */
export function onlyParameters(query: URLSearchParams, ...allowed: string[]): void {
  for (const name of query.keys()) {
    if (!allowed.includes(name)) throw badQuery(name, 'is not a parameter of this operation');
  }
}

export interface ListQuery {
  filter: ListFilter;
  skip: number;
  limit: number;
  /** Set when the request paged the SCIM way; the answer then says so too. */
  startIndex?: number;
  valueLimit?: number;
}

const PAGING = ['skip', 'limit', 'startIndex', 'count'];

export function parseListQuery(
  query: URLSearchParams,
  fields: FilterFields,
  options: { valueLimit: boolean },
): ListQuery {
  const reserved = new Set([...PAGING, 'or', ...(options.valueLimit ? ['valueLimit'] : [])]);
  const parsed: FilterTerm[] = [];
  let terms: FilterTerm[];
  let or = false;
  try {
    for (const [parameter, text] of query) {
      if (parameter === 'or') or = parseOrParameter(text);
      else if (!reserved.has(parameter)) {
        parsed.push(parseFilterTerm(parameter, text, fields, [...reserved]));
      }
    }
    // Terms that can match nothing are a 400 saying what would, never an empty answer.
    const clash = clashingEqualities(parsed, or);
    if (clash !== undefined) {
      const { reason, any } = clashProblem(clash);
      const either = any === undefined ? 'or=true' : `${any}, or or=true`;
      throw new FilterProblem(
        clash[0]!.parameter,
        `${reason}, so nothing would match; for either use ${either}`,
      );
    }
    terms = unionOfRepeatedAny(parsed);
  } catch (error) {
    if (error instanceof FilterProblem) throw badQuery(error.parameter, error.reason);
    throw error;
  }
  if (query.getAll('or').length > 1) throw badQuery('or', 'is given more than once');
  const valueLimit = options.valueLimit ? wholeNumberParameter(query, 'valueLimit') : undefined;
  return { filter: { terms, or }, valueLimit, ...paging(query) };
}

function paging(query: URLSearchParams): { skip: number; limit: number; startIndex?: number } {
  const skip = wholeNumberParameter(query, 'skip');
  const limit = wholeNumberParameter(query, 'limit');
  const startIndex = wholeNumberParameter(query, 'startIndex');
  const count = wholeNumberParameter(query, 'count');
  const scim = startIndex !== undefined || count !== undefined;
  if (scim && (skip !== undefined || limit !== undefined)) {
    const name = startIndex !== undefined ? 'startIndex' : 'count';
    throw badQuery(name, 'cannot be combined with skip or limit');
  }
  if (!scim) {
    const pageLimit = limit ?? PAGE_LIMIT_DEFAULT;
    if (pageLimit < 1 || pageLimit > PAGE_LIMIT_MAX) {
      throw badQuery('limit', `must be from 1 to ${PAGE_LIMIT_MAX}`);
    }
    return { skip: skip ?? 0, limit: pageLimit };
  }
  if (startIndex !== undefined && startIndex < 1) {
    throw badQuery('startIndex', 'must be 1 or more (it counts from 1)');
  }
  const pageCount = count ?? PAGE_LIMIT_DEFAULT;
  if (pageCount > PAGE_LIMIT_MAX) throw badQuery('count', `must be from 0 to ${PAGE_LIMIT_MAX}`);
  const first = startIndex ?? 1;
  return { skip: first - 1, limit: pageCount, startIndex: first };
}

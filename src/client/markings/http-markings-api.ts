/**
 * MarkingsApi over HTTP: every markings and values endpoint of the service, typed, with the
 * listings paged one page ahead and sized by bytes.
 */
import { quoted } from '../../common/text/words.js';
import { NotFoundError } from '../../common/errors.js';
import type { ApiClient, RequestOptions } from '../api/client.js';
import { LISTING_ANSWER_MAX_BYTES } from '../api/answer-body.js';
import { filterQuery, NO_FILTER } from '../../common/markings/filters.js';
import { listProblem, markingProblem, markingsProblem, valueProblem } from '../api/shapes.js';
import type { MarkingsApi } from './markings-api.js';
import {
  type BulkMarkingItem,
  type ListEnvelope,
  type Marking,
  type MarkingInput,
  type MarkingListQuery,
  type MarkingUpdate,
  type MarkingValue,
  PAGE_LIMIT_MAX,
  type ValueInput,
  type ValueListQuery,
  type ValueUpdate,
} from '../../common/markings/wire.js';

const ID_PATTERN = /^[0-9a-f]{24}$/;

export function looksLikeId(text: string): boolean {
  return ID_PATTERN.test(text);
}

function ifMatch(version: number | undefined): Record<string, string> | undefined {
  return version === undefined ? undefined : { 'if-match': `"${version}"` };
}

const seg = encodeURIComponent;

type Page<T> = { totalResults: number; items: T[]; bytes?: number };

/**
 * About what one page of a listing may weigh on the wire. A page of 1,000 markings of 100 values
 * each is some 60 MiB of JSON, and its text, its parsed objects and the page fetched ahead are all
 * in memory at once; pages sized to a few megabytes keep a listing's memory that of a few pages
 * of this size, whatever the markings carry.
 */
export const PAGE_BYTES = 4 * 1024 * 1024;
/**
 * Markings asked for in the first page when they come with their values, before the size of one
 * is known (a marking may have 100,000 values). Values, and markings without theirs, are small.
 */
const FIRST_PAGE_WITH_VALUES = 100;

interface Paging {
  /** Items per page the caller asked for: the first page's size and the largest one. */
  pageLimit: number | undefined;
  /** The first page's size when the caller gave none. */
  firstPage: number;
  /** Stop after this many items. */
  max: number | undefined;
  /** The weight a page aims at, in bytes (see PAGE_BYTES). */
  pageBytes: number;
}

/** One page as a listing hands it on: its items (cut at `max`) and where it starts. */
export interface ListPage<T> {
  items: T[];
  /** Items before this page. */
  skip: number;
  /** What the service says the whole listing holds. */
  totalResults: number;
}

/**
 * Follows skip/limit paging; bounded by the service's totalResults and by `max`. Each page asks
 * for as many items as the previous page's items, by their size on the wire, say fit into
 * `pageBytes`. The request for the next page goes out as soon as a page arrives, while the caller
 * works through its items (one page ahead, no more), so memory stays that of two pages however
 * long the listing.
 */
async function* pageStream<T>(
  fetchPage: (skip: number, limit: number) => Promise<Page<T>>,
  { pageLimit, firstPage, max, pageBytes }: Paging,
): AsyncIterable<ListPage<T>> {
  const largest = Math.min(pageLimit ?? PAGE_LIMIT_MAX, PAGE_LIMIT_MAX);
  let size = pageLimit === undefined ? Math.min(firstPage, largest) : largest;
  const request = (skip: number, received: number): Promise<Page<T>> =>
    fetchPage(skip, max === undefined ? size : Math.min(size, max - received));
  let skip = 0;
  let received = 0;
  let next: Promise<Page<T>> | undefined = request(0, 0);
  while (next !== undefined) {
    const page: Page<T> = await next;
    const items = max === undefined ? page.items : page.items.slice(0, max - received);
    const start = skip;
    skip += page.items.length;
    received += items.length;
    if (page.bytes !== undefined && page.items.length > 0) {
      const fit = Math.floor((pageBytes * page.items.length) / Math.max(1, page.bytes));
      size = Math.max(1, Math.min(largest, fit));
    }
    const more =
      page.items.length > 0 && skip < page.totalResults && (max === undefined || received < max);
    next = more ? request(skip, received) : undefined;
    // A caller that stops early (or fails) leaves the page ahead unread: not an unhandled error.
    next?.catch(() => undefined);
    yield { items, skip: start, totalResults: page.totalResults };
  }
}

/** The items of `pageStream`, one by one. */
async function* pages<T>(
  fetchPage: (skip: number, limit: number) => Promise<Page<T>>,
  paging: Paging,
): AsyncIterable<T> {
  for await (const page of pageStream(fetchPage, paging)) yield* page.items;
}

/** The query of a list request: paging, shortcuts, and the filter's terms (repeatable). */
function listQuery({
  filter,
  ...rest
}: MarkingListQuery | ValueListQuery): RequestOptions['query'] {
  const query: NonNullable<RequestOptions['query']> = { ...rest };
  for (const [parameter, text] of filterQuery(filter ?? NO_FILTER)) {
    const given = query[parameter];
    query[parameter] = [
      ...(Array.isArray(given) ? given : given === undefined ? [] : [String(given)]),
      text,
    ];
  }
  return query;
}

function toPage<T>(body: ListEnvelope<T>, bytes: number) {
  return {
    totalResults: body.totalResults,
    skip: body.skip,
    limit: body.limit,
    items: body.Resources,
    bytes,
  };
}

/** The markings interface over HTTP (docs/design.md 1.2). */
export class HttpMarkingsApi implements MarkingsApi {
  private readonly pageBytes: number;

  constructor(
    private readonly client: ApiClient,
    options: { pageBytes?: number } = {},
  ) {
    this.pageBytes = options.pageBytes ?? PAGE_BYTES;
  }

  async listMarkingsPage(query: MarkingListQuery) {
    return (await this.markingsPage(query)).page;
  }

  /**
   * One page, with the conversation id of its request (for errors about what it lacks); `what`
   * names the request in errors and waits when the page serves another step (a name looked up).
   */
  private async markingsPage(query: MarkingListQuery, what = 'list markings') {
    const answer = await this.client.request<ListEnvelope<Marking>>('GET', '/markings', {
      query: listQuery(query),
      what,
      expect: listProblem(markingProblem),
      maxAnswerBytes: LISTING_ANSWER_MAX_BYTES,
    });
    return { page: toPage(answer.body, answer.bytes), conversationId: answer.conversationId };
  }

  listMarkings(query: Omit<MarkingListQuery, 'skip'> = {}, max?: number): AsyncIterable<Marking> {
    return pages((skip, limit) => this.listMarkingsPage({ ...query, skip, limit }), {
      pageLimit: query.limit,
      firstPage: query.valueLimit === 0 ? PAGE_LIMIT_MAX : FIRST_PAGE_WITH_VALUES,
      max,
      pageBytes: this.pageBytes,
    });
  }

  /** The pages of `listMarkings`, as they arrive (the library's `list().pages()`). */
  markingPages(
    query: Omit<MarkingListQuery, 'skip'> = {},
    max?: number,
  ): AsyncIterable<ListPage<Marking>> {
    return pageStream((skip, limit) => this.listMarkingsPage({ ...query, skip, limit }), {
      pageLimit: query.limit,
      firstPage: query.valueLimit === 0 ? PAGE_LIMIT_MAX : FIRST_PAGE_WITH_VALUES,
      max,
      pageBytes: this.pageBytes,
    });
  }

  async getMarking(id: string, valueLimit?: number): Promise<Marking> {
    const { body } = await this.client.request<Marking>('GET', `/markings/${seg(id)}`, {
      query: { valueLimit },
      what: `get marking ${id}`,
      expect: markingProblem,
    });
    return body;
  }

  async resolveMarking(idOrName: string, valueLimit?: number): Promise<Marking> {
    if (looksLikeId(idOrName)) {
      const answer = await this.client.request<Marking>('GET', `/markings/${seg(idOrName)}`, {
        query: { valueLimit },
        what: `get marking ${idOrName}`,
        okStatuses: [404],
        expect: markingProblem,
      });
      if (answer.status !== 404) return answer.body;
    }
    const { page, conversationId } = await this.markingsPage(
      { name: idOrName, valueLimit, limit: 1 },
      `find marking ${idOrName}`,
    );
    const found = page.items[0];
    if (!found) {
      throw new NotFoundError(`marking ${quoted(idOrName)} not found`, {
        hint: {
          cli: 'list the markings with `ksctl markings list`',
          code: 'list the markings with `list()`',
        },
        conversationId,
      });
    }
    return found;
  }

  async createMarking(input: MarkingInput): Promise<Marking> {
    const { body } = await this.client.request<Marking>('POST', '/markings', {
      body: input,
      what: `create marking ${input.name}`,
      expect: markingProblem,
    });
    return body;
  }

  async updateMarking(
    id: string,
    update: MarkingUpdate,
    ifMatchVersion?: number,
  ): Promise<Marking> {
    const { body } = await this.client.request<Marking>('PUT', `/markings/${seg(id)}`, {
      body: update,
      headers: ifMatch(ifMatchVersion),
      what: `update marking ${id}`,
      expect: markingProblem,
    });
    return body;
  }

  async createOrUpdateMarkings(items: BulkMarkingItem[], valueLimit?: number): Promise<Marking[]> {
    const { body } = await this.client.request<Marking[]>('POST', '/markings', {
      body: items,
      query: { valueLimit },
      what: `create or update ${items.length} markings`,
      expect: markingsProblem,
    });
    return body;
  }

  async deleteMarking(id: string, ifMatchVersion?: number): Promise<void> {
    await this.client.request('DELETE', `/markings/${seg(id)}`, {
      headers: ifMatch(ifMatchVersion),
      what: `delete marking ${id}`,
    });
  }

  async listValuesPage(markingId: string, query: ValueListQuery) {
    return (await this.valuesPage(markingId, query)).page;
  }

  private async valuesPage(markingId: string, query: ValueListQuery) {
    const answer = await this.client.request<ListEnvelope<MarkingValue>>(
      'GET',
      `/markings/${seg(markingId)}/values`,
      {
        query: listQuery(query),
        what: 'list values',
        expect: listProblem(valueProblem),
        maxAnswerBytes: LISTING_ANSWER_MAX_BYTES,
      },
    );
    return { page: toPage(answer.body, answer.bytes), conversationId: answer.conversationId };
  }

  listValues(
    markingId: string,
    query: Omit<ValueListQuery, 'skip'> = {},
    max?: number,
  ): AsyncIterable<MarkingValue> {
    return pages((skip, limit) => this.listValuesPage(markingId, { ...query, skip, limit }), {
      pageLimit: query.limit,
      firstPage: PAGE_LIMIT_MAX,
      max,
      pageBytes: this.pageBytes,
    });
  }

  /** The pages of `listValues`, as they arrive. */
  valuePages(
    markingId: string,
    query: Omit<ValueListQuery, 'skip'> = {},
    max?: number,
  ): AsyncIterable<ListPage<MarkingValue>> {
    return pageStream((skip, limit) => this.listValuesPage(markingId, { ...query, skip, limit }), {
      pageLimit: query.limit,
      firstPage: PAGE_LIMIT_MAX,
      max,
      pageBytes: this.pageBytes,
    });
  }

  async getValue(markingId: string, valueId: string): Promise<MarkingValue> {
    const { body } = await this.client.request<MarkingValue>(
      'GET',
      `/markings/${seg(markingId)}/values/${seg(valueId)}`,
      { what: `get value ${valueId}`, expect: valueProblem },
    );
    return body;
  }

  async resolveValue(
    markingId: string,
    idOrName: string,
    markingName?: string,
  ): Promise<MarkingValue> {
    if (looksLikeId(idOrName)) {
      const answer = await this.client.request<MarkingValue>(
        'GET',
        `/markings/${seg(markingId)}/values/${seg(idOrName)}`,
        {
          what: `get value ${idOrName}`,
          okStatuses: [404],
          expect: valueProblem,
        },
      );
      if (answer.status !== 404) return answer.body;
    }
    const { page, conversationId } = await this.valuesPage(markingId, {
      name: idOrName,
      limit: 1,
    });
    const found = page.items[0];
    if (!found) {
      const marking = markingName ?? 'MARKING';
      throw new NotFoundError(
        `value ${quoted(idOrName)} not found in ${markingName ? `marking ${markingName}` : 'this marking'}`,
        {
          hint: {
            cli: `list its values with \`ksctl markings values list ${marking}\``,
            code: 'list its values with `listValues()`',
          },
          conversationId,
        },
      );
    }
    return found;
  }

  async createValue(markingId: string, input: ValueInput): Promise<MarkingValue> {
    const { body } = await this.client.request<MarkingValue>(
      'POST',
      `/markings/${seg(markingId)}/values`,
      { body: input, what: `add value ${input.name}`, expect: valueProblem },
    );
    return body;
  }

  async updateValue(
    markingId: string,
    valueId: string,
    update: ValueUpdate,
  ): Promise<MarkingValue> {
    const { body } = await this.client.request<MarkingValue>(
      'PUT',
      `/markings/${seg(markingId)}/values/${seg(valueId)}`,
      { body: update, what: `update value ${valueId}`, expect: valueProblem },
    );
    return body;
  }

  async deleteValue(markingId: string, valueId: string): Promise<void> {
    await this.client.request('DELETE', `/markings/${seg(markingId)}/values/${seg(valueId)}`, {
      what: `delete value ${valueId}`,
    });
  }
}

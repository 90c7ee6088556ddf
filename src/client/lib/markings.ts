/**
 * `MarkingsClient`: the markings API from code. A thin face over what the CLI runs (src/client/api for
 * the requests, src/client/apply for plan and apply): the same requests, retries, paging and typed
 * errors. The apply modules load on the first plan() or apply(), not with the client.
 */
import { ApiClient } from '../api/client.js';
import {
  type FilterFields,
  FilterProblem,
  type ListFilter,
  MARKING_FILTER_FIELDS,
  parseFilterExpression,
  VALUE_FILTER_FIELDS,
} from '../../common/markings/filters.js';
import { HttpMarkingsApi, type ListPage } from '../markings/http-markings-api.js';
import type {
  BulkMarkingItem,
  Marking,
  MarkingInput,
  MarkingListQuery,
  MarkingUpdate,
  MarkingValue,
  ValueInput,
  ValueListQuery,
  ValueUpdate,
} from '../../common/markings/wire.js';
import type { RunReport } from '../apply/report.js';
import type { Plan } from '../apply/plan.js';
import type { DesiredMarking } from '../../common/markings/desired.js';
import { UsageError } from '../../common/errors.js';
import { codeFace, inCodeWords } from './code-words.js';
import {
  checkConnection,
  clientOptions,
  type ConnectionOptions,
  connectionAuth,
} from './connection.js';

export type { ListPage, Plan, RunReport };

export interface MarkingsClientOptions extends ConnectionOptions {
  /** The markings base URL, `https://HOST/v2/TENANT` (a mock's `baseUrl`). */
  baseUrl: string;
}

/** Filters in the grammar of `--filter`, which the service applies: `name__startswith=reg`. */
export interface FilterOptions {
  /** `FIELD=VALUE`, `FIELD__OP=VALUE` or `FIELD__OP__ne=VALUE`; an invalid one is a UsageError. */
  filter?: string | string[];
  /** A result passes one filter (shortcuts included) instead of all. */
  or?: boolean;
  /** Stop after this many items. */
  max?: number;
}

/** List Markings: the shortcuts and filters of `ksctl markings list`. */
export interface ListMarkingsOptions
  extends Omit<MarkingListQuery, 'skip' | 'filter'>, FilterOptions {}

export interface ListValuesOptions extends Omit<ValueListQuery, 'skip' | 'filter'>, FilterOptions {}

/** The filter to send, each expression checked with the service's grammar. */
function listFilter(options: FilterOptions, fields: FilterFields): ListFilter | undefined {
  const given = options.filter;
  if (given === undefined && options.or === undefined) return undefined;
  const expressions = given === undefined ? [] : Array.isArray(given) ? given : [given];
  const terms = expressions.map((expression) => {
    try {
      return parseFilterExpression(String(expression), fields);
    } catch (error) {
      if (error instanceof FilterProblem) {
        throw new UsageError(`filter ${JSON.stringify(expression)}: ${error.reason}`, {
          hint: 'filters are FIELD=VALUE, FIELD__OPERATOR=VALUE or FIELD__OPERATOR__ne=VALUE',
        });
      }
      throw error;
    }
  });
  return { terms, or: options.or === true };
}

/**
 * A listing: `for await (const m of list)` goes through every item, fetching page after page
 * (one page ahead, no more); `pages()` hands on the pages themselves; `toArray()` collects.
 */
export class Listing<T> implements AsyncIterable<T> {
  constructor(private readonly stream: () => AsyncIterable<ListPage<T>>) {}

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for await (const page of this.pages()) yield* page.items;
  }

  async *pages(): AsyncIterable<ListPage<T>> {
    try {
      yield* this.stream();
    } catch (error) {
      throw inCodeWords(error);
    }
  }

  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}

/** What `plan()` compares the service with: markings files (YAML or JSON), or the markings. */
export type PlanSource =
  | { files: string[] }
  | {
      /** The entries of a markings file's `markings:` list, checked as a file's are. */
      markings: PlannedMarking[];
    };

export type PlannedMarking = Omit<DesiredMarking, 'source' | 'values'> & {
  values?: (string | { name: string; description?: string })[];
};

export interface PlanOptions {
  /** Also delete the service's markings that the source does not list. */
  prune?: boolean;
  /** Requests at once while reading the service's markings (default 4). */
  concurrency?: number;
  signal?: AbortSignal;
}

/** What `export()` writes: the markings that pass the filters (every one without), all values. */
export interface ExportOptions extends Omit<FilterOptions, 'max'> {
  /** The file format, as `ksctl markings export` writes it (default 'yaml'). */
  format?: 'yaml' | 'json';
  /** Requests at once while reading values (default 4). */
  concurrency?: number;
  signal?: AbortSignal;
}

export interface ApplyOptions {
  /** Requests at once (default 4). */
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (progress: { done: number; total: number; failed: number }) => void;
}

export class MarkingsClient {
  readonly baseUrl: string;
  private readonly http: ApiClient;
  private readonly api: HttpMarkingsApi;

  constructor(options: MarkingsClientOptions) {
    if (typeof options?.baseUrl !== 'string' || !/^https?:\/\//i.test(options.baseUrl)) {
      throw new UsageError('MarkingsClient needs baseUrl, an http(s) URL of /v2/TENANT');
    }
    checkConnection(options);
    this.http = new ApiClient(clientOptions(options.baseUrl, connectionAuth(options), options));
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.api = new HttpMarkingsApi(this.http);
  }

  /** Every marking that matches, page after page (`valueLimit: 0` leaves the values out). */
  list(options: ListMarkingsOptions = {}): Listing<Marking> {
    return codeFace(() => {
      const { max, filter: _filter, or: _or, ...query } = options;
      const filter = listFilter(options, MARKING_FILTER_FIELDS);
      return new Listing(() => this.api.markingPages({ ...query, filter }, max));
    });
  }

  /** A marking by id or by name (`NotFoundError` when there is none). */
  get(idOrName: string, options: { valueLimit?: number } = {}): Promise<Marking> {
    return codeFace(() => this.api.resolveMarking(idOrName, options.valueLimit));
  }

  create(input: MarkingInput): Promise<Marking> {
    return codeFace(() => this.api.createMarking(input));
  }

  /**
   * Changes the fields given; `detail.values`, when given, is the complete set. `ifMatch` (the
   * `_version` read) makes a concurrent change a `ConflictError` instead of being overwritten.
   */
  update(id: string, update: MarkingUpdate, options: { ifMatch?: number } = {}): Promise<Marking> {
    return codeFace(() => this.api.updateMarking(id, update, options.ifMatch));
  }

  delete(id: string, options: { ifMatch?: number } = {}): Promise<void> {
    return codeFace(() => this.api.deleteMarking(id, options.ifMatch));
  }

  /** Create or Update Multiple: all or nothing, at most 1,000 items. */
  createOrUpdateMany(
    items: BulkMarkingItem[],
    options: { valueLimit?: number } = {},
  ): Promise<Marking[]> {
    return codeFace(() => this.api.createOrUpdateMarkings(items, options.valueLimit));
  }

  listValues(markingId: string, options: ListValuesOptions = {}): Listing<MarkingValue> {
    return codeFace(() => {
      const { max, filter: _filter, or: _or, ...query } = options;
      const filter = listFilter(options, VALUE_FILTER_FIELDS);
      return new Listing(() => this.api.valuePages(markingId, { ...query, filter }, max));
    });
  }

  /** A value of the marking by id or by name. */
  getValue(markingId: string, idOrName: string): Promise<MarkingValue> {
    return codeFace(() => this.api.resolveValue(markingId, idOrName));
  }

  createValue(markingId: string, input: ValueInput): Promise<MarkingValue> {
    return codeFace(() => this.api.createValue(markingId, input));
  }

  updateValue(markingId: string, valueId: string, update: ValueUpdate): Promise<MarkingValue> {
    return codeFace(() => this.api.updateValue(markingId, valueId, update));
  }

  deleteValue(markingId: string, valueId: string): Promise<void> {
    return codeFace(() => this.api.deleteValue(markingId, valueId));
  }

  /**
   * What `ksctl markings export` writes: the markings with all their values, as a markings file
   * that `plan({ files })` turns back into this state. The text comes in chunks while the
   * markings are read (`await writeFile(path, Readable.from(client.export()))`), so memory stays
   * small however many there are.
   */
  export(options: ExportOptions = {}): AsyncIterable<string> {
    return codeFace(() => {
      const format = options.format ?? 'yaml';
      if (format !== 'yaml' && format !== 'json') {
        throw new UsageError(`format must be 'yaml' or 'json', not ${JSON.stringify(format)}`);
      }
      const filter = listFilter(options, MARKING_FILTER_FIELDS);
      const { concurrency, signal } = options;
      const api = this.api;
      return (async function* () {
        const { exportMarkings } = await import('../usecases/markings-export.js');
        try {
          yield* exportMarkings(api, { format, filter, concurrency, signal });
        } catch (error) {
          throw inCodeWords(error);
        }
      })();
    });
  }

  /**
   * What `ksctl markings apply --dry-run` shows: the creates, updates and deletes that make the
   * service match the source. Nothing is sent but reads; an invalid source is an `InputError`.
   */
  plan(source: PlanSource, options: PlanOptions = {}): Promise<Plan> {
    return codeFace(() => this.planned(source, options));
  }

  private async planned(source: PlanSource, options: PlanOptions): Promise<Plan> {
    const { desiredMarkings, planChanges } = await import('../usecases/markings-apply.js');
    let desired: DesiredMarking[];
    if ('files' in source && Array.isArray(source.files)) {
      if (source.files.includes('-')) {
        throw new UsageError('plan() reads files; pass markings to plan data instead of stdin');
      }
      desired = await desiredMarkings({ files: source.files });
    } else if ('markings' in source && Array.isArray(source.markings)) {
      desired = await desiredMarkings({ markings: source.markings });
    } else {
      throw new UsageError('plan() takes { files: [...] } or { markings: [...] }');
    }
    return planChanges(this.api, desired, options);
  }

  /**
   * Carries out a plan as `ksctl markings apply` does: creates first, deletes last, each update
   * guarded by the version the plan read. Failures of single markings are in the report, not
   * thrown (`report.failed`); the run stops early only when the credentials are refused.
   */
  apply(plan: Plan, options: ApplyOptions = {}): Promise<RunReport> {
    return codeFace(() => this.applied(plan, options));
  }

  private async applied(plan: Plan, options: ApplyOptions): Promise<RunReport> {
    const { applyPlan } = await import('../usecases/markings-apply.js');
    return applyPlan(this.api, plan, { ...options, codeWords: true });
  }

  /** Closes the kept-alive connections; the process can exit without it. */
  close(): Promise<void> {
    return this.http.close();
  }
}

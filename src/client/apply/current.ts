/**
 * What the service has, read for a plan or an export with as little work as possible: markings
 * without values first, then the values of the markings that need them, in batches whose memory
 * does not grow with the number of markings.
 */
import type { MarkingsApi } from '../markings/markings-api.js';
import {
  type Marking,
  type MarkingListQuery,
  type MarkingValue,
  PAGE_LIMIT_MAX,
} from '../../common/markings/wire.js';
import { InterruptedError, NotFoundError } from '../../common/errors.js';

export interface ReadMarkingsOptions {
  /** List Markings filters (export takes them); apply reads every marking. */
  query?: Pick<
    MarkingListQuery,
    'name' | 'name__contains' | 'name__startswith' | 'public' | 'filter'
  >;
  /** Whether a marking is needed with all its values; the others keep `valueLimit=0`. */
  withValues: (marking: Marking) => boolean;
  /** Requests in flight at once while fetching values (default 4). */
  concurrency?: number;
  signal?: AbortSignal;
}

/** A marking with more values than this is fetched on its own (Get Marking). */
const ALONE_ABOVE_VALUES = 2_000;
/** A marking with more values than this has them read through the values listing, in pages. */
const PAGED_ABOVE_VALUES = 20_000;
/** Values one listing request may carry, as apply reads them. */
const WINDOW_VALUES_MAX = 100_000;

/** How much is read before markings are handed on; `readMarkings` reads everything at once. */
export interface Batching {
  /** Values one listing request may carry (a marking with more is still read, alone). */
  windowValues: number;
  /** Values of the markings held until they are handed on. */
  batchValues: number;
}

/**
 * Batches for a reader whose memory must not grow with the number of markings (export): a few
 * megabytes of values per request, a few requests' worth held at once.
 */
export const STREAMING: Batching = { windowValues: 5_000, batchValues: 20_000 };

const WHOLE: Batching = { windowValues: WINDOW_VALUES_MAX, batchValues: Infinity };

/**
 * What the service has, read with as little work as possible:
 * 1. every marking with `valueLimit=0`, in pages of 1,000 (no per-value work on the service);
 * 2. the values of the markings that need them only. Markings next to each other in the listing
 *    are read together, one List Markings page of that range with all values, when few values of
 *    markings not needed lie between them; a big marking, or a lone one, is read with one Get
 *    Marking. Requests run in parallel up to `concurrency`.
 * So re-applying 1,000 markings of 50 values costs two listing requests, not 1,001, and a file
 * with one marking of 10,000 values costs one listing page and one Get Marking.
 */
export async function readMarkings(
  api: MarkingsApi,
  options: ReadMarkingsOptions,
): Promise<Marking[]> {
  const all: Marking[] = [];
  for await (const marking of streamMarkings(api, options, WHOLE)) all.push(marking);
  return all;
}

/**
 * The markings of `readMarkings`, in the listing's order, handed on a batch at a time: the
 * markings listed until their values reach `batchValues` are read (as `readMarkings` says) and
 * handed on before the listing goes further, so with `STREAMING` memory stays that of a batch
 * whatever the number of markings.
 */
export async function* streamMarkings(
  api: MarkingsApi,
  options: ReadMarkingsOptions,
  batching: Batching = STREAMING,
): AsyncIterable<Marking> {
  const { signal } = options;
  let batch: Marking[] = [];
  let batchStart = 0;
  let batchValues = 0;
  for await (const marking of api.listMarkings({
    ...options.query,
    valueLimit: 0,
    limit: PAGE_LIMIT_MAX,
  })) {
    stopIfAborted(signal);
    batch.push(marking);
    if (options.withValues(marking)) batchValues += marking.detail.valueCount;
    if (batchValues >= batching.batchValues) {
      yield* await readBatch(api, options, batching, batch, batchStart);
      batchStart += batch.length;
      batch = [];
      batchValues = 0;
    }
  }
  if (batch.length > 0) yield* await readBatch(api, options, batching, batch, batchStart);
}

/**
 * The values of the markings of `listed` that need them; `offset` is where the batch starts in
 * the listing (the `skip` of its pages). Markings deleted meanwhile are left out.
 */
async function readBatch(
  api: MarkingsApi,
  options: ReadMarkingsOptions,
  batching: Batching,
  listed: Marking[],
  offset: number,
): Promise<Marking[]> {
  const { signal } = options;
  const query = options.query ?? {};
  const needed: number[] = [];
  for (const [index, marking] of listed.entries()) {
    if (!options.withValues(marking)) continue;
    if (marking.detail.valueCount === 0) marking.detail.values = [];
    else needed.push(index);
  }
  const read = new Map<string, Marking>();
  const gone = new Set<string>();
  const getAlone = async (marking: Marking) => {
    try {
      read.set(marking.id, await readWhole(api, marking));
    } catch (error) {
      // Deleted since the listing: the plan is made without it.
      if (error instanceof NotFoundError) gone.add(marking.id);
      else throw error;
    }
  };
  const jobs = readWindows(listed, needed, batching.windowValues).map((window) => async () => {
    const first = listed[window.start] as Marking;
    if (window.count === 1) return getAlone(first);
    const page = await api.listMarkingsPage({
      ...query,
      skip: offset + window.start,
      limit: window.count,
    });
    for (const marking of page.items) read.set(marking.id, marking);
    // Markings added or removed meanwhile shift the page: whatever it missed is read alone.
    const missed = window.needed
      .map((index) => listed[index] as Marking)
      .filter((marking) => !hasAllValues(read.get(marking.id)));
    for (const marking of missed) await getAlone(marking);
  });
  await runAll(jobs, options.concurrency ?? 4, signal);

  return listed
    .filter((marking) => !gone.has(marking.id))
    .map((marking) => read.get(marking.id) ?? marking);
}

/**
 * A marking with all its values: with one Get Marking, or, above `PAGED_ABOVE_VALUES`, without
 * them and its values through the paged values listing (one answer with 100,000 values is over
 * what ksctl reads of one answer).
 */
async function readWhole(api: MarkingsApi, listed: Marking): Promise<Marking> {
  if (listed.detail.valueCount <= PAGED_ABOVE_VALUES) return api.getMarking(listed.id);
  const marking = await api.getMarking(listed.id, 0);
  const values: MarkingValue[] = [];
  for await (const value of api.listValues(listed.id)) values.push(value);
  marking.detail.values = values;
  return marking;
}

function hasAllValues(marking: Marking | undefined): boolean {
  return marking?.detail.values?.length === marking?.detail.valueCount;
}

interface ReadWindow {
  /** Index in the listing (the `skip` of the page). */
  start: number;
  count: number;
  /** Indexes of the markings needed in it. */
  needed: number[];
}

/**
 * Groups the needed markings (indexes into the listing, ascending) into ranges to read with one
 * page each. A range grows over markings not needed while the values they add stay below those
 * of one alone-sized marking; big markings always stand alone.
 */
function readWindows(
  listed: readonly Marking[],
  needed: readonly number[],
  windowValues: number,
): ReadWindow[] {
  const windows: ReadWindow[] = [];
  let open: (ReadWindow & { values: number }) | undefined;
  const valuesOf = (index: number) => (listed[index] as Marking).detail.valueCount;
  for (const index of needed) {
    const values = valuesOf(index);
    if (values > Math.min(ALONE_ABOVE_VALUES, windowValues)) {
      windows.push({ start: index, count: 1, needed: [index] });
      continue;
    }
    if (open !== undefined) {
      let between = 0;
      for (let i = open.start + open.count; i < index; i += 1) between += valuesOf(i);
      const fits =
        between <= ALONE_ABOVE_VALUES &&
        open.values + between + values <= windowValues &&
        index - open.start + 1 <= PAGE_LIMIT_MAX;
      if (fits) {
        open.count = index - open.start + 1;
        open.values += between + values;
        open.needed.push(index);
        continue;
      }
      windows.push(open);
    }
    open = { start: index, count: 1, needed: [index], values };
  }
  if (open !== undefined) windows.push(open);
  return windows.map(({ start, count, needed: inWindow }) => ({ start, count, needed: inWindow }));
}

/** Runs the jobs, at most `concurrency` at once; on abort no new one starts. */
async function runAll(
  jobs: (() => Promise<void>)[],
  concurrency: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      stopIfAborted(signal);
      const job = jobs[next] as () => Promise<void>;
      next += 1;
      await job();
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(Math.max(1, concurrency), jobs.length) }, worker),
  );
  stopIfAborted(signal);
}

function stopIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new InterruptedError('interrupted while reading the markings; nothing was changed');
  }
}

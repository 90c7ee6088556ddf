/**
 * `ksctl mock capture`: the markings of the service in use as a seed that `ksctl mock serve
 * --seed` takes. A seed's `markings` has the shape of a markings file, so the seed is the export
 * document (usecases/markings-export.ts): every marking with all its values, streamed in name
 * order while the markings are read, memory that of a batch however many there are. Nothing but
 * markings is written: no token, no URL, no credential.
 *
 * An answer that is not the markings shape (a proxy's page, another API, a marking whose values
 * do not add up to its count) is an InputError: the seed would not be the tenant's state.
 */
import { InputError, isKsctlError, ServiceError, UnreachableError } from '../../common/errors.js';
import type { MarkingsApi } from '../markings/markings-api.js';
import type { Marking } from '../../common/markings/wire.js';
import { exportMarkings } from './markings-export.js';

export interface CaptureOptions {
  format: 'yaml' | 'json';
  /** Requests at once while reading values (default 4). */
  concurrency?: number;
  signal?: AbortSignal;
  /** Told of each marking as it is written. */
  onMarking?: (marking: Marking) => void;
}

export interface Capture {
  /** Markings the service holds, as it counted them when the capture began. */
  total: number;
  /** The seed's text, chunk by chunk; nothing more is read until it is iterated. */
  text: AsyncIterable<string>;
}

/** A seed of every marking the service holds: first their count, then the text as it is read. */
export async function captureSeed(api: MarkingsApi, options: CaptureOptions): Promise<Capture> {
  const { totalResults } = await notTheShape(() =>
    api.listMarkingsPage({ skip: 0, limit: 1, valueLimit: 0 }),
  );
  const text = exportMarkings(api, {
    format: options.format,
    concurrency: options.concurrency,
    signal: options.signal,
    onMarking: (marking) => {
      const values = marking.detail.values?.length;
      if (values !== marking.detail.valueCount) {
        throw new InputError(
          `the service answered marking "${marking.name}" with ${values ?? 'no'} values of the ${marking.detail.valueCount} it counts; the capture is not the tenant's state`,
        );
      }
      options.onMarking?.(marking);
    },
  });
  return { total: totalResults, text: checkedChunks(text) };
}

async function* checkedChunks(text: AsyncIterable<string>): AsyncIterable<string> {
  const chunks = text[Symbol.asyncIterator]();
  for (;;) {
    const next = await notTheShape(() => chunks.next());
    if (next.done === true) return;
    yield next.value;
  }
}

/**
 * The client's error for a successful answer that is not what the service sends (its status
 * below 300), as an InputError: the service's data, not its availability, is what is wrong.
 */
async function notTheShape<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const wrongShape =
      error instanceof ServiceError &&
      !(error instanceof UnreachableError) &&
      error.status !== undefined &&
      error.status < 300;
    if (!wrongShape || !isKsctlError(error)) throw error;
    throw new InputError(error.message, {
      hint: error.facedHint,
      conversationId: error.conversationId,
      status: error.status,
      cause: error,
    });
  }
}

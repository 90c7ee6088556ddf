/**
 * `markings export` as both faces run it (the CLI's command, the library's `export()`): every
 * marking, or the filtered ones, with all their values, as the markings file that `apply` turns
 * back into this state. The text comes in chunks while the markings are read, so memory stays
 * that of a batch whatever their number.
 */
import type { ListFilter } from '../../common/markings/filters.js';
import type { MarkingsApi } from '../markings/markings-api.js';
import type { Marking } from '../../common/markings/wire.js';
import { streamMarkings } from '../apply/current.js';
import { DEFAULT_CONCURRENCY } from '../apply/execute.js';
import { exportDocument } from '../apply/export.js';

export interface ExportMarkingsOptions {
  format: 'yaml' | 'json';
  /** List Markings filters; every marking when absent. */
  filter?: ListFilter;
  /** Requests at once while reading values (default 4). */
  concurrency?: number;
  signal?: AbortSignal;
  /** Told of each marking as it is written. */
  onMarking?: (marking: Marking) => void;
}

/** The markings file's text, chunk by chunk; nothing is read until it is iterated. */
export function exportMarkings(
  api: MarkingsApi,
  options: ExportMarkingsOptions,
): AsyncIterable<string> {
  const markings = streamMarkings(api, {
    query: { filter: options.filter },
    withValues: () => true,
    concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    signal: options.signal,
  });
  return exportDocument(markings, options.format, options.onMarking);
}

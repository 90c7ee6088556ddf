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

/**
 * Every markings and values operation of the interface, typed. Implemented over HTTP by
 * `HttpMarkingsApi` (src/client/markings/http-markings-api.ts); commands, `apply` and tests program against this.
 * Errors are the typed errors of src/common/errors.ts (NotFoundError, ConflictError, ...).
 */
export interface MarkingsApi {
  /** One page of List Markings. */
  listMarkingsPage(
    query: MarkingListQuery,
  ): Promise<{ totalResults: number; skip: number; limit: number; items: Marking[] }>;
  /** Every marking that matches, following `skip`/`limit` paging; stops after `max` when given. */
  listMarkings(query?: Omit<MarkingListQuery, 'skip'>, max?: number): AsyncIterable<Marking>;
  getMarking(id: string, valueLimit?: number): Promise<Marking>;
  /** A marking named by id or by name (an id is tried first when the text looks like one). */
  resolveMarking(idOrName: string, valueLimit?: number): Promise<Marking>;
  createMarking(input: MarkingInput): Promise<Marking>;
  updateMarking(id: string, update: MarkingUpdate, ifMatchVersion?: number): Promise<Marking>;
  /** Create or Update Multiple: all-or-nothing, at most 1,000 items. */
  createOrUpdateMarkings(items: BulkMarkingItem[], valueLimit?: number): Promise<Marking[]>;
  deleteMarking(id: string, ifMatchVersion?: number): Promise<void>;

  listValuesPage(
    markingId: string,
    query: ValueListQuery,
  ): Promise<{ totalResults: number; skip: number; limit: number; items: MarkingValue[] }>;
  listValues(
    markingId: string,
    query?: Omit<ValueListQuery, 'skip'>,
    max?: number,
  ): AsyncIterable<MarkingValue>;
  getValue(markingId: string, valueId: string): Promise<MarkingValue>;
  /** A value named by id or by name within its marking. */
  /** `markingName`, when known, names the marking in the error for a value it lacks. */
  resolveValue(markingId: string, idOrName: string, markingName?: string): Promise<MarkingValue>;
  createValue(markingId: string, input: ValueInput): Promise<MarkingValue>;
  updateValue(markingId: string, valueId: string, update: ValueUpdate): Promise<MarkingValue>;
  deleteValue(markingId: string, valueId: string): Promise<void>;
}

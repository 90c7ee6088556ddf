/**
 * How a plan becomes requests: bulk Create or Update Multiple chunks where they are cheapest,
 * per-marking value operations where an update touches few values, deletions last.
 */
import {
  BODY_MAX_BYTES,
  BULK_MAX_ITEMS,
  type BulkMarkingItem,
  type MarkingInput,
  type MarkingUpdate,
  type ValueInput,
  type ValueUpdate,
} from '../../common/markings/wire.js';
import type { MarkingUpdatePlan, Plan } from './plan.js';
import type { DesiredMarking } from '../../common/markings/desired.js';

export type StepAction = 'create' | 'update' | 'delete';

/** A marking a step serves, so the executor can report per marking. */
export interface StepTarget {
  name: string;
  action: StepAction;
}

/** One request of an `operations` step; they run in order. */
export type MarkingOperation =
  | { kind: 'createValue'; value: ValueInput }
  | { kind: 'updateValue'; valueId: string; name: string; update: ValueUpdate }
  | { kind: 'updateMarking'; update: MarkingUpdate }
  | { kind: 'deleteValue'; valueId: string; name: string };

export type Step =
  /** One Create or Update Multiple request; `targets[i]` is the marking of `items[i]`. */
  | { kind: 'bulk'; targets: StepTarget[]; items: BulkMarkingItem[] }
  /** Single value operations on one big marking, plus a partial Update Marking if fields change. */
  | { kind: 'operations'; targets: [StepTarget]; markingId: string; operations: MarkingOperation[] }
  /** Delete Marking, guarded by the version the plan showed. */
  | { kind: 'delete'; targets: [StepTarget]; markingId: string; version: number };

export interface StrategyOptions {
  /** Items per Create or Update Multiple request (the service takes at most 1,000). */
  maxItems?: number;
  /**
   * JSON body bytes per bulk request. Far below the service's 32 MiB so a request stays quick to
   * send and to retry, and small enough that a large import is several requests: --concurrency of
   * them are in flight at once, so the service works on one while the next is on the way (1,000
   * markings of 50 values: 5 requests instead of one of 1 MiB). A single marking larger than this
   * goes alone.
   */
  maxBytes?: number;
  /** Value changes above which a marking is always updated with its complete value set. */
  maxValueOperations?: number;
  /** Unchanged values one single value request must save, at least, to be worth a request. */
  valuesPerOperation?: number;
}

export const STRATEGY_DEFAULTS: Required<StrategyOptions> = {
  maxItems: BULK_MAX_ITEMS,
  maxBytes: 240 * 1024,
  maxValueOperations: 20,
  valuesPerOperation: 50,
};

/** Leaves room for the request's other bytes when a single marking approaches the body limit. */
const BODY_HEADROOM = 64 * 1024;

/**
 * Turns a plan into the cheapest requests:
 * - creations, field-only updates and updates that change many values go into Create or Update
 *   Multiple requests (an update item carries `id` and, when values change, the complete value
 *   set with existing values referenced by `id`), chunked by `maxItems` and `maxBytes`;
 * - an update that changes few values of a big marking uses single value operations: when the
 *   value changes are at most `maxValueOperations` (20) and the marking has at least
 *   `valuesPerOperation` (50) values per change, that is, the changes touch at most 2% of it.
 *   Sending the complete set would then cost far more bytes and server work than the few small
 *   requests. A marking whose complete set would not fit in one request body always uses them;
 * - deletions are one Delete Marking each.
 */
export function planSteps(plan: Plan, options: StrategyOptions = {}): Step[] {
  const settings = { ...STRATEGY_DEFAULTS, ...options };
  const bulk: { target: StepTarget; item: BulkMarkingItem; bytes: number }[] = [];
  const steps: Step[] = [];

  for (const marking of plan.create) {
    const item = markingInput(marking);
    bulk.push({ target: { name: marking.name, action: 'create' }, item, bytes: jsonBytes(item) });
  }
  for (const update of plan.update) {
    const target: StepTarget = { name: update.name, action: 'update' };
    const item = updateItem(update);
    const bytes = jsonBytes(item);
    if (useValueOperations(update, bytes, settings)) {
      steps.push({
        kind: 'operations',
        targets: [target],
        markingId: update.id,
        operations: valueOperations(update),
      });
    } else {
      bulk.push({ target, item, bytes });
    }
  }

  const chunks = chunkBulk(bulk, settings);
  const deletes: Step[] = plan.delete.map((marking) => ({
    kind: 'delete',
    targets: [{ name: marking.name, action: 'delete' }],
    markingId: marking.id,
    version: marking.version,
  }));
  return [...chunks, ...steps, ...deletes];
}

function useValueOperations(
  update: MarkingUpdatePlan,
  fullItemBytes: number,
  settings: Required<StrategyOptions>,
): boolean {
  const changes =
    update.valuesAdded.length + update.valuesRemoved.length + update.valuesChanged.length;
  if (changes === 0) return false;
  if (fullItemBytes > BODY_MAX_BYTES - BODY_HEADROOM) return true;
  return (
    changes <= settings.maxValueOperations &&
    update.valueCount >= changes * settings.valuesPerOperation
  );
}

/**
 * Values are created first (a new defaultValue may name one), then descriptions change, then the
 * marking's fields (which may move defaultValue off a value about to go), then values are deleted.
 */
function valueOperations(update: MarkingUpdatePlan): MarkingOperation[] {
  const operations: MarkingOperation[] = [];
  for (const value of update.valuesAdded) operations.push({ kind: 'createValue', value });
  for (const value of update.valuesChanged) {
    operations.push({
      kind: 'updateValue',
      valueId: value.id,
      name: value.name,
      update: { description: value.to },
    });
  }
  const fields = scalarUpdate(update);
  if (fields !== undefined) operations.push({ kind: 'updateMarking', update: fields });
  for (const value of update.valuesRemoved) {
    operations.push({ kind: 'deleteValue', valueId: value.id, name: value.name });
  }
  return operations;
}

/** Create New Marking's body for a marking of the files (also one item of a bulk request). */
export function markingInput(marking: DesiredMarking): MarkingInput {
  const item: MarkingInput = { name: marking.name };
  if (marking.public !== undefined) item.public = marking.public;
  if (marking.adminOnly !== undefined) item.adminOnly = marking.adminOnly;
  if (marking.defaultValue !== undefined) item.defaultValue = marking.defaultValue;
  if (marking.description !== undefined || marking.values !== undefined) {
    item.detail = {};
    if (marking.description !== undefined) item.detail.description = marking.description;
    if (marking.values !== undefined) item.detail.values = marking.values;
  }
  return item;
}

/** The changed fields only: Update Marking keeps what a body leaves out. */
function scalarUpdate(update: MarkingUpdatePlan): MarkingUpdate | undefined {
  if (update.fieldChanges.length === 0) return undefined;
  const body: MarkingUpdate = {};
  for (const change of update.fieldChanges) {
    if (change.field === 'description') body.detail = { description: String(change.to) };
    else if (change.field === 'defaultValue') body.defaultValue = change.to as string | null;
    else body[change.field] = Boolean(change.to);
  }
  return body;
}

function updateItem(update: MarkingUpdatePlan): BulkMarkingItem {
  const item: MarkingUpdate & { id: string } = { id: update.id, ...scalarUpdate(update) };
  if (update.targetValues !== undefined) {
    item.detail = { ...item.detail, values: update.targetValues };
  }
  return item;
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

/** Greedy, in plan order; `[` `]` and the commas count against the byte bound. */
function chunkBulk(
  entries: { target: StepTarget; item: BulkMarkingItem; bytes: number }[],
  settings: Required<StrategyOptions>,
): Step[] {
  const chunks: Step[] = [];
  let targets: StepTarget[] = [];
  let items: BulkMarkingItem[] = [];
  let bytes = 2;
  const flush = () => {
    if (items.length > 0) chunks.push({ kind: 'bulk', targets, items });
    targets = [];
    items = [];
    bytes = 2;
  };
  for (const entry of entries) {
    const separator = items.length > 0 ? 1 : 0;
    const full =
      items.length >= settings.maxItems ||
      (items.length > 0 && bytes + separator + entry.bytes > settings.maxBytes);
    if (full) flush();
    bytes += entry.bytes + (items.length > 0 ? 1 : 0);
    targets.push(entry.target);
    items.push(entry.item);
  }
  flush();
  return chunks;
}

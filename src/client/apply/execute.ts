/**
 * Runs the steps of a plan against the service and reports per marking what was applied, what
 * failed and what was skipped.
 */
import type { MarkingsApi } from '../markings/markings-api.js';
import type { BulkMarkingItem } from '../../common/markings/wire.js';
import {
  asKsctlError,
  AuthError,
  ConflictError,
  InputError,
  InterruptedError,
  type KsctlError,
  NotFoundError,
} from '../../common/errors.js';
import { quotedNames } from '../../common/text/words.js';
import type { FailedMarking, RunReport } from './report.js';
import type { MarkingOperation, Step, StepTarget } from './strategy.js';
import { compareNames } from '../../common/markings/desired.js';

export interface ExecuteProgress {
  /** Markings finished (applied or failed) so far. */
  done: number;
  total: number;
  failed: number;
}

export interface ExecuteOptions {
  /** Steps in flight at once (default 4). */
  concurrency?: number;
  /** On abort no new request starts; requests in flight finish and the report says `interrupted`. */
  signal?: AbortSignal;
  onProgress?: (progress: ExecuteProgress) => void;
  /** Each failure's hint in code's words, not the CLI's (the library's apply). */
  codeWords?: boolean;
}

export const DEFAULT_CONCURRENCY = 4;

/**
 * Runs the steps with bounded concurrency. A failing step fails only its markings; the others go
 * on, and running apply again converges. Two failures change course:
 * - A bulk request is all-or-nothing. When the service names the failing items (`details` paths
 *   starting with the item index), those markings fail and the other items are sent again; when
 *   it names none (a 400/404/409/413 without an index), the chunk is split in halves until the
 *   culprits stand alone. Other errors (5xx after the client's retries, timeouts) fail the whole
 *   chunk: resending the same items would meet the same outage.
 * - After a 401/403 no new request starts: every one would be refused the same way.
 * Retrying 429/503 is the HTTP client's job. Deleting a marking that is already gone counts as
 * deleted, since that is the state the plan wanted.
 */
export async function executePlan(
  api: MarkingsApi,
  steps: readonly Step[],
  options: ExecuteOptions = {},
): Promise<RunReport> {
  return new PlanRun(api, steps, options).run();
}

/** One run of a plan: the report it fills in, and the steps' requests that fill it. */
class PlanRun {
  private readonly report: RunReport = { applied: [], failed: [], skipped: [], interrupted: false };
  private readonly total: number;
  /** After a 401/403 no new request starts. */
  private authorizationRefused = false;

  constructor(
    private readonly api: MarkingsApi,
    private readonly steps: readonly Step[],
    private readonly options: ExecuteOptions,
  ) {
    this.total = steps.reduce((sum, step) => sum + step.targets.length, 0);
  }

  async run(): Promise<RunReport> {
    const { steps, options, report } = this;
    let next = 0;
    const worker = async () => {
      while (this.mayStart() && next < steps.length) {
        const step = steps[next] as Step;
        next += 1;
        await this.runStep(step);
      }
    };
    const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
    await Promise.all(Array.from({ length: Math.min(concurrency, steps.length) }, worker));

    // Loops, not push(...targets): a spread of a huge step overflows the stack.
    for (const step of steps.slice(next)) {
      for (const target of step.targets) report.skipped.push(target);
    }
    report.interrupted = options.signal?.aborted === true;
    const byName = (a: { name: string }, b: { name: string }) => compareNames(a.name, b.name);
    report.applied.sort(byName);
    report.failed.sort(byName);
    report.skipped.sort(byName);
    return report;
  }

  private mayStart(): boolean {
    return !this.options.signal?.aborted && !this.authorizationRefused;
  }

  private progress(): void {
    this.options.onProgress?.({
      done: this.report.applied.length + this.report.failed.length,
      total: this.total,
      failed: this.report.failed.length,
    });
  }

  private applied(targets: readonly StepTarget[]): void {
    for (const target of targets) this.report.applied.push(target);
    this.progress();
  }

  private failed(targets: readonly StepTarget[], error: KsctlError, message = error.message): void {
    if (error instanceof AuthError) this.authorizationRefused = true;
    if (this.options.codeWords === true) error.inCodeWords();
    for (const target of targets) this.report.failed.push(failure(target, error, message));
    this.progress();
  }

  private async runBulk(targets: StepTarget[], items: BulkMarkingItem[]): Promise<void> {
    if (!this.mayStart()) {
      for (const target of targets) this.report.skipped.push(target);
      return;
    }
    try {
      // valueLimit=0: the answer would otherwise repeat every value just sent.
      await this.api.createOrUpdateMarkings(items, 0);
      this.applied(targets);
      return;
    } catch (caught) {
      const error = asKsctlError(caught, { reportHint: false });
      if (!namesItems(error) || items.length === 1) {
        this.failed(targets, error);
        return;
      }
      const culprits = failingItems(error, items.length);
      if (culprits.size === 0) {
        const half = Math.ceil(items.length / 2);
        await this.runBulk(targets.slice(0, half), items.slice(0, half));
        await this.runBulk(targets.slice(half), items.slice(half));
        return;
      }
      const rest: number[] = [];
      for (let index = 0; index < items.length; index += 1) {
        const reasons = culprits.get(index);
        const target = targets[index] as StepTarget;
        if (reasons === undefined) rest.push(index);
        else this.failed([target], error, `${reasons.join('; ')} (${error.message})`);
      }
      if (rest.length > 0) {
        await this.runBulk(
          rest.map((index) => targets[index] as StepTarget),
          rest.map((index) => items[index] as BulkMarkingItem),
        );
      }
    }
  }

  private async runOperations(
    target: StepTarget,
    markingId: string,
    operations: MarkingOperation[],
  ): Promise<void> {
    let done = 0;
    try {
      for (const operation of operations) {
        if (!this.mayStart()) break;
        await runOperation(this.api, markingId, operation);
        done += 1;
      }
      if (done === operations.length) this.applied([target]);
      else if (done === 0) this.report.skipped.push(target);
      else {
        this.failed(
          [target],
          new InterruptedError(
            `stopped after ${done} of ${operations.length} changes to this marking (${describeOperations(operations.slice(0, done))})`,
          ),
        );
      }
    } catch (caught) {
      const error = asKsctlError(caught, { reportHint: false });
      const partial =
        done === 0
          ? ''
          : ` (${done} of ${operations.length} changes were made before it: ${describeOperations(operations.slice(0, done))})`;
      this.failed([target], error, `${error.message}${partial}`);
    }
  }

  private async runDelete(target: StepTarget, markingId: string, version: number): Promise<void> {
    try {
      await this.api.deleteMarking(markingId, version);
      this.applied([target]);
    } catch (caught) {
      const error = asKsctlError(caught, { reportHint: false });
      if (error instanceof NotFoundError) this.applied([target]);
      else this.failed([target], error);
    }
  }

  private runStep(step: Step): Promise<void> {
    if (step.kind === 'bulk') return this.runBulk(step.targets, step.items);
    if (step.kind === 'operations')
      return this.runOperations(step.targets[0], step.markingId, step.operations);
    return this.runDelete(step.targets[0], step.markingId, step.version);
  }
}

/** What operations changed, for a report: `added value "x"; removed values "y", "z"`. */
function describeOperations(operations: readonly MarkingOperation[]): string {
  const named = (kind: MarkingOperation['kind'], verb: string) => {
    const names = operations.flatMap((op) => {
      if (op.kind !== kind) return [];
      if (op.kind === 'createValue') return [op.value.name];
      return op.kind === 'updateMarking' ? [] : [op.name];
    });
    if (names.length === 0) return [];
    return [`${verb} ${names.length === 1 ? 'value' : 'values'} ${quotedNames(names, 5)}`];
  };
  const fields = operations.some((op) => op.kind === 'updateMarking') ? ['changed fields'] : [];
  return [
    ...named('createValue', 'added'),
    ...named('updateValue', 'changed'),
    ...fields,
    ...named('deleteValue', 'removed'),
  ].join('; ');
}

async function runOperation(api: MarkingsApi, markingId: string, operation: MarkingOperation) {
  switch (operation.kind) {
    case 'createValue':
      return api.createValue(markingId, operation.value);
    case 'updateValue':
      return api.updateValue(markingId, operation.valueId, operation.update);
    case 'updateMarking':
      return api.updateMarking(markingId, operation.update);
    case 'deleteValue':
      return api.deleteValue(markingId, operation.valueId);
  }
}

/** Errors about the content of a bulk request (400, 404, 409, 413), which some item caused. */
function namesItems(error: KsctlError): boolean {
  return (
    error instanceof InputError || error instanceof NotFoundError || error instanceof ConflictError
  );
}

/**
 * Item index → reasons, from `details` paths such as `[3].name`, `3.detail.values[0]`, `/3/name`
 * or `items[3]`; indexes outside the request are ignored.
 */
function failingItems(error: KsctlError, itemCount: number): Map<number, string[]> {
  const culprits = new Map<number, string[]>();
  for (const detail of error.details) {
    const found = /^(?:\$|items)?[[/]?(\d+)(?:[\].[/]|$)/.exec(detail.path.trim());
    if (found === null) continue;
    const index = Number(found[1]);
    if (index >= itemCount) continue;
    const reasons = culprits.get(index) ?? [];
    reasons.push(detail.message);
    culprits.set(index, reasons);
  }
  return culprits;
}

function failure(target: StepTarget, error: KsctlError, message: string): FailedMarking {
  const entry: FailedMarking = {
    name: target.name,
    action: target.action,
    message,
    code: error.code,
    exitCode: error.exitCode,
  };
  if (error.hint !== undefined) entry.hint = error.hint;
  if (error.conversationId !== undefined) entry.conversationId = error.conversationId;
  return entry;
}

/**
 * `markings apply` as both faces run it (the CLI's command, the library's `plan()` and
 * `apply()`): markings files or entries read and checked whole, the service's markings read with
 * the values of those the source names, the plan computed; then the plan carried out in steps,
 * creates first and deletes last, each update guarded by the version the plan read.
 */
import type { MarkingsApi } from '../markings/markings-api.js';
import { readMarkings } from '../apply/current.js';
import { executePlan, type ExecuteOptions } from '../apply/execute.js';
import { computePlan, markingsNeedingValues, type Plan } from '../apply/plan.js';
import type { RunReport } from '../apply/report.js';
import {
  loadDesiredMarkings,
  parseMarkingSources,
  type ReadSourcesOptions,
} from '../apply/sources.js';
import { planSteps } from '../apply/strategy.js';
import type { DesiredMarking } from '../../common/markings/desired.js';

/** What a plan is made from: markings files (a directory's, `-` for stdin), or file entries. */
export type MarkingsSource =
  | ({ files: readonly string[] } & ReadSourcesOptions)
  | {
      /** The entries of a markings file's `markings:` list, checked as a file's are. */
      markings: unknown[];
    };

/** The source read and checked whole: an InputError lists every problem, nothing is sent. */
export async function desiredMarkings(source: MarkingsSource): Promise<DesiredMarking[]> {
  if ('files' in source) return loadDesiredMarkings(source.files, source);
  // Checked as a file is: the problems name `<markings>:LINE:COLUMN` of this text.
  const text = JSON.stringify({ markings: source.markings }, null, 2);
  return parseMarkingSources([{ label: '<markings>', text }]);
}

export interface PlanChangesOptions {
  /** Also delete the service's markings that the source does not list. */
  prune?: boolean;
  /** Requests at once while reading the service's markings (default 4). */
  concurrency?: number;
  signal?: AbortSignal;
}

/** The creates, updates and deletes that make the service match `desired`; only reads are sent. */
export async function planChanges(
  api: MarkingsApi,
  desired: DesiredMarking[],
  options: PlanChangesOptions = {},
): Promise<Plan> {
  const needValues = markingsNeedingValues(desired);
  const current = await readMarkings(api, {
    withValues: (marking) => needValues.has(marking.name),
    concurrency: options.concurrency,
    signal: options.signal,
  });
  return computePlan(desired, current, { prune: options.prune === true });
}

export interface ApplyPlanOptions extends ExecuteOptions {
  /** Told how many markings the plan changes, before the first request. */
  onStart?: (total: number) => void;
}

/**
 * Carries out a plan. Failures of single markings are in the report, not thrown; the run stops
 * early only when the credentials are refused.
 */
export async function applyPlan(
  api: MarkingsApi,
  plan: Plan,
  options: ApplyPlanOptions = {},
): Promise<RunReport> {
  const { onStart, ...execute } = options;
  const steps = planSteps(plan);
  onStart?.(steps.reduce((sum, step) => sum + step.targets.length, 0));
  return executePlan(api, steps, execute);
}

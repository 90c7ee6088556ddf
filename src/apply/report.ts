import type { StepAction, StepTarget } from './strategy.js';

export interface FailedMarking {
  name: string;
  action: StepAction;
  message: string;
  /** Stable code of the typed error (E_CONFLICT, E_INPUT, ...). */
  code: string;
  /** Exit code of that error, so the command can exit with the failure's meaning. */
  exitCode: number;
  hint?: string;
  conversationId?: string;
}

/** What `markings apply` did, per marking, in name order. */
export interface RunReport {
  applied: StepTarget[];
  failed: FailedMarking[];
  /**
   * Markings never attempted: the run was interrupted (`interrupted`), or the service refused the
   * credentials, after which every further request would fail the same way.
   */
  skipped: StepTarget[];
  interrupted: boolean;
}

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

/**
 * When several markings failed for different reasons, the exit code is the one a user has to act
 * on first: refused credentials (4) stop everything; a bug (1); the files or the service's
 * validation (3); something missing (5); a conflict with a concurrent change (6), which a rerun
 * usually settles; the service being unavailable (7), which a rerun settles once it is back.
 */
const EXIT_CODE_PRIORITY = [4, 1, 3, 5, 6, 7];

/** 0 when everything was applied, 130 when interrupted, else the most pressing failure's code. */
export function runExitCode(report: RunReport): number {
  if (report.interrupted) return 130;
  const codes = new Set(report.failed.map((failure) => failure.exitCode));
  if (codes.size === 0) return 0;
  return EXIT_CODE_PRIORITY.find((code) => codes.has(code)) ?? Math.max(...codes);
}

/**
 * Typed errors. Each class has a stable `code` (for scripts and tests) and the exit code of
 * docs/design.md section 5. Only the entry module turns them into a process exit.
 */

export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * A hint in the words of each face that shows it: the CLI names its flags (`--force`), the
 * library the options of its calls (`{ force: true }`). A plain string reads the same in both.
 */
export interface FacedHint {
  cli: string;
  code: string;
}

export type Hint = string | FacedHint;

/** A hint made from another, in each face's words: `words => `${words} and retry``. */
export function mapHint(hint: Hint, make: (words: string) => string): Hint {
  return typeof hint === 'object' ? { cli: make(hint.cli), code: make(hint.code) } : make(hint);
}

/**
 * A table row's hint: `hint` in the CLI's words (as the mock says it), `codeHint` the library's
 * when they differ.
 */
export interface HintColumns {
  hint: string;
  codeHint?: string;
}

export function hintColumns(hint: Hint): HintColumns {
  return typeof hint === 'object' ? { hint: hint.cli, codeHint: hint.code } : { hint };
}

export function rowHint(row: HintColumns): Hint {
  return row.codeHint === undefined ? row.hint : { cli: row.hint, code: row.codeHint };
}

/** A hint in the CLI's words. */
export function cliHint(hint: Hint | undefined): string | undefined {
  return typeof hint === 'object' ? hint.cli : hint;
}

export interface KsctlErrorOptions {
  /** One line telling the user what to do next. */
  hint?: Hint;
  /** X-Conversation-ID of the request that failed, so a user can quote it. */
  conversationId?: string;
  /** HTTP status of the answer that caused the error, if any. */
  status?: number;
  /** Numeric service error code (for example an enrollment cause code). */
  serviceCode?: number;
  details?: ErrorDetail[];
  cause?: unknown;
}

export abstract class KsctlError extends Error {
  abstract readonly code: string;
  abstract readonly exitCode: number;
  readonly hint: string | undefined;
  readonly conversationId: string | undefined;
  readonly status: number | undefined;
  readonly serviceCode: number | undefined;
  readonly details: ErrorDetail[];
  readonly #hint: Hint | undefined;

  constructor(message: string, options: KsctlErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.#hint = options.hint;
    this.hint = cliHint(options.hint);
    this.conversationId = options.conversationId;
    this.status = options.status;
    this.serviceCode = options.serviceCode;
    this.details = options.details ?? [];
  }

  /** The hint as given, in the words of both faces: for an error built from this one. */
  get facedHint(): Hint | undefined {
    return this.#hint;
  }

  /**
   * The error as the library shows it: `hint` names the options of code rather than CLI flags.
   * The library's calls turn their errors so at its boundary; the CLI never does.
   */
  inCodeWords(): this {
    const hint = this.#hint;
    if (typeof hint === 'object') (this as { hint: string | undefined }).hint = hint.code;
    return this;
  }
}

/** Unknown flag, bad argument, missing input in non-interactive mode. */
export class UsageError extends KsctlError {
  readonly code = 'E_USAGE';
  readonly exitCode = 2;
}

/** A file or value failed validation (nothing was sent), or the service answered 400/413/415. */
export class InputError extends KsctlError {
  readonly code = 'E_INPUT';
  readonly exitCode = 3;
}

/** Missing or bad credentials, 401/403, wrong profile password. */
export class AuthError extends KsctlError {
  readonly code = 'E_AUTH';
  readonly exitCode = 4;
}

/** 404, unknown marking, value, profile or keyspace. */
export class NotFoundError extends KsctlError {
  readonly code = 'E_NOT_FOUND';
  readonly exitCode = 5;
}

/** 409/412, duplicate name, stale version, replayed token. */
export class ConflictError extends KsctlError {
  readonly code = 'E_CONFLICT';
  readonly exitCode = 6;
}

/** Network error, timeout, 5xx, 417, 424, 451, or 429 after retries. */
export class ServiceError extends KsctlError {
  readonly code = 'E_SERVICE';
  readonly exitCode = 7;
}

/** No answer at all: the network failed or the request timed out (after any retries). */
export class UnreachableError extends ServiceError {
  constructor(
    /** What was being done ("list markings"). */
    readonly what: string,
    /** Why there was no answer ("connection refused"). */
    readonly reason: string,
    message: string,
    options: KsctlErrorOptions = {},
  ) {
    super(message, options);
  }
}

/** The user interrupted the command (Ctrl-C). */
export class InterruptedError extends KsctlError {
  readonly code = 'E_INTERRUPTED';
  readonly exitCode = 130;
}

/** A bug in ksctl. */
export class InternalError extends KsctlError {
  readonly code = 'E_INTERNAL';
  readonly exitCode = 1;
}

/** Exit codes that are not errors. */
export const EXIT_OK = 0;
export const EXIT_PLAN_HAS_CHANGES = 10;
/** `ksctl conformance` found a scenario where the mock answers otherwise than the service. */
export const EXIT_CONFORMANCE_DIFFERS = 10;

export function isKsctlError(error: unknown): error is KsctlError {
  return error instanceof KsctlError;
}

const REPORT_HINT =
  'This is a bug in ksctl. Please report it with the command you ran and the output of --debug.';

/**
 * Any thrown value as a typed error: unexpected ones become InternalError (exit 1). The hint asks
 * the user to report the bug; `reportHint: false` leaves it out where the error is one line of a
 * larger report (a failed marking in `apply`'s result).
 */
export function asKsctlError(error: unknown, options: { reportHint?: boolean } = {}): KsctlError {
  if (isKsctlError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new InternalError(`unexpected error: ${message}`, {
    ...(options.reportHint === false ? {} : { hint: REPORT_HINT }),
    cause: error,
  });
}

/**
 * Progress on stderr: on a terminal, the bar of long runs (bulk enroll, apply) and the spinner of
 * slow single steps, redrawn at a bounded rate and kept off each other's line; off a terminal, the
 * bar's counts as a plain line every few seconds (plain-waits.ts).
 */
import type { IOStreams } from './io.js';
import { elapsed, PLAIN_PROGRESS_MS, plainNotice } from './plain-waits.js';

export interface ProgressBar {
  /** One more item finished; `failed` counts it among the failures. */
  tick(failed?: boolean): void;
  /** Sets the counts outright (for callers that report totals rather than items). */
  set(done: number, failed?: number): void;
  /** Clears the bar, so the lines that follow start on a clean line. */
  done(): void;
}

export interface ProgressOptions {
  /** --quiet: no bar. */
  quiet?: boolean;
}

/** Redraws at most this often: a terminal fed thousands of updates a second slows the command. */
const REDRAW_MS = 80;
const BAR_WIDTH = 30;

/**
 * The width of the line drawn on stderr: the terminal's own when stderr knows it (stdout, which
 * `io.columns` measures, may be a file), else `io.columns`.
 */
function lineWidth(io: IOStreams): number {
  const own = (io.stderr as Partial<NodeJS.WriteStream>).columns;
  return Math.max(10, (own !== undefined && own > 0 ? own : io.columns) - 1);
}

const NO_BAR: ProgressBar = { tick() {}, set() {}, done() {} };

/**
 * The stderr streams a progress bar is on: a spinner keeps off the line meanwhile, and off a
 * terminal the requests of the run leave their waits to the bar's lines.
 */
const barShownOn = new WeakSet<object>();

/** Whether a progress bar (or its plain lines) is on this stream now. */
export function progressShownOn(stream: object): boolean {
  return barShownOn.has(stream);
}

/**
 * A one-line progress bar on stderr, redrawn in place:
 *   Applying 1000 markings [██████████░░░░░░░░░░░░░░░░░░░░]  340/1000  1 failed
 * Only on a terminal and without --quiet: piped stderr (CI logs) never gets carriage returns.
 */
export function progressBar(
  io: IOStreams,
  total: number,
  label: string,
  options: ProgressOptions = {},
): ProgressBar {
  if (options.quiet === true) return NO_BAR;
  if (!io.stderrIsTTY) return plainProgress(io, total, label);
  let finished = 0;
  let failures = 0;
  let lastDraw = 0;
  let shown = false;
  const draw = () => {
    const now = Date.now();
    if (finished < total && now - lastDraw < REDRAW_MS) return;
    lastDraw = now;
    const share = total === 0 ? 1 : Math.min(1, finished / total);
    const filled = Math.round(share * BAR_WIDTH);
    const counts = `${String(finished).padStart(String(total).length)}/${total}`;
    const failed = failures > 0 ? `  ${failures} failed` : '';
    const line = `${label} [${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ${counts}${failed}`;
    io.stderr.write(`\r\x1b[2K${line.slice(0, lineWidth(io))}`);
    shown = true;
    barShownOn.add(io.stderr);
  };
  return {
    tick(failed = false) {
      finished += 1;
      if (failed) failures += 1;
      draw();
    },
    set(done, failed = 0) {
      finished = done;
      failures = failed;
      draw();
    },
    done() {
      if (shown) io.stderr.write('\r\x1b[2K');
      shown = false;
      barShownOn.delete(io.stderr);
    },
  };
}

/**
 * Off a terminal: `Applying 1000 changes: 340/1000, 1 failed (12 s)` once a second has passed,
 * then every five seconds (a stalled run says so too), never redrawn in place.
 */
function plainProgress(io: IOStreams, total: number, label: string): ProgressBar {
  let finished = 0;
  let failures = 0;
  const line = (ms: number) =>
    `${label}: ${finished}/${total}${failures > 0 ? `, ${failures} failed` : ''} (${elapsed(ms)})`;
  const notice = plainNotice(io, line, line, { repeatMs: PLAIN_PROGRESS_MS });
  barShownOn.add(io.stderr);
  return {
    tick(failed = false) {
      finished += 1;
      if (failed) failures += 1;
    },
    set(done, failed = 0) {
      finished = done;
      failures = failed;
    },
    done() {
      notice.stop();
      barShownOn.delete(io.stderr);
    },
  };
}

/** A wait shorter than this shows nothing: a spinner that flashes by is noise. */
export const SPINNER_DELAY_MS = 300;
const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** Shared by every spinner, so one that follows another on the line turns on, not from the top. */
let spinnerFrame = 0;

export interface SpinnerOptions extends ProgressOptions {
  /** How long before it shows, when part of the wait has passed already (300 ms unless given). */
  delayMs?: number;
}

/** A spinner that a prompt can hold off the line while it asks. */
export interface Spinner {
  /** Clears the line and stops drawing until `resume`. */
  pause(): void;
  resume(): void;
  /** Says something else from now on; `now` draws it at once, without the 300 ms grace. */
  relabel(label: string, now?: boolean): void;
  /** Clears the line for good. */
  stop(): void;
}

const NO_SPINNER: Spinner = { pause() {}, resume() {}, relabel() {}, stop() {} };

/**
 * A spinner and `label` on stderr once 300 ms have passed (or `delayMs`), until `stop`. Only on a
 * terminal (whatever stdout is) and without --quiet, like the progress bar.
 */
export function startSpinner(io: IOStreams, label: string, options: SpinnerOptions = {}): Spinner {
  if (!io.stderrIsTTY || options.quiet === true) return NO_SPINNER;
  let shown = false;
  let ticker: NodeJS.Timeout | undefined;
  let delay: NodeJS.Timeout | undefined;
  const draw = () => {
    if (barShownOn.has(io.stderr)) return;
    const line = `${SPINNER_FRAMES[spinnerFrame++ % SPINNER_FRAMES.length]} ${label}`;
    io.stderr.write(`\r\x1b[2K${line.slice(0, lineWidth(io))}`);
    shown = true;
  };
  const halt = () => {
    clearTimeout(delay);
    clearInterval(ticker);
    delay = ticker = undefined;
    if (shown) io.stderr.write('\r\x1b[2K');
    shown = false;
  };
  const begin = (ms: number) => {
    delay = setTimeout(() => {
      draw();
      ticker = setInterval(draw, REDRAW_MS);
    }, ms);
  };
  let stopped = false;
  begin(options.delayMs ?? SPINNER_DELAY_MS);
  return {
    pause: halt,
    resume() {
      if (!stopped && delay === undefined && ticker === undefined) begin(SPINNER_DELAY_MS);
    },
    relabel(text, now = false) {
      label = text;
      if (stopped || !now || ticker !== undefined) return;
      clearTimeout(delay);
      delay = undefined;
      draw();
      ticker = setInterval(draw, REDRAW_MS);
    },
    stop() {
      stopped = true;
      halt();
    },
  };
}

/**
 * Runs `work` with a spinner and `label` on stderr once it has taken over 300 ms, cleared when it
 * ends. Only on a terminal and without --quiet, like the progress bar.
 */
export async function withSpinner<T>(
  io: IOStreams,
  label: string,
  work: () => Promise<T>,
  options: ProgressOptions = {},
): Promise<T> {
  const spinner = startSpinner(io, label, options);
  try {
    return await work();
  } finally {
    spinner.stop();
  }
}

import type { IOStreams } from './io.js';

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

const NO_BAR: ProgressBar = { tick() {}, set() {}, done() {} };

/** The stderr streams a progress bar is on: a spinner keeps off the line meanwhile. */
const barShownOn = new WeakSet<object>();

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
  if (!io.stderrIsTTY || options.quiet === true) return NO_BAR;
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
    io.stderr.write(`\r\x1b[2K${line.slice(0, Math.max(10, io.columns - 1))}`);
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

/** A wait shorter than this shows nothing: a spinner that flashes by is noise. */
const SPINNER_DELAY_MS = 300;
const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

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
 * A spinner and `label` on stderr once 300 ms have passed, until `stop`. Only on a terminal and
 * without --quiet, like the progress bar.
 */
export function startSpinner(io: IOStreams, label: string, options: ProgressOptions = {}): Spinner {
  if (!io.stderrIsTTY || options.quiet === true) return NO_SPINNER;
  let frame = 0;
  let shown = false;
  let ticker: NodeJS.Timeout | undefined;
  let delay: NodeJS.Timeout | undefined;
  const draw = () => {
    if (barShownOn.has(io.stderr)) return;
    const line = `${SPINNER_FRAMES[frame++ % SPINNER_FRAMES.length]} ${label}`;
    io.stderr.write(`\r\x1b[2K${line.slice(0, Math.max(10, io.columns - 1))}`);
    shown = true;
  };
  const halt = () => {
    clearTimeout(delay);
    clearInterval(ticker);
    delay = ticker = undefined;
    if (shown) io.stderr.write('\r\x1b[2K');
    shown = false;
  };
  const begin = () => {
    delay = setTimeout(() => {
      draw();
      ticker = setInterval(draw, REDRAW_MS);
    }, SPINNER_DELAY_MS);
  };
  let stopped = false;
  begin();
  return {
    pause: halt,
    resume() {
      if (!stopped && delay === undefined && ticker === undefined) begin();
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

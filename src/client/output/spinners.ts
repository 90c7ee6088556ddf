/**
 * The spinners of one command on a terminal's stderr: the one that names a wait the command
 * knows (`waiting`), and the one that names the requests to the service in flight when no such
 * wait does. Whatever else reaches the terminal (data, messages, a prompt) takes them off the line
 * first, so nothing is drawn over.
 */
import { Writable } from 'node:stream';
import type { RequestActivity } from '../api/client.js';
import { type IOStreams, withStreams } from './io.js';
import type { Spinner } from './progress.js';

/** Requests closer than this to the previous one's end continue its wait (see `requestRun`). */
const REQUEST_RUN_GAP_MS = 250;

export class Spinners {
  /**
   * The streams to write to. On a terminal, a write takes a running spinner off the line first
   * (it comes back after 300 ms of quiet), so data and messages are never drawn over.
   */
  readonly io: IOStreams;
  /** The spinner of the wait a command named, if any: it wins over the requests' spinner. */
  private spinner: Spinner | undefined;
  /** Requests to the service in flight (what each is for), and the spinner that names them. */
  private readonly requests = new Map<number, string>();
  private requestCount = 0;
  private requestSpinner: Spinner | undefined;
  /**
   * When the current run of requests began and when its last one ended: requests that follow one
   * another closely (the pages of a listing) are one wait, whose spinner shows once the run has
   * taken 300 ms, however short each request is.
   */
  private requestRun = { began: 0, ended: -Infinity };
  /** The streams that make way for spinners, flushed before the command ends. */
  private readonly givingWay: Writable[] = [];

  constructor(
    /** The streams as given: the spinners draw on these. */
    private readonly terminal: IOStreams,
    /** Whether --quiet is on (read at each wait: the options are parsed after this is made). */
    private readonly quiet: () => boolean,
  ) {
    this.io = terminal.stderrIsTTY ? this.giveWay(terminal) : terminal;
  }

  /**
   * `io` with its terminal streams (stdout when it is one, stderr) taking the spinners off the
   * line before each write; a pipe is left as it is.
   */
  private giveWay(io: IOStreams): IOStreams {
    const giveWay = (target: Writable) => {
      const stream = new Writable({
        write: (chunk: Buffer, _encoding, done) => {
          for (const spinner of [this.spinner, this.requestSpinner]) {
            spinner?.pause();
            spinner?.resume();
          }
          if (target.write(chunk)) done();
          else target.once('drain', () => done());
        },
      });
      this.givingWay.push(stream);
      return stream;
    };
    const stdout = io.stdoutIsTTY ? giveWay(io.stdout) : io.stdout;
    const stderr = giveWay(io.stderr);
    return withStreams(io, { stdout, stderr });
  }

  /**
   * What every client of the service is given, so that no wait on it is silent: after 300 ms on a
   * terminal a spinner names the request (or the last of those in flight, and how many more),
   * and a wait to retry says why. A command's own spinner (`waiting`) names the wait better and
   * wins; piped stderr and --quiet get nothing.
   */
  async requestActivity(): Promise<((what: string) => RequestActivity) | undefined> {
    if (this.quiet()) return undefined;
    if (!this.io.stderrIsTTY) return this.plainActivity();
    const { SPINNER_DELAY_MS, startSpinner } = await import('./progress.js');
    return (what) => {
      if (this.spinner)
        return {
          retrying: (message) => this.spinner?.relabel(`${what}: ${message}`, true),
          done() {},
        };
      const id = ++this.requestCount;
      this.requests.set(id, what);
      const label = () => {
        const all = [...this.requests.values()];
        const more = all.length > 1 ? ` (and ${all.length - 1} more)` : '';
        return `${all.at(-1)}${more}…`;
      };
      if (this.requestSpinner) this.requestSpinner.relabel(label());
      else {
        const now = performance.now();
        if (now - this.requestRun.ended > REQUEST_RUN_GAP_MS) this.requestRun.began = now;
        const waited = now - this.requestRun.began;
        this.requestSpinner = startSpinner(this.terminal, label(), {
          delayMs: Math.max(0, SPINNER_DELAY_MS - waited),
        });
      }
      return {
        retrying: (message) => this.requestSpinner?.relabel(`${what}: ${message}`, true),
        done: () => {
          this.requests.delete(id);
          if (this.requests.size > 0) this.requestSpinner?.relabel(label());
          else {
            this.requestSpinner?.stop();
            this.requestSpinner = undefined;
            this.requestRun.ended = performance.now();
          }
        },
      };
    };
  }

  /**
   * Off a terminal: each retry is a line, and a request without an answer after a second says so
   * (again every ten seconds), unless a long run's progress line speaks for it.
   */
  private async plainActivity(): Promise<(what: string) => RequestActivity> {
    const [{ elapsed, plainNotice }, { progressShownOn }] = await Promise.all([
      import('./plain-waits.js'),
      import('./progress.js'),
    ]);
    const stderr = this.terminal.stderr;
    return (what) => {
      const notice = progressShownOn(stderr)
        ? undefined
        : plainNotice(
            this.terminal,
            (ms) => `${what}: no answer yet after ${elapsed(ms)}…`,
            (ms) => `${what}: still no answer after ${elapsed(ms)}`,
          );
      return {
        retrying: (message) => stderr.write(`${what}: ${message}\n`),
        done: () => notice?.stop(),
      };
    };
  }

  /**
   * `work` with a spinner on a terminal when it takes a while (not piped, not --quiet); a prompt
   * during the work clears it and it comes back after the answer. Off a terminal the requests
   * inside say when they wait (`requestActivity`): the wait of a listing written to a reader that
   * went away (`| head -1`) must stay quiet.
   */
  async waiting<T>(label: string, work: () => Promise<T>): Promise<T> {
    const { startSpinner } = await import('./progress.js');
    const outer = this.spinner;
    outer?.pause();
    // A spinner of requests already under way gives way to the one that names the whole wait.
    this.requestSpinner?.pause();
    const spinner = startSpinner(this.terminal, label, { quiet: this.quiet() });
    this.spinner = spinner;
    try {
      return await work();
    } finally {
      spinner.stop();
      this.spinner = outer;
      outer?.resume();
      if (!outer) this.requestSpinner?.resume();
    }
  }

  /** `ask` with the spinners off the line while it asks. */
  async whileAsking<T>(ask: () => Promise<T>): Promise<T> {
    const spinners = [this.spinner, this.requestSpinner];
    for (const spinner of spinners) spinner?.pause();
    try {
      return await ask();
    } finally {
      for (const spinner of spinners) spinner?.resume();
    }
  }

  /** Clears the spinners' line: the process ends before the command does (Ctrl-C). */
  stop(): void {
    this.spinner?.stop();
    this.requestSpinner?.stop();
  }

  /** Waits until everything written has reached the real streams. */
  async flush(): Promise<void> {
    await Promise.all(
      this.givingWay.map(
        (stream) => new Promise<void>((resolve) => stream.write('', () => resolve())),
      ),
    );
  }
}

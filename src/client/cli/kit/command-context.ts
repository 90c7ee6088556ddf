/**
 * The command context: what every command gets (streams, environment, configuration, the service
 * client, a prompter, the output helpers), with heavy pieces loaded on first use. The spinners
 * and the streams that make way for them are src/client/output/spinners.ts; the pager src/client/output/pager.ts.
 */
import type { ApiClient, RequestActivity } from '../../api/client.js';
import type { MarkingsApi } from '../../markings/markings-api.js';
import type { Connection, GlobalOptions } from '../../config/settings.js';
import type { ConfigStore } from '../../config/store.js';
import { UsageError } from '../../../common/errors.js';
import type { ReadLimit } from '../../../common/files/bounded-read.js';
import { canPrompt, envFlag, type IOStreams } from '../../output/io.js';
import {
  OUTPUT_FORMATS,
  type OutputFormat,
  renderView,
  say,
  type TableView,
  type View,
} from '../../output/render.js';
import { writeJsonArray, writeTsvRows, writeYamlSequence } from '../../output/streaming.js';
import { Spinners } from '../../output/spinners.js';
import type { Prompter } from './prompter.js';
import { VERSION } from '../../../common/package-root.js';

/** Shared with the process entry: whether the running command handles Ctrl-C itself. */
export interface InterruptPolicy {
  graceful: boolean;
}

/** What one ksctl command line runs with; main.ts's `run` fills in the process's own. */
export interface RunOptions {
  io?: IOStreams;
  env?: NodeJS.ProcessEnv;
  prompter?: Prompter;
  signal?: AbortSignal;
  interrupts?: InterruptPolicy;
  cleanups?: ExitCleanups;
}

/** Runs one ksctl command line in this process and returns its exit code. */
export type CommandLineRunner = (argv: string[], options?: RunOptions) => Promise<number>;

/**
 * Synchronous work that must happen however the process ends (Ctrl-C, a closed stdout): the entry
 * runs each before it exits early.
 */
export type ExitCleanups = Set<() => void>;

/**
 * What every command gets: streams, environment, configuration, the service client and a prompter.
 * Heavy pieces load on first use so `--help` stays fast; tests construct it with fakes.
 */
export class CommandContext {
  globals: GlobalOptions = { input: true };
  exitCode = 0;
  private store: ConfigStore | undefined;
  private readonly clients: ApiClient[] = [];
  /**
   * Runs another ksctl command line in this process (the demo's steps). Set by main.ts's `run`,
   * which is the one that builds the program: a command never imports the entry module.
   */
  runCommandLine: CommandLineRunner | undefined;
  /** The spinners on a terminal's stderr: a command's wait, the requests in flight. */
  private readonly spinners: Spinners;
  /**
   * The streams commands write to. On a terminal, a write takes a running spinner off the line
   * first (it comes back after 300 ms of quiet), so data and messages are never drawn over.
   */
  readonly io: IOStreams;

  constructor(
    io: IOStreams,
    readonly env: NodeJS.ProcessEnv,
    private readonly basePrompter: Prompter,
    /** Aborted on Ctrl-C; commands that can stop gracefully watch it. */
    readonly signal: AbortSignal,
    private readonly interrupts: InterruptPolicy = { graceful: false },
    private readonly cleanups: ExitCleanups = new Set(),
  ) {
    this.spinners = new Spinners(io, () => this.quiet);
    this.io = this.spinners.io;
    // Ctrl-C ends most commands at once: a spinner's line is cleared first, not left behind.
    if (io.stderrIsTTY) this.withdrawSpinnerCleanup = this.onEarlyExit(() => this.spinners.stop());
  }

  /** Takes back the clearing of the spinners' line at an early exit, once the command ends. */
  private readonly withdrawSpinnerCleanup: (() => void) | undefined;

  /**
   * Runs `cleanup` if the process ends before the command does (a second Ctrl-C, a reader that
   * went away); the returned function withdraws it once the command has cleaned up itself.
   */
  onEarlyExit(cleanup: () => void): () => void {
    this.cleanups.add(cleanup);
    return () => this.cleanups.delete(cleanup);
  }

  /**
   * Says that this command watches `signal` and stops by itself (finishing what is in flight);
   * otherwise Ctrl-C ends the process at once.
   */
  stopsGracefully(): void {
    this.interrupts.graceful = true;
  }

  async config(): Promise<ConfigStore> {
    if (!this.store) {
      const { ConfigStore } = await import('../../config/store.js');
      this.store = await ConfigStore.open(this.env);
    }
    return this.store;
  }

  // The modules a command needs load side by side, not one after another: each lazy import is a
  // file to read and compile, and a scripted command is mostly that.

  async connection(): Promise<Connection> {
    const [{ resolveConnection }, store] = await Promise.all([
      import('../../config/settings.js'),
      this.config(),
    ]);
    return resolveConnection(this.globals, this.env, store, this.io);
  }

  /** A client for the service; closed when the command ends. `retries: 0` for a one-shot probe. */
  async client(
    connection?: Connection,
    options: { retries?: number; markingsBase?: boolean } = {},
  ): Promise<ApiClient> {
    const [conn, { ApiClient }, { fromEnvironment }] = await Promise.all([
      connection ?? this.connection(),
      import('../../api/client.js'),
      import('../../config/settings.js'),
    ]);
    const client = new ApiClient({
      ...options,
      baseUrl: conn.baseUrl,
      auth: conn.auth,
      credentialsFrom: fromEnvironment(conn.sources.auth) ? conn.sources.auth : undefined,
      timeoutMs: conn.timeoutMs,
      ca: conn.ca,
      userAgent: `ksctl/${VERSION}`,
      shortLived: true,
      trace: this.traceLine(),
      activity: await this.requestActivity(),
    });
    this.clients.push(client);
    return client;
  }

  /** `--debug`'s trace on stderr, or nothing. */
  traceLine(): ((line: string) => void) | undefined {
    return this.debugEnabled() ? (line) => this.io.stderr.write(`[debug] ${line}\n`) : undefined;
  }

  /**
   * What every client of the service is given, so that no wait on it is silent: a spinner names
   * the requests in flight on a terminal (src/client/output/spinners.ts).
   */
  requestActivity(): Promise<((what: string) => RequestActivity) | undefined> {
    return this.spinners.requestActivity();
  }

  async markings(): Promise<MarkingsApi> {
    const [{ HttpMarkingsApi }, client] = await Promise.all([
      import('../../markings/http-markings-api.js'),
      this.client(),
    ]);
    return new HttpMarkingsApi(client);
  }

  /**
   * Starts loading what `markings()` needs, to overlap with the loading of a command's own module;
   * a failure shows where the modules are used.
   */
  preloadMarkings(): void {
    Promise.all([
      import('../../config/store.js'),
      import('../../config/settings.js'),
      import('../../api/client.js'),
      import('../../markings/http-markings-api.js'),
    ]).catch(() => undefined);
  }

  debugEnabled(): boolean {
    return this.globals.debug === true || envFlag(this.env.KSCTL_DEBUG);
  }

  get quiet(): boolean {
    return this.globals.quiet === true;
  }

  format(): OutputFormat {
    const chosen = this.globals.output ?? this.env.KSCTL_OUTPUT;
    if (chosen === undefined || chosen === '') return 'table';
    if (!(OUTPUT_FORMATS as readonly string[]).includes(chosen)) {
      throw new UsageError(
        `KSCTL_OUTPUT must be one of ${OUTPUT_FORMATS.join(', ')}, not "${chosen}"`,
      );
    }
    return chosen as OutputFormat;
  }

  async render<T>(view: View<T>): Promise<void> {
    const format = this.format();
    if (
      view.kind === 'table' &&
      view.rows.length === 0 &&
      view.empty !== undefined &&
      format === 'table' &&
      this.io.stdoutIsTTY
    ) {
      this.say(view.empty);
      return;
    }
    const table = view.kind === 'table' && format === 'table';
    await this.paged(table, (io) =>
      renderView(io, format, view, { wide: this.globals.wide === true, quiet: this.quiet }),
    );
  }

  /**
   * What a command that changes something did, for scripts: JSON (or YAML) on stdout with -o json
   * (or yaml), so that every command's stdout parses; in a table, nothing, as the message on
   * stderr says it.
   */
  async outcome(data: unknown): Promise<void> {
    if (this.format() === 'table') return;
    await this.render({ kind: 'text', data, text: '' });
  }

  /**
   * `write` to the pager when `table` is a table for a terminal and paging is on (`--no-pager`
   * and piped output turn it off), else to stdout.
   */
  private async paged(table: boolean, write: (io: IOStreams) => Promise<void>): Promise<void> {
    if (!table || !this.io.stdoutIsTTY || this.globals.pager === false) return write(this.io);
    const { writePaged } = await import('../../output/pager.js');
    return writePaged(this.io, this.env, write);
  }

  /**
   * A listing whose JSON and YAML are its rows, written as the rows arrive (memory stays that of
   * a page however long the listing), and so is a piped table. A table on a terminal sizes its
   * columns to every row: it is rendered once all are in. A spinner says `label` meanwhile, on a
   * terminal's stderr wherever stdout goes (`list -o json > l.json` is a wait too).
   */
  async renderList<T>(
    label: string,
    rows: AsyncIterable<T>,
    view: (rows: T[]) => TableView<T>,
  ): Promise<void> {
    const format = this.format();
    if (format === 'json') await this.waiting(label, () => writeJsonArray(this.io, rows));
    else if (format === 'yaml') await this.waiting(label, () => writeYamlSequence(this.io, rows));
    else if (!this.io.stdoutIsTTY) {
      await this.waiting(label, () => writeTsvRows(this.io, rows, view([]).columns));
    } else {
      const all: T[] = [];
      await this.waiting(label, async () => {
        for await (const row of rows) all.push(row);
      });
      await this.render(view(all));
    }
  }

  /**
   * `work` with a spinner on a terminal when it takes a while (not piped, not --quiet); a prompt
   * during the work clears it and it comes back after the answer.
   */
  waiting<T>(label: string, work: () => Promise<T>): Promise<T> {
    return this.spinners.waiting(label, work);
  }

  /** The prompter; every question first takes a running spinner off the line. */
  get prompter(): Prompter {
    const base = this.basePrompter;
    const asking = <T>(ask: () => Promise<T>) => this.spinners.whileAsking(ask);
    return {
      confirm: (message, defaultAnswer) => asking(() => base.confirm(message, defaultAnswer)),
      input: (message) => asking(() => base.input(message)),
      secret: (message) => asking(() => base.secret(message)),
    };
  }

  /**
   * All of standard input, for `-` in place of a file, within `limit` (exit 3 beyond it). On a
   * terminal, first says what it waits for and how to end it: a silent wait looks like a hang.
   */
  async readStdin(what: string, limit: ReadLimit): Promise<string> {
    if (this.io.stdinIsTTY) {
      this.say(`reading ${what} from standard input; end it with Ctrl-D on a line of its own`);
    }
    const { readBoundedStream } = await import('../../../common/files/bounded-read.js');
    return (await readBoundedStream(this.io.stdin, 'standard input', limit)).toString('utf8');
  }

  /** A message for people, on stderr; --quiet silences it. */
  say(text: string): void {
    say(this.io, this.quiet, text);
  }

  /** A message --quiet does not silence: what a failed command did change before it failed. */
  warn(text: string): void {
    say(this.io, false, text);
  }

  canPrompt(): boolean {
    return canPrompt(this.io, this.env, !this.globals.input);
  }

  /**
   * Destructive commands: `--yes` goes ahead, a terminal asks, anywhere else is a usage error.
   * Declining is a cancellation (exit 2, as gh does), with nothing changed.
   */
  async confirm(question: string, yes: boolean | undefined): Promise<void> {
    if (yes) return;
    if (!this.canPrompt()) {
      // Errors begin in lower case, as every message does: "delete marking …: confirmation needed".
      const what = question.replace(/\?$/, '').replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase());
      throw new UsageError(`${what}: confirmation needed`, {
        hint: 'pass --yes to confirm (no questions are asked off a terminal, with --no-input or in CI)',
      });
    }
    if (!(await this.prompter.confirm(question, false))) {
      throw new UsageError('cancelled; nothing was changed');
    }
  }

  async dispose(): Promise<void> {
    this.withdrawSpinnerCleanup?.();
    await Promise.all(this.clients.map((c) => c.close()));
    // Everything written has reached the real streams before the entry flushes and exits.
    await this.spinners.flush();
  }
}

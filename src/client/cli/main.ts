import { CommanderError } from 'commander';
import { asKsctlError } from '../../common/errors.js';
import { systemIO } from '../output/io.js';
import { messageWidth } from '../../common/text/wrap.js';
import {
  CommandContext,
  type ExitCleanups,
  type InterruptPolicy,
  type RunOptions,
} from './kit/command-context.js';
import { buildProgram } from './program.js';
import { terminalPrompter } from './kit/prompter.js';

/** Runs one command line and returns its exit code; never exits the process itself. */
export async function run(argv: string[], options: RunOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  const io = options.io ?? systemIO(env);
  const ctx = new CommandContext(
    io,
    env,
    options.prompter ?? terminalPrompter(io),
    options.signal ?? new AbortController().signal,
    options.interrupts,
    options.cleanups,
  );
  ctx.runCommandLine = run;
  try {
    await buildProgram(ctx, argv).parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed help, the version, or the usage message already.
      return error.exitCode === 0 ? 0 : 2;
    }
    const { formatError } = await import('../output/errors.js');
    const typed = asKsctlError(error);
    io.stderr.write(formatError(typed, ctx.debugEnabled(), messageWidth(io)));
    return typed.exitCode;
  } finally {
    await ctx.dispose();
  }
}

const SIGNAL_ECHO_MS = 250;

/**
 * The process entry, and the only place that exits. Ctrl-C (or SIGTERM) aborts the signal of a
 * command that stops gracefully (apply, bulk enroll, mock serve, demo): it finishes what is in
 * flight and reports; a second Ctrl-C, or any other command, ends the process at once (130, or 143
 * for SIGTERM). A reader that goes away (`ksctl markings list | head -1`) ends a command quietly
 * with exit 0, as `head` expects; one that stops gracefully stops first as on Ctrl-C (the mock's
 * state closed cleanly). Whichever way the process ends early, what the command made that must not
 * outlive it (the demo's folder) is removed first.
 */
export async function main(): Promise<void> {
  const controller = new AbortController();
  const interrupts: InterruptPolicy = { graceful: false };
  const cleanups: ExitCleanups = new Set();
  const exit = (exitCode: number): never => {
    for (const cleanup of cleanups) {
      try {
        cleanup();
      } catch {
        // Best effort: the process is ending either way.
      }
    }
    process.exit(exitCode);
  };
  let count = 0;
  let firstAt = 0;
  const stop = (exitCode: number) => {
    // An exit hook under a library (signal-exit, under the prompts) re-raises a signal it sees,
    // once and at once: that echo is not the user's second Ctrl-C.
    if (count > 0 && performance.now() - firstAt < SIGNAL_ECHO_MS) return;
    count++;
    if (count === 1) firstAt = performance.now();
    if (!interrupts.graceful || count > 1) exit(exitCode);
    controller.abort();
  };
  const isClosedPipe = (error: unknown) =>
    (error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE';
  // The reader went away. A command that stops gracefully stops as on Ctrl-C, finishing what is
  // in flight (mock serve closes its state cleanly), quietly and with exit 0; any other command
  // has nobody left to tell and ends now.
  let readerLeft = false;
  const readerGone = () => {
    if (!interrupts.graceful) exit(0);
    // Stopping already (Ctrl-C, SIGTERM): the writes on its way out fail, and the stop goes on.
    if (controller.signal.aborted) return;
    readerLeft = true;
    // Nobody asked it to stop: it stops without a word ("interrupted" would be wrong).
    mute(process.stdout);
    mute(process.stderr);
    controller.abort();
  };
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (isClosedPipe(error)) readerGone();
    });
  }
  // A stream that forwards to stdout (the demo's steps) fails with the same EPIPE: still quiet.
  process.on('uncaughtException', (error) => {
    if (isClosedPipe(error)) return readerGone();
    process.stderr.write(`${error.stack ?? String(error)}\n`);
    exit(1);
  });
  process.on('SIGINT', () => stop(130));
  process.on('SIGTERM', () => stop(143));
  const code = await run(process.argv.slice(2), {
    signal: controller.signal,
    interrupts,
    cleanups,
  });
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  // A reader that went away ends the command with 0 however it stopped, as `head` expects.
  exit(readerLeft ? 0 : code);
}

/** Every later write to `stream` goes nowhere, its callback called as if it had been written. */
function mute(stream: NodeJS.WriteStream): void {
  stream.write = ((_chunk: unknown, encoding?: unknown, callback?: unknown) => {
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
    return true;
  }) as typeof stream.write;
}

/**
 * Resolves once everything written so far has left the process. Writes to a pipe are asynchronous,
 * so exiting straight away would cut a large output short (`ksctl markings list -o json | jq`).
 */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.writableLength === 0 || stream.destroyed) resolve();
    else stream.write('', () => resolve());
  });
}

import { CommanderError } from 'commander';
import { type IOStreams, systemIO } from '../output/io.js';
import { CommandContext } from './context.js';
import { buildProgram } from './program.js';
import { type Prompter, terminalPrompter } from './prompter.js';

export interface RunOptions {
  io?: IOStreams;
  env?: NodeJS.ProcessEnv;
  prompter?: Prompter;
  signal?: AbortSignal;
}

/** Runs one command line and returns its exit code; never exits the process itself. */
export async function run(argv: string[], options: RunOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  const io = options.io ?? systemIO(env);
  const ctx = new CommandContext(
    io,
    env,
    options.prompter ?? terminalPrompter(io),
    options.signal ?? new AbortController().signal,
  );
  try {
    await buildProgram(ctx).parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed help, the version, or the usage message already.
      return error.exitCode === 0 ? 0 : 2;
    }
    const { asKsctlError, formatError } = await import('../output/errors.js');
    const typed = asKsctlError(error);
    io.stderr.write(formatError(typed, ctx.debugEnabled()));
    return typed.exitCode;
  } finally {
    await ctx.dispose();
  }
}

/**
 * The process entry. The only place that exits: Ctrl-C aborts the command's signal once (commands
 * that can stop gracefully do so and exit 130); a second Ctrl-C, or a command that does not watch
 * the signal, ends the process with 130.
 */
export async function main(): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  process.on('SIGINT', () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    controller.abort();
    setTimeout(() => process.exit(130), 10_000).unref();
  });
  process.on('SIGTERM', () => controller.abort());
  const code = await run(process.argv.slice(2), { signal: controller.signal });
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
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

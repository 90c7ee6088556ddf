/**
 * Runs the CLI in-process through `run()`: captured stdout and stderr, terminals switched on or
 * off, a controlled environment and a scripted prompter.
 */
import { PassThrough } from 'node:stream';
import { run } from '../../src/client/cli/main.js';
import type { Prompter } from '../../src/client/cli/kit/prompter.js';
import type { IOStreams } from '../../src/client/output/io.js';
import { expect } from 'vitest';
import type { TestMock } from './mock.js';
import { withoutWaitNotices } from './wait-notices.js';

export interface CliOptions {
  /** Standard input, output and error are terminals (default false: piped, as in scripts and CI). */
  tty?: boolean;
  /** Standard output alone a terminal or not, whatever `tty` says. */
  stdoutIsTTY?: boolean;
  /** Standard error alone a terminal or not, whatever `tty` says. */
  stderrIsTTY?: boolean;
  /** The whole environment of the command; nothing is inherited from the test process. */
  env?: Record<string, string | undefined>;
  /** Answers the prompter gives, in order; a question beyond them fails the test. */
  answers?: (boolean | string)[];
  /** Text on standard input (for `--token-file -`). */
  stdin?: string;
  /** Terminal width (default 200). */
  columns?: number;
  /** Sees standard output as it is written (to tell output streamed from output held back). */
  onStdout?: (chunk: Buffer) => void;
  /** Sees standard error as it is written (to act on a message while the command runs). */
  onStderr?: (chunk: Buffer) => void;
  /** Keeps the plain "no answer yet" lines in `stderr` (test/helpers/wait-notices.ts). */
  waitNotices?: boolean;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** The questions the command asked, in order. */
  questions: string[];
}

function capture(watch?: (chunk: Buffer) => void): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    watch?.(chunk);
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

function scriptedPrompter(answers: (boolean | string)[], questions: string[]): Prompter {
  const next = (message: string): boolean | string => {
    questions.push(message);
    if (answers.length === 0) throw new Error(`unexpected question: ${message}`);
    return answers.shift()!;
  };
  return {
    confirm: async (message) => next(message) === true,
    input: async (message) => String(next(message)),
    secret: async (message) => String(next(message)),
  };
}

export interface RunningCli {
  /** The exit code, once the command ends (by itself or stopped). */
  exit: Promise<number>;
  /** Standard output so far. */
  stdout(): string;
  /** Standard error so far. */
  stderr(): string;
  /** The questions asked so far, in order. */
  questions: string[];
  /** What Ctrl-C does: aborts the command's signal. */
  stop(): void;
}

/**
 * Starts a command in-process and returns at once: for one that runs until stopped (`mock serve`,
 * `--follow`), whose output is read while it runs.
 */
export function startCli(argv: string[], options: CliOptions = {}): RunningCli {
  const stdout = capture(options.onStdout);
  const stderr = capture(options.onStderr);
  const stdin = new PassThrough();
  stdin.end(options.stdin ?? '');
  const tty = options.tty ?? false;
  const io: IOStreams = {
    stdin,
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdinIsTTY: tty,
    stdoutIsTTY: options.stdoutIsTTY ?? tty,
    stderrIsTTY: options.stderrIsTTY ?? tty,
    color: false,
    columns: options.columns ?? 200,
  };
  const questions: string[] = [];
  const controller = new AbortController();
  const exit = run(argv, {
    io,
    // A terminal without a pager unless a test asks for one (less would take the test's terminal).
    env: { KSCTL_PAGER: 'cat', ...options.env },
    prompter: scriptedPrompter([...(options.answers ?? [])], questions),
    signal: controller.signal,
  });
  return {
    exit,
    stdout: stdout.text,
    stderr: stderr.text,
    questions,
    stop: () => controller.abort(),
  };
}

/** Runs a command in-process to its end. */
export async function runCli(argv: string[], options: CliOptions = {}): Promise<CliResult> {
  const running = startCli(argv, options);
  const code = await running.exit;
  const stderr = options.waitNotices ? running.stderr() : withoutWaitNotices(running.stderr());
  return { code, stdout: running.stdout(), stderr, questions: running.questions };
}

/** An environment pointing at the mock with its dev token, configuration kept in `configDir`. */
export function mockEnv(mock: TestMock, configDir: string): Record<string, string> {
  return {
    KSCTL_CONFIG_DIR: configDir,
    KSCTL_BASE_URL: mock.baseUrl,
    KSCTL_TOKEN: mock.token,
  };
}

/** A CLI bound to one environment, for tables of commands. */
export function cliFor(env: () => Record<string, string | undefined>) {
  return (argv: string[], options: Omit<CliOptions, 'env'> & { env?: CliOptions['env'] } = {}) =>
    runCli(argv, { ...options, env: { ...env(), ...options.env } });
}

/** A user mistake: exit 2, no stack trace, no "bug", nothing sent to the service. */
export async function expectUsageError(
  mock: TestMock,
  result: { code: number; stderr: string },
  message: RegExp,
): Promise<void> {
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/bug|unexpected error|\n\s+at /);
  expect(await mock.journal()).toEqual([]);
}

/** The conversation id line an error message ends with, if any. */
export function conversationIdOf(stderr: string): string | undefined {
  return /^conversation id: (\S+)$/m.exec(stderr)?.[1];
}

/** Piped table output as rows of cells. */
export function tsvRows(stdout: string): string[][] {
  return stdout === ''
    ? []
    : stdout
        .replace(/\n$/, '')
        .split('\n')
        .map((l) => l.split('\t'));
}

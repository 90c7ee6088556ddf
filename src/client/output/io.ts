import { isatty } from 'node:tty';
import type { Readable, Writable } from 'node:stream';

/**
 * The streams a command talks to. Commands never touch `process.std*` directly, so tests can run
 * any command in-process with terminals switched on or off.
 */
export interface IOStreams {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Colour on stderr/stdout: only on a terminal, and never with NO_COLOR. */
  color: boolean;
  /** Terminal width for tables and progress bars. */
  columns: number;
}

export function systemIO(env: NodeJS.ProcessEnv): IOStreams {
  const stdoutIsTTY = process.stdout.isTTY === true;
  return {
    // Touching process.stdin creates its stream (a few milliseconds): only commands that read do.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTTY: isatty(0),
    stdoutIsTTY,
    stderrIsTTY: process.stderr.isTTY === true,
    color: stdoutIsTTY && colorAllowed(env),
    columns: terminalColumns(process.stdout.columns, env),
  };
}

/**
 * The streams with some of them (or their facts) replaced. Property by property, so a lazy
 * `stdin` stays a getter, made only when a command reads it.
 */
export function withStreams(io: IOStreams, changes: Partial<IOStreams>): IOStreams {
  const replaced = Object.fromEntries(
    Object.entries(changes).map(([name, value]) => [name, { value, enumerable: true }]),
  );
  return Object.defineProperties(
    {},
    { ...Object.getOwnPropertyDescriptors(io), ...replaced },
  ) as IOStreams;
}

/** The width of text for people where no terminal says one: help written to a pipe or file. */
export const DEFAULT_COLUMNS = 80;

/**
 * The width tables and text fit into. A pipe, or a terminal that reports no size (0 columns:
 * `script`, some CI pseudo-terminals, serial consoles), is not a zero-width one: `COLUMNS` says,
 * else the classic 80.
 */
export function terminalColumns(reported: number | undefined, env: NodeJS.ProcessEnv): number {
  if (reported !== undefined && reported > 0) return reported;
  const fromEnv = Number(env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_COLUMNS;
}

export function colorAllowed(env: NodeJS.ProcessEnv): boolean {
  return env.NO_COLOR === undefined || env.NO_COLOR === '';
}

/** Whether the user can be asked questions: both ends are terminals and nobody said not to. */
export function canPrompt(io: IOStreams, env: NodeJS.ProcessEnv, noInput: boolean): boolean {
  return io.stdinIsTTY && io.stdoutIsTTY && !noInput && !isCI(env);
}

export function isCI(env: NodeJS.ProcessEnv): boolean {
  return envFlag(env.CI);
}

/** An on/off environment setting (CI, KSCTL_DEBUG): unset, empty, `0` and `false` are off. */
export function envFlag(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

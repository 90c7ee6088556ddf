/**
 * Programs a test needs that a fresh machine may lack (zsh, fish, chromium, script): a test that
 * needs one the machine does not have is skipped, its note naming what is missing and how to get
 * it, so the README's `npm test` passes on a machine with only Node and npm; with CI set it fails
 * instead, loudly, since CI must run everything (.ci/run installs them). At the end of a run the
 * skip summary (test/helpers/skip-summary.ts) lists the notes.
 *
 * KSCTL_TEST_WITHOUT=fish,chromium acts as if those were not installed: the fresh machine's path,
 * on a machine that has them.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { beforeEach } from 'vitest';

export interface ProgramOptions {
  /** Where it must be, when the tests run it by its full path (Chromium's); else it is on PATH. */
  path?: string;
}

/** Whether CI is set (to anything but an empty string, 0 or false): every test must run. */
export function onCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The program's file (found on PATH unless `options.path`), or undefined when it is not there. */
export function findProgram(
  name: string,
  options: ProgramOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const without = (env.KSCTL_TEST_WITHOUT ?? '').split(',').map((w) => w.trim());
  if (without.includes(name)) return undefined;
  if (options.path !== undefined) return executable(options.path) ? options.path : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** The one line a skipped test carries: what is missing and how to get it. */
export function missingNote(name: string, install: string, options: ProgramOptions = {}): string {
  const where = options.path === undefined ? 'not on PATH' : `not at ${options.path}`;
  return `${name} is not installed (${where}): ${install}`;
}

/**
 * Whether `name` is there. When it is not, every test of the enclosing describe block (or file,
 * when called at the top) is skipped with `missingNote` as its reason, or fails with it under CI;
 * the caller's own beforeAll hooks that use the program should return early on false.
 */
export function requireProgram(
  name: string,
  install: string,
  options: ProgramOptions = {},
): boolean {
  return requireThere(
    findProgram(name, options) !== undefined,
    missingNote(name, install, options),
  );
}

/**
 * The same for anything else a test needs (the pinned Node 24): when `there` is false, every
 * test of the enclosing block or file is skipped with `note`, or fails with it under CI.
 */
export function requireThere(there: boolean, note: string): boolean {
  if (there) return true;
  beforeEach((context) => {
    if (onCi()) throw new Error(`${note} (CI is set: every test must run; .ci/run installs it)`);
    context.skip(note);
  });
  return false;
}

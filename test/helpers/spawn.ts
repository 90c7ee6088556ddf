/**
 * Spawns the real `bin/ksctl.js`. It runs the compiled code in dist/: `npm test` builds first; when
 * running vitest directly, run `npm run build` after changing src/.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import type { MockInfo } from '../../src/common/mock/wire.js';
import { tempDirs } from './temp.js';
import { withoutWaitNotices } from './wait-notices.js';
import { started } from './suite.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = join(ROOT, 'bin', 'ksctl.js');

export function assertBuilt(): void {
  if (!existsSync(join(ROOT, 'dist', 'client', 'cli', 'main.js'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm test does) before these tests');
  }
}

/**
 * The test process's environment without KSCTL_* settings, plus the given ones. No code cache
 * (KSCTL_CACHE_DIR empty): a test writes nothing under the user's home; the code cache's own
 * tests give it a directory. COLUMNS is 200, as runCli's terminal is, whatever the shell running
 * the tests exports: messages in a pipe break at COLUMNS, else 80; the tests of that width unset it.
 */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('KSCTL_')) env[k] = v;
  return { ...env, NO_COLOR: '1', KSCTL_CACHE_DIR: '', COLUMNS: '200', ...extra };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function collect(child: ChildProcess): () => { stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr?.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  return () => ({ stdout, stderr });
}

function exited(child: ChildProcess, output: () => { stdout: string; stderr: string }) {
  return new Promise<Exit>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, ...output() }));
  });
}

/** How ksctl is started: this Node with bin/ksctl.js, unless a test gives another program. */
const NPM_KSCTL = [process.execPath, BIN];

/**
 * Runs `ksctl ARGS` to completion (killed after `timeoutMs`); `program`: the command line that
 * starts ksctl (the single executable's path, in test/e2e/sea.test.ts).
 */
export async function ksctl(
  args: string[],
  options: {
    env: NodeJS.ProcessEnv;
    input?: string;
    timeoutMs?: number;
    cwd?: string;
    program?: string[];
    /** Keeps the plain "no answer yet" lines in `stderr` (test/helpers/wait-notices.ts). */
    waitNotices?: boolean;
  },
): Promise<Exit> {
  const [command = process.execPath, ...before] = options.program ?? NPM_KSCTL;
  const child = spawn(command, [...before, ...args], {
    env: options.env,
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: options.timeoutMs ?? 20_000,
  });
  const output = collect(child);
  child.stdin?.end(options.input ?? '');
  const exit = await exited(child, output);
  return options.waitNotices ? exit : { ...exit, stderr: withoutWaitNotices(exit.stderr) };
}

export interface ServedMock {
  info: MockInfo;
  child: ChildProcess;
  output(): { stdout: string; stderr: string };
  /** Waits (bounded) until standard output holds `lines` complete lines, and returns them. */
  stdoutLines(lines: number, timeoutMs?: number): Promise<string[]>;
  /** SIGTERM, then the exit (killed with SIGKILL if it takes longer than `timeoutMs`). */
  stop(timeoutMs?: number): Promise<Exit>;
}

/**
 * `ksctl mock serve --port 0 --ready-file F --no-log ...extra` (`log`: without `--no-log`, a line
 * for each request), waiting (bounded) for the ready file. The caller stops it.
 */
export async function serveMock(
  extra: string[],
  options: {
    env: NodeJS.ProcessEnv;
    readyFile: string;
    readyTimeoutMs?: number;
    log?: boolean;
    program?: string[];
  },
): Promise<ServedMock> {
  const quiet = options.log === true ? [] : ['--no-log'];
  const [command = process.execPath, ...before] = options.program ?? NPM_KSCTL;
  const child = spawn(
    command,
    [
      ...before,
      ...['mock', 'serve', '--port', '0', '--ready-file', options.readyFile, ...quiet, ...extra],
    ],
    { env: options.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = collect(child);
  const exit = exited(child, output);
  let gone: Exit | undefined;
  void exit.then((e) => {
    gone = e;
  });
  const deadline = Date.now() + (options.readyTimeoutMs ?? 20_000);
  while (!existsSync(options.readyFile)) {
    if (gone) throw new Error(`mock serve exited early (${gone.code}): ${gone.stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`mock serve was not ready in time: ${output().stderr}`);
    }
    await sleep(25);
  }
  const info = JSON.parse(await readFile(options.readyFile, 'utf8')) as MockInfo;
  return {
    info,
    child,
    output,
    async stdoutLines(lines, timeoutMs = 5_000) {
      // The file and the pipe are two channels: the line may still be on its way when the file is.
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const done = output().stdout.split('\n').slice(0, -1);
        if (done.length >= lines || gone || Date.now() > deadline) return done;
        await sleep(10);
      }
    },
    async stop(timeoutMs = 10_000) {
      if (!gone) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exit;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * The hooks of an end-to-end suite: one `ksctl mock serve --json` for the file, started with its
 * own config dir (where the mock writes its "mock" context) and a home for profiles, stopped and
 * removed after the file. `ksctl` runs the built CLI with both.
 */
export function mockServeSuite(): {
  readonly served: ServedMock;
  readonly configDir: string;
  readonly home: string;
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  ksctl(args: string[], extra?: Record<string, string>, input?: string): Promise<Exit>;
} {
  const dirs = tempDirs();
  let served: ServedMock | undefined;
  let configDir: string | undefined;
  let home: string | undefined;
  beforeAll(async () => {
    assertBuilt();
    configDir = await dirs.make();
    home = await dirs.make();
    served = await serveMock(['--json'], {
      env: cleanEnv({ KSCTL_CONFIG_DIR: configDir }),
      readyFile: join(configDir, 'run', 'ready.json'),
    });
  }, 60_000);
  afterAll(async () => {
    if (served?.child.exitCode === null) await served.stop();
    await dirs.removeAll();
  });
  const env = (extra: Record<string, string> = {}) =>
    cleanEnv({ KSCTL_CONFIG_DIR: started(configDir), KSCTL_HOME: started(home), ...extra });
  return {
    get served() {
      return started(served);
    },
    get configDir() {
      return started(configDir);
    },
    get home() {
      return started(home);
    },
    env,
    ksctl: (args, extra = {}, input) => ksctl(args, { env: env(extra), input, timeoutMs: 60_000 }),
  };
}

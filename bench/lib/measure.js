import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Spawning and timing commands, and comparing two of them run side by side.
 *
 * A command is `{ label, argv, env?, verify?, exitCode? }`: `argv[0]` is the program (usually
 * `process.execPath`), `env` the complete environment, `verify(stdout)` an optional check run on
 * the output of the warm-up run, returning a problem text or nothing; `observe(stdout)` an
 * optional reader of the output of every measured run (a load that reports its own figures);
 * `exitCode` the code the run must end with (default 0: a refusal is measured too);
 * `timeoutMs` how long a run may take (two minutes unless given: a load that runs longer).
 */

/** Longest a single run may take before it is killed and the benchmark fails. */
const RUN_TIMEOUT_MS = 120_000;
/** Standard error kept from a run for the failure message. */
const STDERR_KEPT = 4_000;

/** The children running now, so an interrupted benchmark can kill them. */
const running = new Set();
let stopped = false;

/** Kills the running commands and refuses to start more (Ctrl-C). */
export function stopAll() {
  stopped = true;
  for (const child of running) child.kill('SIGKILL');
}

/**
 * Runs a command once: wall time from spawn to the close of its streams, bytes on stdout, and
 * stdout itself when `keepOutput` (for verification). Rejects when it fails or times out.
 */
export function runOnce(command, keepOutput = false) {
  return new Promise((resolve, reject) => {
    if (stopped) return reject(new Error('interrupted'));
    const [program, ...args] = command.argv;
    const started = performance.now();
    const child = spawn(program, args, { env: command.env, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let bytes = 0;
    const chunks = [];
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      bytes += chunk.length;
      if (keepOutput) chunks.push(chunk);
    });
    child.stderr.on('data', (chunk) => {
      if (stderr.length < STDERR_KEPT) stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), command.timeoutMs ?? RUN_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      running.delete(child);
      reject(error);
    });
    child.on('close', (code, signal) => {
      const ms = performance.now() - started;
      clearTimeout(timer);
      running.delete(child);
      if (code !== (command.exitCode ?? 0)) {
        const why = signal ? `was killed by ${signal}` : `exited with ${code}`;
        reject(new Error(`${command.label} ${why}\n${stderr.slice(0, STDERR_KEPT)}`));
        return;
      }
      resolve({ ms, bytes, stdout: keepOutput ? Buffer.concat(chunks) : undefined });
    });
  });
}

export function median(values) {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The value at quantile `q` (0 to 1) of values sorted ascending: one of them, never a mean. */
export function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Interquartile range: how much the middle half of the runs spread. */
export function iqr(values) {
  const sorted = [...values].sort((x, y) => x - y);
  return quantile(sorted, 0.75) - quantile(sorted, 0.25);
}

/** How long probes took, as the load scripts print it: count, median, p95 and max (0.1 ms). */
export function probeSummary(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const ms = (q) => Math.round(quantile(sorted, q) * 10) / 10;
  return { probes: sorted.length, medianMs: ms(0.5), p95Ms: ms(0.95), maxMs: ms(1) };
}

async function warmUp(command, warmups) {
  const first = await runOnce(command, command.verify !== undefined);
  const problem = command.verify?.(first.stdout);
  if (problem) throw new Error(`${command.label}: unexpected output: ${problem}`);
  for (let i = 1; i < warmups; i++) await runOnce(command);
  return first.bytes;
}

/**
 * Compares two commands: warm-up runs of each (the first one verified), then `runs` rounds in
 * alternating order (AB, BA, AB, …) so drift and noise on this machine hit both sides alike.
 * Returns the medians, spreads, their ratio A/B and the output sizes. A command with
 * `timed(stdout)` is timed by what that returns (milliseconds it measured itself) instead of its
 * whole run.
 */
export async function compare(a, b, { runs, warmups }) {
  const bytesA = await warmUp(a, warmups);
  const bytesB = await warmUp(b, warmups);
  const timesA = [];
  const timesB = [];
  for (let round = 0; round < runs; round++) {
    const order = round % 2 === 0 ? [a, b] : [b, a];
    for (const command of order) {
      const keep = command.observe !== undefined || command.timed !== undefined;
      const { ms, stdout } = await runOnce(command, keep);
      // A command that times its own part (after a preparation longer than that part) says so.
      (command === a ? timesA : timesB).push(command.timed ? command.timed(stdout) : ms);
      command.observe?.(stdout);
    }
  }
  const medianA = median(timesA);
  const medianB = median(timesB);
  return {
    medianA,
    medianB,
    iqrA: iqr(timesA),
    iqrB: iqr(timesB),
    ratio: medianA / medianB,
    bytesA,
    bytesB,
    runs,
  };
}

const PEAK_RSS_PRELOAD = new URL('./peak-rss.js', import.meta.url).pathname;

/** Runs a Node command once and returns its peak resident set size in bytes. */
export async function peakRss(command) {
  const dir = await mkdtemp(join(tmpdir(), 'ksctl-bench-rss-'));
  try {
    const file = join(dir, 'rss');
    const nodeOptions = [command.env?.NODE_OPTIONS, `--import ${PEAK_RSS_PRELOAD}`];
    await runOnce({
      ...command,
      env: {
        ...command.env,
        NODE_OPTIONS: nodeOptions.filter(Boolean).join(' '),
        KSCTL_BENCH_RSS_FILE: file,
      },
    });
    return Number(await readFile(file, 'utf8'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

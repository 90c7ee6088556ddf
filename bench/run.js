#!/usr/bin/env node
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { groups } from './groups/index.js';
import { Harness } from './lib/harness.js';
import { compare, stopAll } from './lib/measure.js';
import { groupTable, ms } from './lib/report.js';

/**
 * `npm run bench [-- --only NAME] [--runs N] [--warmups N]`: runs the benchmark groups and prints
 * one markdown table per group on stdout. Progress goes to stderr. Targets are shown as
 * information; the exit code only says whether every benchmark could run.
 */

const USAGE = `usage: node bench/run.js [--only NAME[,NAME]] [--runs N] [--warmups N] [--list]
groups: ${groups.map((g) => g.name).join(', ')}
`;
const MAX_RUNS = 1000;

function wholeNumber(text, flag, min) {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > MAX_RUNS) {
    throw new Error(`${flag} must be a whole number from ${min} to ${MAX_RUNS}`);
  }
  return n;
}

function options() {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      runs: { type: 'string' },
      warmups: { type: 'string' },
      list: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const only = values.only?.split(',').map((s) => s.trim());
  const unknown = only?.find((name) => !groups.some((g) => g.name === name));
  if (unknown) throw new Error(`no benchmark group "${unknown}"\n${USAGE}`);
  return {
    help: values.help === true,
    list: values.list === true,
    selected: only ? groups.filter((g) => only.includes(g.name)) : groups,
    runs: values.runs === undefined ? undefined : wholeNumber(values.runs, '--runs', 1),
    warmups: values.warmups === undefined ? undefined : wholeNumber(values.warmups, '--warmups', 1),
  };
}

const progress = (text) => process.stderr.write(`${text}\n`);

function loadLine(when) {
  const [one, five, fifteen] = loadavg().map((n) => n.toFixed(2));
  return `Load average ${when}: ${one}, ${five}, ${fifteen} (1, 5, 15 min) on ${availableParallelism()} cores.`;
}

async function runGroup(group, o, harness) {
  const runs = o.runs ?? group.runs;
  const warmups = o.warmups ?? group.warmups;
  progress(`[${group.name}] setting up`);
  const { benchmarks, notes = [] } = await group.setup(harness);
  const rows = [];
  for (const benchmark of benchmarks) {
    progress(`[${group.name}] ${benchmark.name}: ${warmups} warm-up and ${runs} runs of each side`);
    try {
      rows.push({ benchmark, result: await compare(benchmark.a, benchmark.b, { runs, warmups }) });
    } catch (error) {
      rows.push({ benchmark, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return {
    rows,
    notes: [...notes, `${runs} interleaved runs of each side after ${warmups} warm-up`],
  };
}

let current;
let interrupted = false;

/** Ctrl-C or a kill: stop the running command, clean up, and leave. */
function onSignal(signal) {
  interrupted = true;
  stopAll();
  void (current?.cleanup() ?? Promise.resolve()).finally(() =>
    process.exit(signal === 'SIGINT' ? 130 : 143),
  );
}

async function main() {
  const o = options();
  if (o.help || o.list) {
    process.stdout.write(USAGE);
    return 0;
  }
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const started = performance.now();
  let failed = false;
  process.stdout.write(`## ksctl benchmarks (Node ${process.version}, ${process.platform})\n\n`);
  // Other work on the machine moves every absolute figure: say how busy it was.
  process.stdout.write(`${loadLine('at start')}\n\n`);
  for (const group of o.selected) {
    current = new Harness();
    try {
      const { rows, notes } = await runGroup(group, o, current);
      if (interrupted) break;
      failed ||= rows.some((r) => r.error);
      process.stdout.write(groupTable(group, rows, notes));
    } catch (error) {
      failed = true;
      process.stdout.write(`### ${group.name}: failed to set up\n\n    ${String(error)}\n\n`);
    } finally {
      await current.cleanup();
      current = undefined;
    }
  }
  if (!interrupted) {
    process.stdout.write(`${loadLine('at end')}\n`);
    progress(`done in ${ms(performance.now() - started)}`);
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);

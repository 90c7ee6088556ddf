/**
 * `ksctl conformance` and `ksctl conformance --replay`: flags, the confirmation of --write, the
 * run (src/client/conformance/), the report as a table or data, the JUnit file and the exit code.
 */
import { checkService } from '../../api/status.js';
import { endpointSettings } from '../../config/endpoints.js';
import { differenceLine } from '../../conformance/compare.js';
import type { ConformanceReport } from '../../conformance/report.js';
import { STRANGER_TOKEN } from '../../conformance/reference.js';
import {
  AuthError,
  EXIT_CONFORMANCE_DIFFERS,
  InputError,
  InterruptedError,
  isKsctlError,
  UsageError,
} from '../../../common/errors.js';
import { writeFileAtomic } from '../../../common/files/atomic-write.js';
import { readBoundedFile } from '../../../common/files/bounded-read.js';
import { nodeBudget, parseJsonWithin } from '../../../common/files/node-budget.js';
import { findJsonSyntaxError } from '../../apply/json-syntax.js';
import { fileError } from '../../../common/files/fs-errors.js';
import { type ProgressBar, progressBar } from '../../output/progress.js';
import type { CommandContext } from '../kit/command-context.js';

export interface ConformanceCommandOptions {
  write?: boolean;
  yes?: boolean;
  junit?: string;
  replay?: string;
  seed?: string;
}

/** A recording keeps at most 64 KiB of each body: thousands of exchanges fit well within. */
const RECORDING_MAX_BYTES = 256 * 1024 * 1024;

export async function conformance(
  ctx: CommandContext,
  options: ConformanceCommandOptions,
): Promise<void> {
  if (options.seed !== undefined && options.replay === undefined) {
    throw new UsageError(
      "--seed goes with --replay: a live run copies the service's markings into the mock",
    );
  }
  if (options.replay !== undefined && options.write === true) {
    throw new UsageError(
      '--write and --replay contradict each other: a replay sends what was recorded',
    );
  }
  if (options.yes === true && options.write !== true) {
    throw new UsageError('--yes goes with --write: a read-only run asks nothing');
  }
  ctx.stopsGracefully();
  const report =
    options.replay !== undefined
      ? await replay(ctx, options.replay, options.seed)
      : await live(ctx, options);
  if (options.junit !== undefined) {
    const { junitXml } = await import('../../conformance/report.js');
    try {
      await writeFileAtomic(options.junit, junitXml(report), 0o644);
    } catch (error) {
      throw isKsctlError(error) ? error : fileError('write the JUnit report', options.junit, error);
    }
  }
  await ctx.render({ kind: 'text', data: report, text: reportText(report) });
  for (const left of report.summary.leftBehind ?? []) {
    ctx.warn(
      `the service did not delete ${left.name} (${left.reason}); remove it with: ${left.command}`,
    );
  }
  if (report.summary.interrupted === true) {
    throw new InterruptedError(
      `interrupted after ${report.scenarios.length} scenarios${report.summary.prefix === undefined ? '' : '; the markings of the run were deleted'}`,
    );
  }
  if (report.summary.differs > 0) ctx.exitCode = EXIT_CONFORMANCE_DIFFERS;
}

async function live(
  ctx: CommandContext,
  options: ConformanceCommandOptions,
): Promise<ConformanceReport> {
  const conn = await ctx.connection();
  const client = await ctx.client(conn);
  const check = await checkService(
    await ctx.client(conn, { retries: 0 }),
    conn.auth.kind === 'bearer' ? conn.auth.token : undefined,
  );
  if (check.problem) throw check.problem;
  if (check.canRead === false) {
    throw new AuthError('the credentials may not read markings (the service answered 403)', {
      hint: 'conformance reads the markings the service holds: use a token with markings:read',
      status: 403,
    });
  }
  if (options.write === true) {
    await ctx.confirm(
      `Create, change and delete markings named ksctl-conformance-<random>-* on ${conn.baseUrl} (removed at the end)?`,
      options.yes,
    );
  }
  const stranger = await ctx.client(
    {
      ...conn,
      auth: { kind: 'bearer', token: STRANGER_TOKEN },
      sources: { ...conn.sources, auth: undefined },
    },
    { retries: 0 },
  );
  const endpoints = endpointSettings({}, ctx.env, conn.context);
  const { runConformance } = await import('../../conformance/run.js');
  return withProgress(ctx, (shown) =>
    runConformance({
      client,
      stranger,
      endpoints: {
        keyspace: endpoints.keyspace,
        enrollmentUrl: endpoints.enrollmentUrl,
        knsUrl: endpoints.knsUrl ?? endpoints.apiUrl,
      },
      scopes: check.scopes,
      write: options.write === true,
      timeoutMs: conn.timeoutMs,
      signal: ctx.signal,
      ...shown,
    }),
  );
}

/** A recording file's JSON, within bounds (size, values, nesting); a bad one is exit 3. */
async function readRecording(file: string): Promise<unknown> {
  const limit = { bytes: RECORDING_MAX_BYTES, what: 'recording' };
  let text: string;
  try {
    text = (await readBoundedFile(file, limit)).toString('utf8');
  } catch (error) {
    throw isKsctlError(error) ? error : fileError('read the recording', file, error);
  }
  try {
    return parseJsonWithin(text, `recording ${file}`, nodeBudget(limit));
  } catch (error) {
    if (isKsctlError(error)) throw error;
    // JSON.parse's own message quotes the text, whatever bytes it holds: say where instead.
    const found = findJsonSyntaxError(text);
    const where =
      found === undefined
        ? ''
        : ((before) =>
            `: ${found.reason} at line ${before.length}, column ${before.at(-1)!.length + 1}`)(
            text.slice(0, found.offset).split('\n'),
          );
    throw new InputError(`recording ${file} is not JSON${where}`);
  }
}

async function replay(
  ctx: CommandContext,
  file: string,
  seedFile: string | undefined,
): Promise<ConformanceReport> {
  const [{ recordingFrom, runReplay }, { readSeed }] = await Promise.all([
    import('../../conformance/replay.js'),
    import('../../usecases/mock.js'),
  ]);
  const raw = await readRecording(file);
  const recording = recordingFrom(raw, `recording ${file}`);
  const seed = seedFile === undefined ? undefined : await readSeed(seedFile);
  const conn = await ctx.connection().catch(() => undefined);
  return withProgress(ctx, (shown) =>
    runReplay(recording, {
      seed,
      timeoutMs: conn?.timeoutMs ?? 30_000,
      signal: ctx.signal,
      ...shown,
    }),
  );
}

/**
 * Progress on stderr: what the run is doing, and its scenarios as a bar on a terminal or a line
 * each elsewhere (a CI log).
 */
interface Progress {
  progress: (text: string) => void;
  onScenario: (started: number, total: number, name: string) => void;
}

/** Runs `work` with the progress shown, its bar cleared at the end (whatever the end). */
async function withProgress<T>(ctx: CommandContext, work: (p: Progress) => Promise<T>): Promise<T> {
  let bar: ProgressBar | undefined;
  const shown: Progress = {
    progress: (text) => {
      bar?.done();
      bar = undefined;
      ctx.say(text);
    },
    onScenario: (started, total, name) => {
      if (!ctx.io.stderrIsTTY) {
        ctx.say(`[${started + 1}/${total}] ${name}`);
        return;
      }
      bar ??= progressBar(ctx.io, total, `Comparing ${total} scenarios`, { quiet: ctx.quiet });
      bar.set(started);
    },
  };
  try {
    return await work(shown);
  } finally {
    bar?.done();
  }
}

const RESULT_WORDS = { same: 'same', differs: 'DIFFERS', skipped: 'skipped' } as const;

/** The report for people: the table, each difference with its request, the summary, the legend. */
export function reportText(report: ConformanceReport): string {
  const { scenarios, summary } = report;
  const width = Math.max('SCENARIO'.length, ...scenarios.map((s) => s.name.length));
  const row = (a: string, b: string, c: string) =>
    `${a.padEnd(width)}  ${b.padEnd(7)}  ${c}`.trimEnd();
  const lines = [row('SCENARIO', 'RESULT', 'REASON')];
  for (const s of scenarios) lines.push(row(s.name, RESULT_WORDS[s.result], s.reason));
  const differing = scenarios.filter((s) => s.result === 'differs');
  for (const s of differing) {
    lines.push('', `${s.name}:`, `  ${s.request ?? ''}`);
    for (const d of s.differences) lines.push(`  ${differenceLine(d)}`);
  }
  const other = summary.mode === 'replay' ? 'the recording' : 'the service';
  lines.push(
    '',
    `${summary.total} scenarios: ${summary.same} same, ${summary.differs} differ, ${summary.skipped} skipped (${other}: ${summary.target}; ${summary.mode})`,
  );
  if (summary.notReplayed !== undefined && summary.notReplayed > 0) {
    lines.push(
      `${summary.notReplayed} recorded requests were not markings requests and were not replayed`,
    );
  }
  if (summary.start !== undefined) lines.push(`Starting state: ${summary.start}`);
  for (const left of summary.leftBehind ?? []) {
    lines.push(
      `left on the service: ${left.name} (${left.reason}); remove it with: ${left.command}`,
    );
  }
  lines.push(
    '',
    'Legend (in the differences, "the target" is ' + other + '):',
    ...summary.legend.map((l) => `  ${l}`),
  );
  return `${lines.join('\n')}\n`;
}

/**
 * `ksctl mock capture`: every marking of the service in use, with all its values, as a seed for
 * `ksctl mock serve --seed`, on stdout or in a file written whole or not at all. Progress on
 * stderr: a bar on a terminal, a line at each tenth when piped (CI logs), nothing with --quiet.
 */
import { dirname, resolve } from 'node:path';
import { UsageError } from '../../../common/errors.js';
import { writeFileAtomic } from '../../../common/files/atomic-write.js';
import { ensureDirectory } from '../../../common/files/directories.js';
import { refuseToReplace } from '../../../common/files/replace-guard.js';
import { progressBar } from '../../output/progress.js';
import { plural } from '../../../common/text/words.js';
import { writeChunks } from '../../output/streaming.js';
import { captureSeed } from '../../usecases/mock-capture.js';
import type { CommandContext } from '../kit/command-context.js';

export interface CaptureOptions {
  out?: string;
  force?: boolean;
  concurrency?: number;
}

/** `mock serve --seed` reads a file by its name: `.json` as JSON, anything else as YAML. */
function seedFormat(ctx: CommandContext, file: string | undefined): 'json' | 'yaml' {
  const chosen = ctx.format();
  if (file === undefined) return chosen === 'json' ? 'json' : 'yaml';
  const byName = file.endsWith('.json') ? 'json' : 'yaml';
  if (chosen !== 'table' && chosen !== byName) {
    throw new UsageError(
      `-o ${chosen} does not match --out ${file}: ksctl mock serve --seed reads a file ending in .json as JSON, any other as YAML`,
      { hint: `name the file ${byName === 'json' ? 'seed.yaml' : 'seed.json'}, or leave -o out` },
    );
  }
  return byName;
}

/** Markings between two lines of progress in a log, at the least. */
const LINE_EVERY_MARKINGS = 1_000;

/** Progress for a log: a line each time another tenth of the markings (or 1,000) is written. */
function progressLines(ctx: CommandContext, total: number): (done: number) => void {
  const step = Math.max(LINE_EVERY_MARKINGS, Math.ceil(total / 10));
  return (done) => {
    if (done % step === 0 && done < total)
      ctx.say(`captured ${done} of ${plural(total, 'marking')}`);
  };
}

export async function capture(ctx: CommandContext, options: CaptureOptions): Promise<void> {
  const file = options.out;
  const format = seedFormat(ctx, file);
  // The file's directory is made (or refused) before every marking is read for nothing.
  if (file !== undefined) {
    await refuseToReplace(file, options.force);
    await ensureDirectory(dirname(resolve(file)), 0o755);
  }
  const api = await ctx.markings();
  let count = 0;
  let values = 0;
  let tick: (done: number) => void = () => undefined;
  const seed = await captureSeed(api, {
    format,
    concurrency: options.concurrency,
    signal: ctx.signal,
    onMarking: (marking) => {
      count += 1;
      values += marking.detail.valueCount;
      tick(count);
    },
  });
  const label = `Capturing ${plural(seed.total, 'marking')}`;
  const bar = progressBar(ctx.io, seed.total, label, { quiet: ctx.quiet });
  tick = ctx.io.stderrIsTTY
    ? (done) => bar.set(Math.min(done, seed.total))
    : progressLines(ctx, seed.total);
  try {
    if (file === undefined) await writeChunks(ctx.io.stdout, seed.text);
    // A seed holds no secret; a failed write leaves the previous file whole and no temp file.
    else await writeFileAtomic(file, seed.text, 0o644);
  } finally {
    bar.done();
  }
  const what = `${plural(count, 'marking')} with ${plural(values, 'value')}`;
  if (file === undefined) ctx.say(`captured ${what}`);
  else ctx.say(`captured ${what} to ${file}; a mock with them: ksctl mock serve --seed ${file}`);
}

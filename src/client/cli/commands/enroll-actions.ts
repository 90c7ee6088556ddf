/**
 * The actions of `ksctl enroll`: the settings gathered (src/client/config/enrollment.ts), then
 * one device enrolled under a spinner (src/client/usecases/enroll-device.ts) or many (`--count`,
 * `--tokens-file`) with a progress line and a summary (src/client/usecases/enroll-many.ts), each
 * in a run of src/client/usecases/enrollment-run.ts.
 */
import { enrollmentSettings } from '../../config/enrollment.js';
import type { DeviceKeyPair } from '../../enroll/protocol.js';
import type { KeyPairSupply } from '../../enroll/device-keys.js';
import { InterruptedError } from '../../../common/errors.js';
import { VERSION } from '../../../common/package-root.js';
import { profileFields } from '../../output/profiles.js';
import { progressBar } from '../../output/progress.js';
import { plural } from '../../../common/text/words.js';
import type { ProfileRow } from '../../profiles/operations.js';
import { enrollOne } from '../../usecases/enroll-device.js';
import type { EnrollRun } from '../../usecases/enrollment-run.js';
import type { CommandContext } from '../kit/command-context.js';
import { persistorFlags } from '../kit/persistor-flags.js';
import { type DeviceKeysAhead, type EnrollOptions, isBulk } from './enroll-options.js';

/** `keys`: the device key pairs already being generated. */
export async function enroll(
  ctx: CommandContext,
  options: EnrollOptions,
  keys: DeviceKeysAhead = {},
): Promise<void> {
  const bulk = isBulk(options);
  const settings = await enrollmentSettings(ctx, options, persistorFlags(options), bulk);
  const { persistor, tokens } = settings;
  // Every request says when it waits: a spinner on a terminal, plain lines elsewhere.
  const activity = await ctx.requestActivity();
  if (tokens.kind === 'mock') tokens.activity = activity;
  const run: EnrollRun = {
    ...settings,
    // Enrollment endpoints live outside the markings base URL: no credentials of the service.
    client: {
      timeoutMs: settings.timeoutMs,
      ca: settings.ca,
      retries: 3,
      userAgent: `ksctl/${VERSION}`,
      shortLived: true,
      trace: ctx.traceLine(),
      activity,
    },
    setActive: options.setActive && !bulk,
    signal: ctx.signal,
    onWait: (holder) => ctx.say(`waiting for ${holder} to finish with ${persistor.path}…`),
  };
  await (bulk
    ? enrollMany(ctx, options, run, keys.many)
    : enrollSingle(ctx, options, run, keys.single));
}

async function enrollSingle(
  ctx: CommandContext,
  options: EnrollOptions,
  run: EnrollRun,
  deviceKeys: Promise<DeviceKeyPair> | undefined,
): Promise<void> {
  const path = run.persistor!.path;
  let enrolled;
  try {
    // A spinner on a terminal; the e-mailed code prompt, if it comes, takes it off the line.
    enrolled = await ctx.waiting(`enrolling a device into keyspace ${run.keyspace}…`, () =>
      enrollOne(run, {
        name: options.name,
        uniqueName: true,
        deviceKeys,
        onRenamed: (message) => ctx.say(message),
      }),
    );
  } catch (error) {
    if (ctx.signal.aborted) throw new InterruptedError('interrupted; no profile was stored');
    throw error;
  }
  const row = enrolled.row!;
  ctx.say(
    `enrolled ${row.deviceId} into keyspace ${row.keyspace}; profile "${row.name}" saved to ${path}${row.active ? ' (active)' : ''}`,
  );
  await ctx.render({
    kind: 'record',
    data: { ...row, persistor: run.persistor!.kind, path },
    fields: [...profileFields(row), ['Profile file', path]],
  });
  if (options.verify === true) {
    const [{ checkDevice }, { ApiClient }] = await Promise.all([
      import('../../device/check.js'),
      import('../../api/client.js'),
    ]);
    const http = new ApiClient({ ...run.client, auth: { kind: 'none' } });
    try {
      const checked = await checkDevice(enrolled.profile, http, ctx.signal);
      ctx.say(
        `verified: created key ${checked.keyId} with the new profile and fetched it back (${checked.ms} ms)`,
      );
    } finally {
      await http.close();
    }
  }
}

async function enrollMany(
  ctx: CommandContext,
  options: EnrollOptions,
  run: EnrollRun,
  keys: KeyPairSupply | undefined,
) {
  const { enrollMany: enrollDevices } = await import('../../usecases/enroll-many.js');
  const verify = options.verify !== false;
  let progress: ReturnType<typeof progressBar> | undefined;
  const result = await enrollDevices(run, {
    count: options.count,
    concurrency: options.concurrency,
    keys,
    name: options.name,
    verify,
    onStart: (count) => {
      // Ctrl-C: no new device starts, those registering finish and are saved, then the summary.
      ctx.stopsGracefully();
      progress = progressBar(ctx.io, count, `Enrolling ${plural(count, 'device')}`, {
        quiet: ctx.quiet,
      });
    },
    onSettled: (outcome) => progress?.tick(!outcome.ok),
  });
  progress?.done();
  const { enrolled, failed, count } = result;
  await ctx.render({
    kind: 'table',
    data: { enrolled, failed },
    rows: enrolled,
    columns: [
      { header: 'NAME', value: (r: ProfileRow) => r.name, id: true },
      { header: 'DEVICE ID', value: (r) => r.deviceId, id: true },
      { header: 'KEYSPACE', value: (r) => r.keyspace },
      { header: 'ACTIVE', value: (r) => (r.active ? '*' : '') },
    ],
  });
  ctx.say(
    `enrolled ${enrolled.length} of ${plural(count, 'device')} into keyspace ${run.keyspace} in ${result.seconds} s (concurrency ${result.concurrency}); profiles in ${run.persistor!.path}${verify ? `; verified ${enrolled.length}: each created a key and fetched it back` : ''}`,
  );
  if (failed.length > 0) {
    // Failures always show, even with --quiet: they explain the exit code.
    const notStarted = failed.filter((f) => f.code === 'E_INTERRUPTED');
    const failedCount = failed.length - notStarted.length;
    const lines = failedCount > 0 ? [`${plural(failedCount, 'device')} failed:`] : [];
    for (const f of failed.filter((x) => x.code !== 'E_INTERRUPTED')) {
      lines.push(
        `  ${f.name}: ${f.message}${f.conversationId ? ` (conversation id ${f.conversationId})` : ''}`,
      );
    }
    if (notStarted.length > 0)
      lines.push(`${plural(notStarted.length, 'device')} not started: interrupted`);
    for (const hint of new Set(failed.flatMap((f) => (f.hint ? [f.hint] : [])))) {
      lines.push(`hint: ${hint}`);
    }
    ctx.io.stderr.write(`${lines.join('\n')}\n`);
  }
  ctx.exitCode = ctx.signal.aborted ? 130 : result.exitCode;
}

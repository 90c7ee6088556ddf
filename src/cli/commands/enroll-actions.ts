/**
 * The actions of `ksctl enroll`: one device (keys already being generated, endpoints resolved or
 * discovered, token pairs from any source, the profile stored under the file lock) or many
 * (`--count`, `--tokens-file`) with a progress line and a summary.
 */
import { availableParallelism, hostname } from 'node:os';
import { ApiClient } from '../../api/client.js';
import { readSecretFile, resolveContext, resolveTimeoutMs } from '../../config/settings.js';
import { bulkExitCode, runPool, type TaskOutcome } from '../../enroll/bulk.js';
import { deviceKeySource, searchSlots } from '../../enroll/device-keys.js';
import {
  type EnrollmentRun,
  enrollAndStore,
  prepareRun,
  type StoredDevice,
} from '../../enroll/enroll.js';
import { EnrollmentEndpoints, endpointSettings } from '../../enroll/endpoints.js';
import { assertKeyspace } from '../../enroll/keyspace.js';
import type { DeviceKeyPair } from '../../enroll/protocol.js';
import {
  listedTokens,
  mockTokens,
  parseTokensFile,
  portalTokens,
  type TokenSource,
} from '../../enroll/token-sources.js';
import { ConflictError, InterruptedError, isKsctlError, UsageError } from '../../errors.js';
import { profileFields } from '../../output/profiles.js';
import { progressBar } from '../../output/progress.js';
import { plural } from '../../output/render.js';
import {
  PROFILE_NAME_MAX_LENGTH,
  profileNameProblem,
  type ProfileSet,
  withProfilesHeld,
} from '../../profiles/index.js';
import type { ProfileRow } from '../../profiles/operations.js';
import type { CommandContext } from '../command-context.js';
import { persistorFlags } from '../persistor-flags.js';
import { resolvePersistor, secret } from '../resolve-persistor.js';
import { VERSION } from '../../package-root.js';
import { type EnrollOptions, isBulk } from './enroll-options.js';

const DEFAULT_BULK_NAME = 'test-device';
/** How long an enrollment waits for another ksctl to finish with the profile file. */
const PROFILE_FILE_WAIT_MS = 120_000;

/** `deviceKeys`: the key pair of a single enrollment, already being generated. */
export async function enroll(
  ctx: CommandContext,
  options: EnrollOptions,
  deviceKeys?: Promise<DeviceKeyPair>,
): Promise<void> {
  const bulk = isBulk(options);
  // Before any prompt or request: a name that cannot be stored must not spend a token pair.
  if (options.name !== undefined) checkProfileName(options.name, '--name');
  else if (!bulk) checkProfileName(hostname(), 'the host name (the default profile name)');

  const { name: contextName, context } = resolveContext(ctx.globals, ctx.env, await ctx.config());
  const timeoutMs = resolveTimeoutMs(ctx.globals, ctx.env, contextName, context);
  const settings = endpointSettings(options, ctx.env, context);
  const keyspace = assertKeyspace(settings.keyspace ?? (await askKeyspace(ctx)));
  const persistor = await resolvePersistor(ctx, persistorFlags(options), { creates: true });
  const http = client(ctx, timeoutMs, 3);
  const registerHttp = client(ctx, timeoutMs, 0);
  try {
    const endpoints = new EnrollmentEndpoints(http, keyspace, settings, ctx.signal);
    const run: EnrollmentRun = {
      endpoints,
      http,
      registerHttp,
      tokens: await tokenSource(ctx, options, bulk, http, endpoints),
      persistor,
      setActive: options.setActive && !bulk,
      signal: ctx.signal,
    };
    // The profile file is locked, read and decrypted before the first registration, and held
    // until the last profile is saved: a device is never registered whose profile cannot be
    // stored, and bulk names are numbered against what the file holds.
    await withProfilesHeld(
      persistor,
      (existing) =>
        bulk
          ? enrollMany(ctx, options, run, existing)
          : enrollOne(ctx, options, run, existing, deviceKeys),
      {
        timeoutMs: PROFILE_FILE_WAIT_MS,
        onWait: (holder) => ctx.say(`waiting for ${holder} to finish with ${persistor.path}…`),
      },
    );
  } finally {
    await Promise.all([http.close(), registerHttp.close()]);
  }
}

/** Clients for the enrollment endpoints, which live outside the markings base URL. */
function client(ctx: CommandContext, timeoutMs: number, retries: number): ApiClient {
  return new ApiClient({
    auth: { kind: 'none' },
    timeoutMs,
    retries,
    userAgent: `ksctl/${VERSION}`,
    shortLived: true,
    trace: ctx.traceLine(),
  });
}

function checkProfileName(name: string, what: string): void {
  const problem = profileNameProblem(name);
  if (problem !== undefined) {
    throw new UsageError(`${what} ${problem}`, {
      hint: `profile names are one line of printable text, at most ${PROFILE_NAME_MAX_LENGTH} characters, for example --name laptop`,
    });
  }
}

async function askKeyspace(ctx: CommandContext): Promise<string> {
  if (!ctx.canPrompt()) {
    throw new UsageError('no keyspace to enroll into', {
      hint: 'pass --keyspace, set KSCTL_KEYSPACE, or store one in the context',
    });
  }
  return (await ctx.prompter.input('Keyspace to enroll into:')).trim();
}

async function tokenSource(
  ctx: CommandContext,
  options: EnrollOptions,
  bulk: boolean,
  http: ApiClient,
  endpoints: EnrollmentEndpoints,
): Promise<TokenSource> {
  if (options.tokensFile !== undefined) {
    const text = await readSecretFile(options.tokensFile, ctx.io.stdin, 'list of token pairs');
    const source = options.tokensFile === '-' ? 'standard input' : options.tokensFile;
    return listedTokens(parseTokensFile(text, source));
  }
  if (options.username !== undefined) {
    const password = await secret(ctx, {
      file: options.passwordFile,
      envValue: ctx.env.KSCTL_PORTAL_PASSWORD,
      flag: '--password-file',
      envName: 'KSCTL_PORTAL_PASSWORD',
      what: 'portal password',
      question: `Portal password of ${options.username}:`,
    });
    return portalTokens(http, endpoints, {
      kind: 'password',
      username: options.username,
      password,
    });
  }
  if (options.email !== undefined) {
    const file = options.registrationCodeFile;
    // Checked before the portal sends an e-mail nobody could use.
    if (file === undefined && !ctx.canPrompt()) {
      throw new UsageError('the registration code cannot be asked for here', {
        hint: 'pass --registration-code-file PATH (or - for stdin) with --email when not on a terminal',
      });
    }
    const email = options.email;
    const code = () =>
      secret(ctx, {
        file,
        envValue: undefined,
        flag: '--registration-code-file',
        envName: undefined,
        what: 'registration code',
        question: `Registration code sent to ${email}:`,
      });
    return portalTokens(http, endpoints, { kind: 'email', email }, code);
  }
  if (options.mockUser !== undefined) {
    // The mock serves its admin endpoints beside the API it enrolls into.
    const connection = await ctx.connection();
    const api = await endpoints.api();
    const admin = await ctx.client(
      { ...connection, baseUrl: new URL(api.url).origin },
      { markingsBase: false },
    );
    return mockTokens(admin, api, endpoints.keyspace, options.mockUser);
  }
  if (bulk) throw new UsageError('no token pairs for --count');
  const stoken = await secret(ctx, {
    file: options.stokenFile,
    envValue: ctx.env.KSCTL_STOKEN,
    flag: '--stoken-file',
    envName: 'KSCTL_STOKEN',
    what: 'STOKEN',
    question: 'STOKEN (from your enrollment portal):',
  });
  const uidauth = await secret(ctx, {
    file: options.uidauthFile,
    envValue: ctx.env.KSCTL_UIDAUTH,
    flag: '--uidauth-file',
    envName: 'KSCTL_UIDAUTH',
    what: 'UIDAUTH',
    question: 'UIDAUTH (from your enrollment portal):',
  });
  return listedTokens([{ stoken, uidauth }]);
}

/**
 * The name of a single enrollment's profile, checked before a token pair is spent: `--name` taken
 * in the file is a conflict (profiles commands would no longer know which one is meant); the host
 * name, the default, is numbered on (`laptop-2`) when taken.
 */
function singleProfileName(
  ctx: CommandContext,
  chosen: string | undefined,
  existing: ProfileSet,
  path: string,
): string {
  const taken = new Set(existing.profiles.map((p) => p.name));
  if (chosen !== undefined) {
    if (!taken.has(chosen)) return chosen;
    const holder = existing.profiles.find((p) => p.name === chosen)!;
    throw new ConflictError(
      `${path} already has a profile named "${chosen}" (device ${holder.deviceId}); nothing was enrolled`,
      {
        hint: `choose another --name, or delete that profile first (ksctl profiles delete ${holder.deviceId})`,
      },
    );
  }
  const host = hostname();
  if (!taken.has(host)) return host;
  let n = 2;
  while (taken.has(`${host}-${n}`)) n++;
  ctx.say(`a profile named "${host}" is already in ${path}: this one is "${host}-${n}"`);
  return `${host}-${n}`;
}

async function enrollOne(
  ctx: CommandContext,
  options: EnrollOptions,
  run: EnrollmentRun,
  existing: ProfileSet,
  keys: Promise<DeviceKeyPair> | undefined,
): Promise<void> {
  const name = singleProfileName(ctx, options.name, existing, run.persistor.path);
  const shared = prepareRun(run);
  let stored: StoredDevice;
  try {
    // A spinner on a terminal; the e-mailed code prompt, if it comes, takes it off the line.
    stored = await ctx.waiting(`enrolling a device into keyspace ${run.endpoints.keyspace}…`, () =>
      enrollAndStore(run, shared, 0, name, keys),
    );
  } catch (error) {
    if (ctx.signal.aborted) throw new InterruptedError('interrupted; no profile was stored');
    throw error;
  }
  const { row } = stored;
  ctx.say(
    `enrolled ${row.deviceId} into keyspace ${row.keyspace}; profile "${row.name}" saved to ${run.persistor.path}${row.active ? ' (active)' : ''}`,
  );
  await ctx.render({
    kind: 'record',
    data: { ...row, persistor: run.persistor.kind, path: run.persistor.path },
    fields: [...profileFields(row), ['Profile file', run.persistor.path]],
  });
  if (options.verify === true) {
    const { checkDevice } = await import('../../device/check.js');
    const checked = await checkDevice(stored.profile, run.http, ctx.signal);
    ctx.say(
      `verified: created key ${checked.keyId} with the new profile and fetched it back (${checked.ms} ms)`,
    );
  }
}

async function enrollMany(
  ctx: CommandContext,
  options: EnrollOptions,
  run: EnrollmentRun,
  existing: ProfileSet,
): Promise<void> {
  const available = run.tokens.size;
  if (options.count !== undefined && available !== undefined && options.count > available) {
    throw new UsageError(
      `--count ${options.count} needs ${options.count} token pairs, and the tokens file has ${available}`,
    );
  }
  const count = options.count ?? available ?? 1;
  const concurrency = options.concurrency ?? Math.min(4, availableParallelism());
  const base = options.name ?? DEFAULT_BULK_NAME;
  // A second run with the same name continues the numbering: names stay unique in the file.
  const first = lastNumberOf(base, existing) + 1;
  // Plain numbers: padding would differ between runs (test-device-09 beside test-device-1).
  const nameOf = (index: number) => `${base}-${first + index}`;
  // The longest name, with its number: only its length can fail after --name was checked.
  checkProfileName(nameOf(count - 1), `the profile name of device ${count}`);
  const shared = prepareRun(run);
  // A wrong profile password or an unreachable key server fails once, not once per device
  // (a portal that sends the key inline is asked for it with each sign-in instead).
  await Promise.all([
    shared.ready,
    run.tokens.mayCarryServerKey ? undefined : shared.serverPublicKey(),
  ]);

  // Ctrl-C: no new device starts, those registering finish and are saved, then the summary.
  ctx.stopsGracefully();
  const started = performance.now();
  const progress = progressBar(ctx.io, count, `Enrolling ${plural(count, 'device')}`, {
    quiet: ctx.quiet,
  });
  // Key generation is the CPU-bound part: as many prime searches at once as the devices in flight
  // can use cores, shared by all devices.
  const keys = deviceKeySource.supply(count, Math.min(concurrency, searchSlots()));
  const verify = options.verify !== false;
  const { checkDevice, storedButFailed } = await import('../../device/check.js');
  const outcomes = await runPool(
    count,
    concurrency,
    async (i) => {
      const stored = await enrollAndStore(run, shared, i, nameOf(i), keys.take());
      if (verify) {
        await checkDevice(stored.profile, run.http).catch((error: unknown) => {
          throw isKsctlError(error) ? storedButFailed(error) : error;
        });
      }
      return stored;
    },
    {
      signal: ctx.signal,
      onSettled: (outcome) => progress.tick(!outcome.ok),
    },
  ).finally(() => keys.stop());
  progress.done();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);

  const enrolled = outcomes.filter((x) => x.ok).map((x) => x.value.row);
  const failed = outcomes.flatMap((x) => (x.ok ? [] : [failure(x, nameOf(x.index))]));
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
    `enrolled ${enrolled.length} of ${plural(count, 'device')} into keyspace ${run.endpoints.keyspace} in ${seconds} s (concurrency ${concurrency}); profiles in ${run.persistor.path}${verify ? `; verified ${enrolled.length}: each created a key and fetched it back` : ''}`,
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
  ctx.exitCode = ctx.signal.aborted ? 130 : bulkExitCode(outcomes);
}

/** The highest N of the profiles named BASE-N in the file (0 when there are none). */
function lastNumberOf(base: string, set: ProfileSet): number {
  let last = 0;
  for (const profile of set.profiles) {
    const name = profile.name;
    if (typeof name !== 'string' || !name.startsWith(`${base}-`)) continue;
    const digits = name.slice(base.length + 1);
    if (/^\d{1,9}$/.test(digits)) last = Math.max(last, Number(digits));
  }
  return last;
}

interface Failure {
  name: string;
  message: string;
  code: string;
  exitCode: number;
  serviceCode?: number;
  hint?: string;
  conversationId?: string;
}

function failure(outcome: TaskOutcome<StoredDevice> & { ok: false }, name: string): Failure {
  const { error } = outcome;
  return {
    name,
    message: error.message,
    code: error.code,
    exitCode: error.exitCode,
    serviceCode: error.serviceCode,
    hint: error.hint,
    conversationId: error.conversationId,
  };
}

/**
 * `ksctl mock record --target CONTEXT`: a recording proxy (the mock's recorder) in front of the
 * service a context names, until Ctrl-C or SIGTERM. It prints how to reach it (a banner, or
 * JSON), writes the `record` context that points through it (with its own dev token, never the
 * target's), writes the ready file last, and on stop writes `--out` whole or not at all.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Auth } from '../../api/client.js';
import { InputError, UsageError } from '../../../common/errors.js';
import { PRIVATE_FILE_MODE, writeFileAtomic } from '../../../common/files/atomic-write.js';
import { ensureDirectory } from '../../../common/files/directories.js';
import { fileReason } from '../../../common/files/fs-errors.js';
import { refuseToReplace } from '../../../common/files/replace-guard.js';
import { plural } from '../../../common/text/words.js';
import {
  type DeviceKeyring,
  type DeviceKeys,
  recordingText,
  startRecorder,
} from '../../usecases/mock.js';
import type { CommandContext } from '../kit/command-context.js';
import { prepareReadyFile } from './mock-serve-actions.js';

export interface RecordOptions {
  target: string;
  host: string;
  port: number;
  out?: string;
  force?: boolean;
  json?: boolean;
  readyFile?: string;
  context: boolean;
  log: boolean;
  /** The profile file of the app's devices, to open their requests with. */
  profiles?: string;
}

/** The context `mock record` writes: the target's, its URLs through the proxy. */
export const RECORD_CONTEXT = 'record';

/** What `ksctl mock record --json` prints and `--ready-file` holds. */
export interface RecorderInfo {
  /** The proxy's root. */
  url: string;
  /** The markings `{base_url}` through the proxy. */
  baseUrl: string;
  /** The origin recorded. */
  target: string;
  /** Reads the proxy's journal; sent as a bearer token, it stands for the target's credentials. */
  token: string;
  /** The context that points through the proxy, when one was written. */
  context?: string;
  /** A one-time link that signs a browser in to the console of the recorder's requests. */
  consoleUrl?: string;
}

function authorization(auth: Auth): string | undefined {
  if (auth.kind === 'bearer') return `Bearer ${auth.token}`;
  if (auth.kind === 'basic') {
    return `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
  }
  return undefined;
}

function isLoopback(url: string | undefined): boolean {
  if (url === undefined) return true;
  try {
    return /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(new URL(url).hostname);
  } catch {
    return false;
  }
}

/**
 * Writes the `record` context (not made current): the target's settings with each URL on the
 * target's origin moved to the proxy, and the dev token. A `record` context of the user's own
 * (one that names a service beyond this machine) is left alone.
 */
async function writeContext(
  ctx: CommandContext,
  targetContext: string,
  target: string,
  info: RecorderInfo,
): Promise<string | undefined> {
  const store = await ctx.config();
  const mine = store.find(RECORD_CONTEXT);
  if (mine !== undefined && !isLoopback(mine.baseUrl)) {
    ctx.warn(
      `the context "${RECORD_CONTEXT}" names ${new URL(mine.baseUrl!).origin} and is left as it is; point your app at ${info.baseUrl}`,
    );
    return undefined;
  }
  const through = (url: string | undefined) => {
    if (url === undefined) return undefined;
    const parsed = new URL(url);
    return parsed.origin === target ? `${info.url}${parsed.pathname}${parsed.search}` : url;
  };
  const source = store.find(targetContext) ?? {};
  await store.set(RECORD_CONTEXT, {
    ...source,
    baseUrl: info.baseUrl,
    token: info.token,
    apiUrl: through(source.apiUrl),
    enrollmentUrl: through(source.enrollmentUrl),
    knsUrl: through(source.knsUrl),
  });
  return RECORD_CONTEXT;
}

/** The console's lines of the banner, as `mock serve` prints them (the link is long). */
function consoleLines(info: RecorderInfo): string {
  if (info.consoleUrl === undefined) return '';
  const another =
    info.context === undefined
      ? 'ksctl mock console'
      : `ksctl --context ${info.context} mock console`;
  return `  Console:         the requests, live; the link signs one browser in\n    ${info.consoleUrl}\n                   another link: ${another}\n`;
}

function banner(info: RecorderInfo, out: string | undefined): string {
  const use =
    info.context === undefined
      ? `Point your app at ${info.baseUrl} (its token, or the recorder's).`
      : `The context "${info.context}" points here, so in another terminal:\n\n  ksctl --context ${info.context} markings list\n  ksctl --context ${info.context} mock requests --follow`;
  return `ksctl mock record is recording. Press Ctrl-C to stop it${out === undefined ? '' : ` and write ${out}`}.

  URL:             ${info.url}
  Markings API:    ${info.baseUrl}
  Recording:       ${info.target}
  Token:           ${info.token}
                   (stands for the target's credentials; reads the journal)
${consoleLines(info)}
${use}
`;
}

/**
 * The keys of the devices in the profile file (its kind by its name, its password asked for
 * now, as every profile command asks), read again when a request names a device it lacked.
 */
async function profileKeyring(ctx: CommandContext, file: string): Promise<DeviceKeyring> {
  const [{ resolvePersistor }, { loadProfiles }, { persistorFlags }] = await Promise.all([
    import('../../config/persistor.js'),
    import('../../profiles/store.js'),
    import('../kit/persistor-flags.js'),
  ]);
  const spec = await resolvePersistor(ctx, persistorFlags({ persistorPath: file }));
  const keys = new Map<string, DeviceKeys>();
  const read = async () => {
    for (const profile of (await loadProfiles(spec)).profiles) {
      keys.set(profile.deviceId, { cdIdc: profile.aesCdIdcKey, cdEi: profile.aesCdEiKey });
    }
  };
  await read();
  return {
    keysOf: (deviceId) => keys.get(deviceId),
    dataKey: () => undefined,
    unknown: (deviceId) => `device ${deviceId} is not in the profile file ${file}`,
    refresh: async () => {
      try {
        await read();
      } catch {
        // The file as it was read last still opens the devices it held.
      }
    },
  };
}

export async function record(ctx: CommandContext, options: RecordOptions): Promise<void> {
  const store = await ctx.config();
  if (store.find(options.target) === undefined) {
    throw new UsageError(`--target: there is no context "${options.target}"`, {
      hint: 'ksctl context list shows the contexts; ksctl context add makes one',
    });
  }
  ctx.globals.context = options.target;
  const connection = await ctx.connection();
  const base = new URL(connection.baseUrl);
  const target = base.origin;
  const tenant = /^\/v2\/([^/]+)/.exec(base.pathname)?.[1] ?? '';
  const out = options.out;
  if (out !== undefined) {
    await refuseToReplace(out, options.force);
    await ensureDirectory(dirname(resolve(out)), 0o755);
  }
  if (options.readyFile) await prepareReadyFile(options.readyFile);
  const keyring =
    options.profiles === undefined ? undefined : await profileKeyring(ctx, options.profiles);

  // The spool holds redacted exchanges only; it is private to the user all the same.
  const spoolDir = out === undefined ? undefined : await mkdtemp(join(tmpdir(), 'ksctl-record-'));
  const spool =
    spoolDir === undefined
      ? undefined
      : await open(join(spoolDir, 'exchanges.jsonl'), 'w+', PRIVATE_FILE_MODE);
  try {
    ctx.stopsGracefully();
    const devToken = `ksrec.${randomBytes(18).toString('base64url')}`;
    const targetAuthorization = authorization(connection.auth);
    const recorder = await startRecorder({
      host: options.host,
      port: options.port,
      target,
      tenant,
      devToken,
      targetAuthorization,
      secrets: connection.auth.kind === 'bearer' ? [connection.auth.token] : [],
      spool,
      keyring,
      onExchange: options.log
        ? (entry) => ctx.say(`${entry.method} ${entry.path} ${entry.status} ${entry.durationMs} ms`)
        : undefined,
    });
    let info: RecorderInfo = {
      url: recorder.url,
      baseUrl: `${recorder.url}${base.pathname.replace(/\/$/, '')}`,
      target,
      token: devToken,
    };
    const consoleUrl = recorder.consoleUrl();
    if (consoleUrl !== undefined) info.consoleUrl = consoleUrl;
    try {
      if (options.context) {
        const context = await writeContext(ctx, options.target, target, info);
        if (context !== undefined) info = { ...info, context };
      }
      if (options.json) ctx.io.stdout.write(`${JSON.stringify(info)}\n`);
      else ctx.say(banner(info, out));
      if (options.readyFile) {
        await writeFileAtomic(options.readyFile, `${JSON.stringify(info, null, 2)}\n`);
      }
      await new Promise<void>((done) => {
        if (ctx.signal.aborted) done();
        else ctx.signal.addEventListener('abort', () => done(), { once: true });
      });
      ctx.say('stopping: finishing exchanges in flight…');
    } finally {
      await recorder.close();
    }
    if (recorder.spoolFailure !== undefined && spoolDir !== undefined) {
      throw new InputError(
        `cannot keep the recording in ${spoolDir}: ${fileReason(recorder.spoolFailure)}; ${out} was not written`,
        {
          hint: 'free some space there, or set TMPDIR to a directory with room',
          cause: recorder.spoolFailure,
        },
      );
    }
    if (out !== undefined && spool !== undefined) {
      const text = await recordingText(
        {
          format: 'ksctl-recording',
          version: 1,
          target,
          startedAt: recorder.startedAt,
          endedAt: new Date().toISOString(),
        },
        spool,
      );
      await writeFileAtomic(out, text, PRIVATE_FILE_MODE);
      ctx.say(`recorded ${plural(recorder.recorded, 'exchange')} to ${out}`);
    } else {
      ctx.say('stopped');
    }
  } finally {
    await spool?.close();
    if (spoolDir !== undefined) await rm(spoolDir, { recursive: true, force: true });
  }
}

/**
 * The actions of `ksctl profiles list|show|use|delete|convert|check`, with their option types:
 * the profile file chosen by the persistor options, secrets shown only with --show-secrets.
 */
import { existsSync } from 'node:fs';
import { NotFoundError, UsageError } from '../../../common/errors.js';
import { resolveWriteTarget } from '../../../common/files/atomic-write.js';
import { createdCell, profileFields } from '../../output/profiles.js';
import { byName } from '../../output/render.js';
import { plural } from '../../../common/text/words.js';
import {
  convertProfiles,
  deleteProfile,
  listProfiles,
  type PersistorKind,
  profileLabel,
  type ProfileRow,
  showProfile,
  useProfile,
} from '../../profiles/index.js';
import type { ApiVersion } from '../../../common/device/api-version.js';
import type { CommandContext } from '../kit/command-context.js';
import { loadDeviceProfile, withDeviceHttp } from '../kit/device-profile.js';
import { type PersistorOptionValues, persistorFlags } from '../kit/persistor-flags.js';
import { resolvePersistor } from '../../config/persistor.js';

export interface ShowOptions extends PersistorOptionValues {
  showSecrets?: boolean;
}

export interface DeleteOptions extends PersistorOptionValues {
  yes?: boolean;
}

export interface ConvertOptions extends PersistorOptionValues {
  toPersistor: PersistorKind;
  toPath: string;
  toPasswordFile?: string;
  toPersistorVersion?: '1.0' | '1.1';
  toAesgcmKeyFile?: string;
  toAesgcmAdata?: string;
  force?: boolean;
}

export async function list(ctx: CommandContext, options: PersistorOptionValues): Promise<void> {
  const flags = persistorFlags(options);
  const spec = await resolvePersistor(ctx, flags);
  // No file at the default place means no profiles yet; no file where the user pointed is a typo.
  const named = flags.path ?? (ctx.env.KSCTL_PERSISTOR_PATH || undefined);
  if (named !== undefined && !existsSync(spec.path)) {
    throw new NotFoundError(`there is no profile file at ${spec.path}`, {
      hint: `check ${flags.path !== undefined ? '--persistor-path' : 'KSCTL_PERSISTOR_PATH'}; ksctl enroll creates the file`,
    });
  }
  const rows = (await listProfiles(spec)).sort((a, b) =>
    byName({ name: a.name ?? a.deviceId }, { name: b.name ?? b.deviceId }),
  );
  await ctx.render({
    kind: 'table',
    data: rows,
    rows,
    empty: existsSync(spec.path) ? `${spec.path} holds no profiles` : `no profiles in ${spec.path}`,
    columns: [
      { header: 'ACTIVE', value: (r: ProfileRow) => (r.active ? '*' : '') },
      { header: 'NAME', value: (r) => r.name ?? r.deviceId, id: true },
      { header: 'DEVICE ID', value: (r) => r.deviceId, id: true },
      { header: 'KEYSPACE', value: (r) => r.keyspace },
      { header: 'SERVER', value: (r) => r.server, wide: true },
      { header: 'CREATED', value: createdCell },
    ],
  });
}

export async function show(ctx: CommandContext, ref: string, options: ShowOptions): Promise<void> {
  const spec = await resolvePersistor(ctx, persistorFlags(options));
  const details = await showProfile(spec, ref, { showSecrets: options.showSecrets === true });
  await ctx.render({
    kind: 'record',
    data: details,
    fields: [
      ...profileFields(details),
      ['SEP.CD:IDC key (aesCdIdcKey)', details.aesCdIdcKey],
      ['SEP.CD:KS key (aesCdEiKey)', details.aesCdEiKey],
    ],
  });
}

export async function use(
  ctx: CommandContext,
  ref: string,
  options: PersistorOptionValues,
): Promise<void> {
  const spec = await resolvePersistor(ctx, persistorFlags(options));
  const row = await useProfile(spec, ref);
  ctx.say(`profile ${profileLabel(row)} is now the active one in ${spec.path}`);
  await ctx.outcome({
    name: row.name ?? null,
    deviceId: row.deviceId,
    active: true,
    path: spec.path,
  });
}

export async function remove(
  ctx: CommandContext,
  ref: string,
  options: DeleteOptions,
): Promise<void> {
  const spec = await resolvePersistor(ctx, persistorFlags(options));
  // Resolve first, so the question names the profile and a missing one fails without asking.
  const target = await showProfile(spec, ref);
  await ctx.confirm(
    `Delete profile ${profileLabel(target)} from ${spec.path}? Its keys are lost`,
    options.yes,
  );
  const { deleted, activeDeviceId } = await deleteProfile(spec, target.deviceId);
  ctx.say(
    `deleted profile ${profileLabel(deleted)}${deleted.active && activeDeviceId === '' ? '; no profile is active now: pick one with `ksctl profiles use`' : ''}`,
  );
  await ctx.outcome({
    deleted: { name: deleted.name ?? null, deviceId: deleted.deviceId },
    path: spec.path,
    activeDeviceId,
  });
}

export async function convert(ctx: CommandContext, options: ConvertOptions): Promise<void> {
  const from = await resolvePersistor(ctx, persistorFlags(options));
  // Real paths: a link to the source (or a path through a linked directory) is the source too.
  if ((await resolveWriteTarget(from.path)) === (await resolveWriteTarget(options.toPath))) {
    throw new UsageError('--to-path is the file being converted', {
      hint: 'write to another path, then move it into place',
    });
  }
  const to = await resolvePersistor(
    ctx,
    {
      persistor: options.toPersistor,
      path: options.toPath,
      passwordFile: options.toPasswordFile,
      version: options.toPersistorVersion,
      aesgcmKeyFile: options.toAesgcmKeyFile,
      aesgcmAdata: options.toAesgcmAdata,
    },
    { flagPrefix: '--to', useDefaults: false, creates: true },
  );
  const result = await convertProfiles(from, to, { force: options.force });
  ctx.say(
    `wrote ${plural(result.count, 'profile')} from ${from.path} (${from.kind}) to ${result.target} (${to.kind})`,
  );
  await ctx.outcome({
    profiles: result.count,
    from: { path: from.path, persistor: from.kind },
    to: { path: result.target, persistor: to.kind },
  });
}

export interface CheckOptions extends PersistorOptionValues {
  /** The dialect of the requests (default 2.4). */
  apiVersion?: ApiVersion;
}

/** Creates one key with the profile and fetches it back: the profile works, or says why not. */
export async function check(
  ctx: CommandContext,
  ref: string | undefined,
  options: CheckOptions,
): Promise<void> {
  const profile = await loadDeviceProfile(ctx, options, ref);
  const { checkDevice } = await import('../../device/check.js');
  const result = await withDeviceHttp(ctx, (http) =>
    checkDevice(profile, http, ctx.signal, options.apiVersion),
  );
  // The vendor SDKs' persistors write profiles without a name: those go by their device id.
  const label = profile.name === undefined ? profile.deviceId : `"${profile.name}"`;
  ctx.say(
    `profile ${label} works: ${result.server} knows device ${result.deviceId}, created key ${result.keyId} with v${result.apiVersion} and gave it back (${result.ms} ms)`,
  );
  await ctx.render({
    kind: 'record',
    data: { name: profile.name ?? null, ...result, ok: true },
    fields: [
      ['Name', profile.name ?? '(none)'],
      ['Device ID', result.deviceId],
      ['Server', result.server],
      ['API version', result.apiVersion],
      ['Key created and fetched', result.keyId],
      ['Round trip (ms)', result.ms],
    ],
  });
}

/**
 * What the commands that act as an enrolled device share: the profile to act with (`--profile`
 * or the active one, from the persistor options) and an HTTP client for the profile's server.
 */
import { ApiClient } from '../../api/client.js';
import { resolveContext } from '../../config/settings.js';
import { resolveTimeoutMs } from '../../config/timeout.js';
import { trustedCas } from '../../config/trust.js';
import { VERSION } from '../../../common/package-root.js';
import { loadProfiles } from '../../profiles/index.js';
import { profileOrActive } from '../../profiles/profile-lookup.js';
import type { Profile } from '../../profiles/types.js';
import type { CommandContext } from './command-context.js';
import { type PersistorOptionValues, persistorFlags } from './persistor-flags.js';
import { resolvePersistor } from '../../config/persistor.js';

export interface DeviceOptions extends PersistorOptionValues {
  /** Device id or name; the active profile when absent. */
  profile?: string;
}

export async function loadDeviceProfile(
  ctx: CommandContext,
  options: DeviceOptions,
  ref = options.profile,
): Promise<Profile> {
  const spec = await resolvePersistor(ctx, persistorFlags(options));
  return profileOrActive(await loadProfiles(spec), ref, spec.path);
}

/**
 * Runs `work` with a client for device requests: no Authorization header (the envelope is the
 * proof), the configured timeout, the usual retries (POST only on 429/503); closed afterwards.
 */
export async function withDeviceHttp<T>(
  ctx: CommandContext,
  work: (http: ApiClient) => Promise<T>,
): Promise<T> {
  const { name, context } = resolveContext(ctx.globals, ctx.env, await ctx.config());
  const http = new ApiClient({
    auth: { kind: 'none' },
    timeoutMs: resolveTimeoutMs(ctx.globals, ctx.env, name, context),
    ca: await trustedCas(ctx.globals, ctx.env, name, context),
    userAgent: `ksctl/${VERSION}`,
    shortLived: true,
    trace: ctx.traceLine(),
    activity: await ctx.requestActivity(),
  });
  try {
    return await work(http);
  } finally {
    await http.close();
  }
}

/** Finding one profile by device id or by name, as every `profiles` command accepts both. */
import { existsSync } from 'node:fs';
import { quoted } from '../../common/text/words.js';
import { NotFoundError, UsageError } from '../../common/errors.js';
import type { Profile, ProfileSet } from './types.js';

/**
 * Nothing to find in `path`: the file is not there, or holds no profiles (zero bytes, or an empty
 * list). Either says so, rather than that the one profile asked for is missing.
 */
function noProfiles(path: string): NotFoundError {
  const hint = {
    cli: 'enroll a device first (ksctl enroll), or point --persistor-path at the profile file',
    code: 'enroll a device first (enroll() with profileFile), or open the file at its real path',
  };
  return existsSync(path)
    ? new NotFoundError(`${path} holds no profiles`, { hint })
    : new NotFoundError(`there is no profile file at ${path}`, { hint });
}

/** A device id wins over a name; a name shared by several profiles must be disambiguated. */
export function findProfile(set: ProfileSet, deviceIdOrName: string, source: string): Profile {
  if (set.profiles.length === 0) throw noProfiles(source);
  const byId = set.profiles.find((profile) => profile.deviceId === deviceIdOrName);
  if (byId !== undefined) {
    return byId;
  }
  const byName = set.profiles.filter((profile) => profile.name === deviceIdOrName);
  const [only, ...others] = byName;
  if (only === undefined) {
    throw new NotFoundError(
      `no profile with device id or name ${quoted(deviceIdOrName)} in ${source}`,
      {
        hint: 'list the profiles to see their names and device ids',
      },
    );
  }
  if (others.length > 0) {
    const ids = byName.map((profile) => profile.deviceId).join(', ');
    throw new UsageError(
      `${byName.length} profiles in ${source} are named ${quoted(deviceIdOrName)}: ${ids}`,
      { hint: 'name the profile by its device id instead' },
    );
  }
  return only;
}

/** The named profile, or the active one when no name is given (as SDK applications pick it). */
export function profileOrActive(
  set: ProfileSet,
  deviceIdOrName: string | undefined,
  source: string,
): Profile {
  if (deviceIdOrName !== undefined) return findProfile(set, deviceIdOrName, source);
  const active = set.profiles.find((profile) => profile.deviceId === set.activeDeviceId);
  if (set.profiles.length === 0) throw noProfiles(source);
  if (active === undefined) {
    throw new NotFoundError(`no profile is active in ${source}`, {
      hint: {
        cli: 'name one with --profile, or make one active with ksctl profiles use',
        code: 'name one with get(), or make one active with use()',
      },
    });
  }
  return active;
}

/** Finding one profile by device id or by name, as every `profiles` command accepts both. */
import { NotFoundError, UsageError } from '../errors.js';
import type { Profile, ProfileSet } from './types.js';

/** A device id wins over a name; a name shared by several profiles must be disambiguated. */
export function findProfile(set: ProfileSet, deviceIdOrName: string, source: string): Profile {
  const byId = set.profiles.find((profile) => profile.deviceId === deviceIdOrName);
  if (byId !== undefined) {
    return byId;
  }
  const byName = set.profiles.filter((profile) => profile.name === deviceIdOrName);
  const [only, ...others] = byName;
  if (only === undefined) {
    throw new NotFoundError(`No profile with device id or name "${deviceIdOrName}" in ${source}`, {
      hint: 'List the profiles to see their names and device ids.',
    });
  }
  if (others.length > 0) {
    const ids = byName.map((profile) => profile.deviceId).join(', ');
    throw new UsageError(
      `${byName.length} profiles in ${source} are named "${deviceIdOrName}": ${ids}`,
      { hint: 'Name the profile by its device id instead.' },
    );
  }
  return only;
}

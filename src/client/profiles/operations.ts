/**
 * What the `profiles list|show|use|delete` commands and enrollment do to a profile file. Each
 * returns data for the renderer and prints nothing.
 */
import { ConflictError } from '../../common/errors.js';
import { problemsError, profileProblems } from './profile-json.js';
import { findProfile } from './profile-lookup.js';
import { profileNameProblem } from './profile-name.js';
import { type HeldProfiles, loadProfiles, updateProfiles } from './store.js';
import type { PersistorSpec, Profile, ProfileSet } from './types.js';
import { keyspaceOf } from './types.js';

/** Stands in for key material unless secrets were asked for (same marker as the HTTP trace). */
export const REDACTED = '[redacted]';

export interface ProfileRow {
  /** null for a profile written without one (the vendor's sample persistors do that). */
  name: string | null;
  deviceId: string;
  server: string;
  keyspace: string;
  /** ISO 8601, UTC; null when the file has no creationTimestamp. */
  created: string | null;
  active: boolean;
}

/** How messages name a profile: `"laptop" (ABcd.1.…)`, or the device id when it has no name. */
export function profileLabel(row: Pick<ProfileRow, 'name' | 'deviceId'>): string {
  return row.name === null ? row.deviceId : `"${row.name}" (${row.deviceId})`;
}

export interface ProfileDetails extends ProfileRow {
  creationTimestamp: number | null;
  /** Lower-case hex, or `REDACTED`. */
  aesCdIdcKey: string;
  aesCdEiKey: string;
}

export interface DeleteResult {
  deleted: ProfileRow;
  /** The active device id after the deletion ('' when the active profile was deleted). */
  activeDeviceId: string;
}

export async function listProfiles(spec: PersistorSpec): Promise<ProfileRow[]> {
  const set = await loadProfiles(spec);
  return set.profiles.map((profile) => toRow(profile, set.activeDeviceId));
}

export async function showProfile(
  spec: PersistorSpec,
  deviceIdOrName: string,
  options: { showSecrets?: boolean } = {},
): Promise<ProfileDetails> {
  const set = await loadProfiles(spec);
  const profile = findProfile(set, deviceIdOrName, spec.path);
  const key = (bytes: Buffer) => (options.showSecrets === true ? bytes.toString('hex') : REDACTED);
  return {
    ...toRow(profile, set.activeDeviceId),
    creationTimestamp: profile.creationTimestamp ?? null,
    aesCdIdcKey: key(profile.aesCdIdcKey),
    aesCdEiKey: key(profile.aesCdEiKey),
  };
}

/** Makes the profile the one SDK applications use by default. */
export async function useProfile(spec: PersistorSpec, deviceIdOrName: string): Promise<ProfileRow> {
  let chosen: Profile | undefined;
  await updateProfiles(spec, (set) => {
    chosen = findProfile(set, deviceIdOrName, spec.path);
    return { ...set, activeDeviceId: chosen.deviceId };
  });
  return toRow(chosen!, chosen!.deviceId);
}

/**
 * Deleting the active profile leaves none active, as the `ionic-profiles` tool does: picking
 * another silently would send an application's keys to a keyspace nobody chose.
 */
export async function deleteProfile(
  spec: PersistorSpec,
  deviceIdOrName: string,
): Promise<DeleteResult> {
  let deleted: ProfileRow | undefined;
  const after = await updateProfiles(spec, (set) => {
    const profile = findProfile(set, deviceIdOrName, spec.path);
    deleted = toRow(profile, set.activeDeviceId);
    return {
      ...set,
      activeDeviceId: deleted.active ? '' : set.activeDeviceId,
      profiles: set.profiles.filter((other) => other !== profile),
    };
  });
  return { deleted: deleted!, activeDeviceId: after.activeDeviceId };
}

/**
 * Stores a newly enrolled profile. It becomes active when `setActive` is true, and also when
 * no profile is active yet, because SDK applications cannot start without one.
 */
export function addProfile(
  spec: PersistorSpec,
  profile: Profile,
  options: { setActive?: boolean } = {},
): Promise<ProfileRow> {
  return storeProfile(
    { path: spec.path, update: (mutate) => updateProfiles(spec, mutate) },
    profile,
    options,
  );
}

/** addProfile into a profile file a task holds (an enrollment run), or any file and its writer. */
export async function storeProfile(
  file: Pick<HeldProfiles, 'path' | 'update'>,
  profile: Profile,
  options: { setActive?: boolean } = {},
): Promise<ProfileRow> {
  const problems = profileProblems(profile);
  const nameProblem = typeof profile.name === 'string' && profileNameProblem(profile.name);
  if (nameProblem) problems.push({ path: 'profile.name', message: nameProblem });
  if (problems.length > 0) {
    throw problemsError('cannot store the profile', problems);
  }
  const after = await file.update((set) => {
    if (set.profiles.some((other) => other.deviceId === profile.deviceId)) {
      throw new ConflictError(`${file.path} already has a profile for ${profile.deviceId}`, {
        hint: 'Delete the old profile first if it should be replaced.',
      });
    }
    const becomesActive = options.setActive === true || !hasActiveProfile(set);
    return {
      ...set,
      activeDeviceId: becomesActive ? profile.deviceId : set.activeDeviceId,
      profiles: [...set.profiles, { ...profile }],
    };
  });
  return toRow(profile, after.activeDeviceId);
}

function hasActiveProfile(set: ProfileSet): boolean {
  return set.profiles.some((profile) => profile.deviceId === set.activeDeviceId);
}

function toRow(profile: Profile, activeDeviceId: string): ProfileRow {
  return {
    name: profile.name ?? null,
    deviceId: profile.deviceId,
    server: profile.server,
    keyspace: keyspaceOf(profile.deviceId),
    created:
      profile.creationTimestamp === undefined
        ? null
        : new Date(profile.creationTimestamp * 1000).toISOString(),
    active: profile.deviceId === activeDeviceId,
  };
}

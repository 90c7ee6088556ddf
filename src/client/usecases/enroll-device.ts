/**
 * Enrolling one device, as `ksctl enroll` and the library's `enroll()` both do it: in a run
 * (enrollment-run.ts) whose profile file is held, the profile's name chosen, the registration,
 * and the stored profile.
 */
import { hostname } from 'node:os';
import {
  type EnrolledDevice,
  enrollAndStore,
  enrollDevice,
  prepareRun,
} from '../enroll/registration.js';
import type { DeviceKeyPair } from '../enroll/protocol.js';
import { ConflictError } from '../../common/errors.js';
import type { ProfileRow } from '../profiles/operations.js';
import type { ProfileSet } from '../profiles/types.js';
import { type EnrollRun, withEnrollmentRun } from './enrollment-run.js';

export interface OneDevice {
  /** The profile's name; the host name when absent. */
  name?: string;
  /**
   * Names stay unique in the file (the CLI): a given name the file has already is a conflict,
   * and the host name is numbered on (`laptop-2`). Otherwise the name is taken as it is.
   */
  uniqueName?: boolean;
  /** The device key pair, already being generated. */
  deviceKeys?: Promise<DeviceKeyPair>;
  /** Told, once it is enrolled, when the host name was taken and the profile got a numbered one. */
  onRenamed?: (message: string) => void;
}

export interface EnrolledOne extends EnrolledDevice {
  /** The stored profile's row, when the run has a profile file. */
  row?: ProfileRow;
}

/** Enrolls one device and, when the run has a profile file, stores its profile. */
export function enrollOne(options: EnrollRun, device: OneDevice): Promise<EnrolledOne> {
  return withEnrollmentRun(options, async ({ run, stored, existing }) => {
    const path = options.persistor?.path ?? '';
    const { name, renamed } =
      device.uniqueName === true
        ? uniqueName(device.name, existing, path)
        : { name: device.name ?? hostname() };
    const enrolled =
      stored === undefined
        ? await enrollDevice(run, prepareRun(run), 0, name, device.deviceKeys)
        : await enrollAndStore(stored, prepareRun(stored), 0, name, device.deviceKeys);
    // Only once the profile exists: a failed enrollment has no name to talk about.
    if (renamed !== undefined) device.onRenamed?.(renamed);
    return enrolled;
  });
}

/**
 * The name of a single enrollment's profile, checked before a token pair is spent: a chosen name
 * taken in the file is a conflict (profiles commands would no longer know which one is meant); the
 * host name, the default, is numbered on (`laptop-2`) when taken.
 */
function uniqueName(
  chosen: string | undefined,
  existing: ProfileSet,
  path: string,
): { name: string; renamed?: string } {
  const taken = new Set(existing.profiles.map((p) => p.name));
  if (chosen !== undefined) {
    if (!taken.has(chosen)) return { name: chosen };
    const holder = existing.profiles.find((p) => p.name === chosen)!;
    throw new ConflictError(
      `${path} already has a profile named "${chosen}" (device ${holder.deviceId}); nothing was enrolled`,
      {
        hint: `choose another --name, or delete that profile first (ksctl profiles delete ${holder.deviceId})`,
      },
    );
  }
  const host = hostname();
  if (!taken.has(host)) return { name: host };
  let n = 2;
  while (taken.has(`${host}-${n}`)) n++;
  const renamed = `a profile named "${host}" is already in ${path}: this one is "${host}-${n}"`;
  return { name: `${host}-${n}`, renamed };
}

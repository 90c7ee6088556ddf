/**
 * Enrolling one device, as `ksctl enroll` and the library's `enroll()` both do it: clients for
 * the enrollment endpoints, the endpoints (looked up when a URL is missing), the token source,
 * then, with the profile file locked and read, the registration and the stored profile. What
 * differs between the faces comes in as options: the CLI's settings and callbacks, the library's
 * option values. Many devices at once are enroll-many.ts, over the same run.
 */
import { hostname } from 'node:os';
import { ApiClient, type ClientOptions } from '../api/client.js';
import type { EndpointSettings } from '../config/endpoints.js';
import type { TokenChoice } from '../config/enrollment.js';
import { fromEnvironment } from '../config/settings.js';
import {
  type EnrolledDevice,
  enrollAndStore,
  enrollDevice,
  type EnrollmentRun,
  prepareRun,
  type RegistrationRun,
} from '../enroll/registration.js';
import { EnrollmentEndpoints } from '../enroll/endpoints.js';
import type { DeviceKeyPair } from '../enroll/protocol.js';
import {
  listedTokens,
  mockTokens,
  parseTokensFile,
  portalTokens,
  type TokenSource,
} from '../enroll/token-sources.js';
import { ConflictError } from '../../common/errors.js';
import { withProfilesHeld } from '../profiles/index.js';
import type { ProfileRow } from '../profiles/operations.js';
import { emptyProfileSet, type PersistorSpec, type ProfileSet } from '../profiles/types.js';

/** How long an enrollment waits for another process to finish with the profile file. */
const PROFILE_FILE_WAIT_MS = 120_000;

export interface EnrollRun {
  /** Checked already (config/keyspace.ts). */
  keyspace: string;
  endpoints: EndpointSettings;
  tokens: TokenChoice;
  /** For the lookups, the key server key, the portal and the registration (never retried). */
  client: Omit<ClientOptions, 'auth' | 'baseUrl'>;
  /** Where the profiles go; without one the profile is only returned. */
  persistor?: PersistorSpec;
  /** Make each stored profile the active one. */
  setActive: boolean;
  signal?: AbortSignal;
  /** Told once when another process holds the profile file, and the run waits for it. */
  onWait?: (holder: string) => void;
}

/** A run set up, and the profile file's profiles before it (none without a file). */
export interface HeldRun {
  run: RegistrationRun;
  stored?: EnrollmentRun;
  existing: ProfileSet;
}

/**
 * Sets a run up and runs `work` in it, the profile file locked and read first (once: the run's
 * profiles are stored from the set read) and held until the last profile is saved: a device is
 * never registered whose profile cannot be stored.
 */
export async function withEnrollmentRun<T>(
  options: EnrollRun,
  work: (held: HeldRun) => Promise<T>,
): Promise<T> {
  const http = new ApiClient({ ...options.client, auth: { kind: 'none' } });
  let tokens: TokenSource | undefined;
  try {
    const endpoints = new EnrollmentEndpoints(
      http,
      options.keyspace,
      options.endpoints,
      options.signal,
    );
    tokens = await tokenSource(options, http, endpoints);
    const run: RegistrationRun = { endpoints, http, tokens, signal: options.signal };
    const persistor = options.persistor;
    if (persistor === undefined) return await work({ run, existing: emptyProfileSet() });
    return await withProfilesHeld(
      persistor,
      (profiles) =>
        work({
          run,
          stored: { ...run, profiles, setActive: options.setActive },
          existing: profiles.set,
        }),
      { timeoutMs: PROFILE_FILE_WAIT_MS, onWait: options.onWait },
    );
  } finally {
    await Promise.all([http.close(), tokens?.close?.()]);
  }
}

async function tokenSource(
  { tokens: choice, client }: EnrollRun,
  http: ApiClient,
  endpoints: EnrollmentEndpoints,
): Promise<TokenSource> {
  switch (choice.kind) {
    case 'pairs':
      return listedTokens(choice.pairs);
    case 'file':
      return listedTokens(parseTokensFile(choice.text, choice.source));
    case 'password':
      return portalTokens(http, endpoints, choice);
    case 'email':
      return portalTokens(http, endpoints, { kind: 'email', email: choice.email }, () =>
        choice.registrationCode(),
      );
    case 'mock': {
      const { connection } = choice;
      return mockTokens(
        endpoints,
        {
          ...client,
          markingsBase: false,
          auth: connection.auth,
          credentialsFrom: fromEnvironment(connection.sources.auth)
            ? connection.sources.auth
            : undefined,
          timeoutMs: connection.timeoutMs,
          activity: choice.activity,
        },
        choice.user,
      );
    }
  }
}

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

/**
 * An enrollment run set up, as `ksctl enroll` (one device or many) and the library's `enroll()`
 * all start one: a client for the enrollment endpoints, the endpoints (looked up when a URL is
 * missing), the token source, and the profile file locked and read once, held until the run's
 * last profile is stored. What differs between the faces comes in as options: the CLI's settings
 * and callbacks, the library's option values. One device is enroll-device.ts, many
 * enroll-many.ts, each over this run.
 */
import { ApiClient, type ClientOptions } from '../api/client.js';
import type { EndpointSettings } from '../config/endpoints.js';
import type { TokenChoice } from '../config/enrollment.js';
import { fromEnvironment } from '../config/settings.js';
import type { EnrollmentRun, RegistrationRun } from '../enroll/registration.js';
import { EnrollmentEndpoints } from '../enroll/endpoints.js';
import {
  listedTokens,
  mockTokens,
  parseTokensFile,
  portalTokens,
  type TokenSource,
} from '../enroll/token-sources.js';
import { withProfilesHeld } from '../profiles/index.js';
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

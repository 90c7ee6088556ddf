/**
 * `enroll()`: one device enrolled from code, as `ksctl enroll` does it (key naming lookup when a
 * URL is missing, key server key, device key pair, token pair, registration), returning its
 * profile and, given a `ProfileFile`, storing it there first.
 */
import { hostname } from 'node:os';
import { ApiClient } from '../api/client.js';
import type { TokenPair } from '../enroll/wire.js';
import {
  enrollAndStore,
  enrollDevice,
  prepareRun,
  type RegistrationRun,
} from '../enroll/enroll.js';
import { EnrollmentEndpoints, endpointSettings } from '../enroll/endpoints.js';
import { assertKeyspace } from '../enroll/keyspace.js';
import { listedTokens, portalTokens, type TokenSource } from '../enroll/token-sources.js';
import { UsageError } from '../errors.js';
import { profileNameProblem, withProfilesHeld } from '../profiles/index.js';
import type { Profile } from '../profiles/types.js';
import { codeFace } from './code-words.js';
import { checkTiming, clientOptions } from './connection.js';
import type { ProfileFile } from './profile-file.js';

export type { TokenPair };

/** How long enroll() waits for another process to finish with the profile file. */
const PROFILE_FILE_WAIT_MS = 120_000;

export type PortalSignIn =
  | { username: string; password: string }
  | {
      email: string;
      /** The code the portal e-mails, asked for once it has sent it. */
      registrationCode: () => string | Promise<string>;
    };

export interface EnrollOptions {
  /** The keyspace to enroll into (4 letters or digits; a mock's `keyspace`). */
  keyspace: string;
  /** Where the register endpoint is (a mock's `apiUrl`); looked up when absent. */
  apiUrl?: string;
  /** Where the key server key and the portal are (a mock's `enrollmentUrl`); looked up when absent. */
  enrollmentUrl?: string;
  /** The key naming lookup; default the API URL. */
  knsUrl?: string;
  /** A token pair from the enrollment portal (or a mock's `mintTokens()`): single use. */
  tokens?: TokenPair;
  /** Or sign in at the portal for a fresh pair. */
  portal?: PortalSignIn;
  /** The profile's name (default the host name). */
  name?: string;
  /** Store the profile here (locked for the whole enrollment, so it never registers a device it cannot store). */
  profileFile?: ProfileFile;
  /** Make the stored profile the active one (it is anyway when none is). */
  setActive?: boolean;
  /** Time each request may take, in milliseconds (default 30,000). */
  timeout?: number;
  /** Extra attempts of the lookups and the portal (default 3); the registration is never retried. */
  retries?: number;
  userAgent?: string;
  trace?: (line: string) => void;
  /** Stops the enrollment before the registration is sent (afterwards it completes). */
  signal?: AbortSignal;
}

function tokenSource(
  o: EnrollOptions,
  http: ApiClient,
  endpoints: EnrollmentEndpoints,
): TokenSource {
  if (o.tokens !== undefined && o.portal !== undefined) {
    throw new UsageError('enroll() takes tokens or portal, not both');
  }
  if (o.tokens !== undefined) {
    const { stoken, uidauth } = o.tokens;
    if (typeof stoken !== 'string' || typeof uidauth !== 'string' || !stoken || !uidauth) {
      throw new UsageError('tokens needs a stoken and a uidauth');
    }
    return listedTokens([{ stoken, uidauth }]);
  }
  const portal = o.portal;
  if (portal === undefined) {
    throw new UsageError('enroll() needs tokens (a STOKEN/UIDAUTH pair) or a portal sign-in');
  }
  if ('email' in portal) {
    return portalTokens(http, endpoints, { kind: 'email', email: portal.email }, async () =>
      String(await portal.registrationCode()).trim(),
    );
  }
  return portalTokens(http, endpoints, {
    kind: 'password',
    username: portal.username,
    password: portal.password,
  });
}

/** Enrolls one device and resolves to its profile (stored in `profileFile` when given). */
export function enroll(options: EnrollOptions): Promise<Profile> {
  return codeFace(() => enrolled(options));
}

async function enrolled(options: EnrollOptions): Promise<Profile> {
  if (typeof options?.keyspace !== 'string') throw new UsageError('enroll() needs a keyspace');
  const keyspace = assertKeyspace(options.keyspace);
  const name = options.name ?? hostname();
  const nameProblem = profileNameProblem(name);
  if (nameProblem !== undefined) throw new UsageError(`the profile name ${nameProblem}`);
  checkTiming(options);
  // The library reads no KSCTL_* variables and no context: only what it is given.
  const settings = endpointSettings(
    { apiUrl: options.apiUrl, enrollmentUrl: options.enrollmentUrl, knsUrl: options.knsUrl },
    {},
    {},
  );
  const client = (retries: number | undefined) =>
    new ApiClient(clientOptions(undefined, { kind: 'none' }, options, retries));
  const http = client(options.retries);
  const registerHttp = client(0);
  try {
    const endpoints = new EnrollmentEndpoints(http, keyspace, settings, options.signal);
    const run: RegistrationRun = {
      endpoints,
      http,
      registerHttp,
      tokens: tokenSource(options, http, endpoints),
      signal: options.signal,
    };
    const file = options.profileFile;
    if (file === undefined) {
      return (await enrollDevice(run, prepareRun(run), 0, name)).profile;
    }
    const persistor = file.persistorSpec();
    const stored = await withProfilesHeld(
      persistor,
      () => {
        const storing = { ...run, persistor, setActive: options.setActive === true };
        return enrollAndStore(storing, prepareRun(storing), 0, name);
      },
      { timeoutMs: PROFILE_FILE_WAIT_MS },
    );
    return stored.profile;
  } finally {
    await Promise.all([http.close(), registerHttp.close()]);
  }
}

/**
 * `enroll()`: one device enrolled from code, as `ksctl enroll` does it (key naming lookup when a
 * URL is missing, key server key, device key pair, token pair, registration), returning its
 * profile and, given a `ProfileFile`, storing it there first.
 */
import { hostname } from 'node:os';
import type { TokenPair } from '../../common/enrollment/wire.js';
import { endpointSettings } from '../config/endpoints.js';
import type { TokenChoice } from '../config/enrollment.js';
import { assertKeyspace } from '../../common/enrollment/keyspace.js';
import { UsageError } from '../../common/errors.js';
import { profileNameProblem } from '../profiles/index.js';
import type { Profile } from '../profiles/types.js';
import { enrollOne } from '../usecases/enroll-device.js';
import { codeFace } from './code-words.js';
import { checkConnection, clientOptions } from './connection.js';
import type { ProfileFile } from './profile-file.js';

export type { TokenPair };

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
  /** CA certificates (PEM) to trust instead of Node's: an HTTPS mock's `ca` (ConnectionOptions). */
  ca?: string;
  /** Stops the enrollment before the registration is sent (afterwards it completes). */
  signal?: AbortSignal;
}

function tokenChoice(o: EnrollOptions): TokenChoice {
  if (o.tokens !== undefined && o.portal !== undefined) {
    throw new UsageError('enroll() takes tokens or portal, not both');
  }
  if (o.tokens !== undefined) {
    const { stoken, uidauth } = o.tokens;
    if (typeof stoken !== 'string' || typeof uidauth !== 'string' || !stoken || !uidauth) {
      throw new UsageError('tokens needs a stoken and a uidauth');
    }
    return { kind: 'pairs', pairs: [{ stoken, uidauth }] };
  }
  const portal = o.portal;
  if (portal === undefined) {
    throw new UsageError('enroll() needs tokens (a STOKEN/UIDAUTH pair) or a portal sign-in');
  }
  if ('email' in portal) {
    return {
      kind: 'email',
      email: portal.email,
      registrationCode: async () => String(await portal.registrationCode()).trim(),
    };
  }
  return { kind: 'password', username: portal.username, password: portal.password };
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
  checkConnection(options);
  const { auth: _none, ...client } = clientOptions(undefined, { kind: 'none' }, options);
  const enrolled = await enrollOne(
    {
      keyspace,
      // The library reads no KSCTL_* variables and no context: only what it is given.
      endpoints: endpointSettings(
        { apiUrl: options.apiUrl, enrollmentUrl: options.enrollmentUrl, knsUrl: options.knsUrl },
        {},
        {},
      ),
      tokens: tokenChoice(options),
      client,
      persistor: options.profileFile?.persistorSpec(),
      setActive: options.setActive === true,
      signal: options.signal,
    },
    { name },
  );
  return enrolled.profile;
}

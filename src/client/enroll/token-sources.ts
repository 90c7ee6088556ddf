/**
 * Where the STOKEN and UIDAUTH of each enrollment come from. Every pair enrolls once, so a
 * source hands out one pair per device: a given pair (one device), lines of a tokens file, a
 * portal sign-in per device (each sign-in mints a fresh pair), or the mock's admin endpoint.
 */
import type { KeyObject } from 'node:crypto';
import { ApiClient, type ClientOptions } from '../api/client.js';
import type { TokenPair } from '../../common/enrollment/wire.js';
import { AuthError, ConflictError, InputError, isKsctlError } from '../../common/errors.js';
import { stokenProblem } from '../../common/enrollment/auth.js';
import { CauseCode } from '../../common/enrollment/causes.js';
import { type EnrollmentEndpoints, reach } from './endpoints.js';
import { isJsonObject } from '../../common/encoding/json.js';
import { type PortalCredentials, portalSignIn } from './portal.js';

export interface IssuedTokens {
  tokens: TokenPair;
  /** The API URL a portal sign-in named, if any. */
  apiUrl?: string;
  /** The key server public key a portal sign-in sent inline, if any (then it is not fetched). */
  serverPublicKey?: KeyObject;
}

export interface TokenSource {
  /** How many pairs it can give; undefined when unlimited. */
  readonly size?: number;
  /** Its answers may carry the key server public key, so fetching it can wait until needed. */
  readonly mayCarryServerKey?: boolean;
  /** The pair for device `index` (0-based). */
  issue(index: number, signal?: AbortSignal): Promise<IssuedTokens>;
  /**
   * The service's refusal of a pair in the words of where it came from (an e-mailed code is not
   * a "STOKEN" to the person who typed it); other errors as they are.
   */
  explainRefusal?(error: unknown): unknown;
  /** Lets go of what the source holds (its own client). */
  close?(): Promise<void>;
}

/** Given pairs, one per device in order (a single pair, or the lines of a tokens file). */
export function listedTokens(pairs: TokenPair[]): TokenSource {
  return {
    size: pairs.length,
    async issue(index) {
      const tokens = pairs[index];
      if (tokens === undefined) throw new InputError(`no token pair for device ${index + 1}`);
      return { tokens };
    },
  };
}

/** A portal sign-in per device. An e-mail sign-in needs the code sent out of band. */
export function portalTokens(
  http: ApiClient,
  endpoints: EnrollmentEndpoints,
  credentials: PortalCredentials,
  registrationCode?: () => Promise<string>,
): TokenSource {
  const sentTo = credentials.kind === 'email' ? credentials.email : undefined;
  return {
    mayCarryServerKey: true,
    async issue(_index, signal) {
      const enrollment = await endpoints.enrollment();
      const answer = await reach(enrollment, () =>
        portalSignIn(http, enrollment.url, endpoints.keyspace, credentials, signal),
      );
      const stoken = answer.stoken ?? (await registrationCode?.())?.trim();
      if (stoken === undefined) throw new InputError('the registration code is missing');
      if (answer.stoken === undefined) {
        const problem = stokenProblem(stoken);
        if (problem !== undefined) {
          throw new InputError(`the registration code ${problem}; nothing was enrolled`, {
            hint: `type the code from the e-mail sent to ${sentTo ?? 'you'} whole, as it is written`,
          });
        }
      }
      return {
        tokens: { stoken, uidauth: answer.uidauth },
        apiUrl: answer.apiUrl,
        serverPublicKey: answer.serverPublicKey,
      };
    },
    explainRefusal: (error) =>
      sentTo === undefined ? error : registrationCodeRefusal(error, sentTo),
  };
}

/**
 * The service's refusal of the pair made of an e-mailed registration code: the code is what the
 * user typed, so the words are about the code (wrong or expired, or used already).
 */
function registrationCodeRefusal(error: unknown, email: string): unknown {
  if (!isKsctlError(error)) return error;
  const { conversationId, status, serviceCode } = error;
  const options = { conversationId, status, serviceCode, cause: error };
  if (serviceCode === CauseCode.tokenIncorrect) {
    return new AuthError(`the registration code is wrong or has expired (${serviceCode})`, {
      ...options,
      hint: {
        cli: `check the code in the e-mail sent to ${email}, or sign in with --email again for a new one`,
        code: `check the code in the e-mail sent to ${email}, or enroll with portal.email again for a new one`,
      },
    });
  }
  if (serviceCode === CauseCode.replay) {
    return new ConflictError(
      `this registration code has already enrolled a device; each code enrolls once (${serviceCode})`,
      {
        ...options,
        hint: {
          cli: 'sign in with --email again for a new code',
          code: 'enroll with portal.email again for a new code',
        },
      },
    );
  }
  return error;
}

/**
 * Fresh pairs from a ksctl mock's `POST /_mock/tokens`, which it serves beside the API it enrolls
 * into: a client of that origin with `admin`'s credentials (the mock's dev token).
 */
export async function mockTokens(
  endpoints: EnrollmentEndpoints,
  admin: Omit<ClientOptions, 'baseUrl'>,
  user: string,
): Promise<TokenSource> {
  const api = await endpoints.api();
  const client = new ApiClient({ ...admin, baseUrl: new URL(api.url).origin });
  return {
    async issue(_index, signal) {
      const { body } = await reach(api, () =>
        client.request<TokenPair>('POST', '/_mock/tokens', {
          body: { user, keyspace: endpoints.keyspace },
          what: `mint mock tokens for ${user}`,
          expect: (body) =>
            isJsonObject(body) &&
            typeof body.stoken === 'string' &&
            typeof body.uidauth === 'string'
              ? undefined
              : 'no stoken and uidauth',
          signal,
        }),
      );
      return { tokens: { stoken: body.stoken, uidauth: body.uidauth } };
    },
    close: () => client.close(),
  };
}

/** Problems of a tokens file listed before "… and N more problems". */
const PROBLEMS_SHOWN = 50;

/**
 * A tokens file: one `STOKEN UIDAUTH` pair per line, separated by white space or a comma (a
 * STOKEN holds no comma, and the UIDAUTH's own leading comma may stay). Blank lines and lines
 * starting with `#` are skipped. Problems name the line, never its text: it is secret.
 */
export function parseTokensFile(text: string, source: string): TokenPair[] {
  const pairs: TokenPair[] = [];
  const problems: { path: string; message: string }[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(\S+?)(?:\s+|,)(\S+)$/.exec(line) ?? /^([^,\s]+)\s*,\s*(\S+)$/.exec(line);
    if (match === null || !match[1]!.startsWith('I.')) {
      problems.push({
        path: `${source}:${i + 1}`,
        message: 'expected "STOKEN UIDAUTH" (STOKEN starts with I.)',
      });
      continue;
    }
    pairs.push({ stoken: match[1]!, uidauth: match[2]! });
  }
  if (problems.length > 0) {
    // Enough to fix a file in one go without burying the terminal (as `markings apply` does).
    const details = problems.slice(0, PROBLEMS_SHOWN);
    if (problems.length > PROBLEMS_SHOWN) {
      details.push({
        path: '',
        message: `… and ${problems.length - PROBLEMS_SHOWN} more problems`,
      });
    }
    const lines =
      problems.length === 1
        ? 'a line that is not a token pair'
        : `${problems.length} lines that are not token pairs`;
    throw new InputError(`${source} has ${lines}; nothing was sent`, {
      hint: 'fix or remove those lines (# starts a comment) and run the command again',
      details,
    });
  }
  if (pairs.length === 0) throw new InputError(`${source} holds no token pairs`);
  return pairs;
}

/**
 * One enrollment over HTTP (service interface 4.2): the key server public key, the device key
 * pair and the token pair are obtained side by side (the RSA-3072 key generation takes seconds,
 * so everything else hides behind it), then the package is registered, the SEP keys recovered
 * and the profile stored.
 */
import { type KeyObject, randomUUID } from 'node:crypto';
import type { ApiClient } from '../api/client.js';
import { type HeldProfiles, storeProfile } from '../profiles/index.js';
import type { ProfileRow } from '../profiles/operations.js';
import type { Profile } from '../profiles/types.js';
import { enrollmentErrorFromAnswer } from '../../common/enrollment/causes.js';
import { decodeRsaSpkiBase64, parseServerPublicKey } from '../../common/enrollment/crypto.js';
import { deviceKeySource } from './device-keys.js';
import { type Endpoint, type EnrollmentEndpoints, reach } from './endpoints.js';
import { isJsonObject } from '../../common/encoding/json.js';
import { buildRegistration, type DeviceKeyPair, recoverKeys } from './protocol.js';
import type { TokenSource } from './token-sources.js';

/** `GET {enrollment_url}/keyspace/{ks}/pubkey`: Base64 DER text, CR/LF stripped by the parser. */
export async function fetchServerPublicKey(
  http: ApiClient,
  enrollment: Endpoint,
  keyspace: string,
  signal?: AbortSignal,
): Promise<KeyObject> {
  const answer = await reach(enrollment, () =>
    http.request<unknown>(
      'GET',
      `${enrollment.url}/keyspace/${encodeURIComponent(keyspace)}/pubkey`,
      {
        headers: { accept: 'text/plain' },
        what: `fetch the key server public key of keyspace ${keyspace}`,
        expect: (body) =>
          typeof body === 'string' && decodeRsaSpkiBase64(body.replace(/\s+/g, '')) !== undefined
            ? undefined
            : 'not the Base64 DER of an RSA public key',
        signal,
      },
    ),
  );
  return parseServerPublicKey(typeof answer.body === 'string' ? answer.body : '');
}

export interface RegisterInput {
  api: Endpoint;
  keyspace: string;
  stoken: string;
  uidauth: string;
  serverPublicKey: KeyObject;
  deviceKeys: DeviceKeyPair;
  name: string;
  signal?: AbortSignal;
}

export interface EnrolledDevice {
  profile: Profile;
  /** The UUID sent as `X-Conversation-ID: Basic <uuid>`. */
  conversationId: string;
}

/**
 * `POST {api_url}/v2.3/register/{ks}` and the profile it yields. An error answer becomes the
 * typed error of its cause (explanation, hint, conversation id, exit code). Never retried: the
 * token pair is single-use, and a retried package would count as a replay.
 */
export async function registerDevice(
  http: ApiClient,
  input: RegisterInput,
): Promise<EnrolledDevice> {
  const { request, session } = buildRegistration(
    {
      keyspace: input.keyspace,
      stoken: input.stoken,
      uidauth: input.uidauth,
      serverPublicKey: input.serverPublicKey,
    },
    input.deviceKeys,
  );
  const uuid = randomUUID();
  const answer = await reach(input.api, () =>
    http.request<unknown>(
      'POST',
      `${input.api.url}/v2.3/register/${encodeURIComponent(input.keyspace)}`,
      {
        body: request,
        conversationId: `Basic ${uuid}`,
        mapError: (status, body) => enrollmentErrorFromAnswer(status, body, uuid),
        expect: (body) => (isJsonObject(body) ? undefined : 'not a JSON object'),
        what: `register a device in keyspace ${input.keyspace}`,
        signal: input.signal,
        retries: 0,
      },
    ),
  );
  const keys = recoverKeys(answer.body, session, uuid);
  return {
    conversationId: uuid,
    profile: {
      name: input.name,
      deviceId: keys.deviceId,
      server: input.api.url,
      aesCdIdcKey: keys.aesCdIdcKey,
      aesCdEiKey: keys.aesCdEiKey,
      creationTimestamp: Math.floor(Date.now() / 1000),
    },
  };
}

/** What every enrollment of one run shares. */
export interface RegistrationRun {
  endpoints: EnrollmentEndpoints;
  /**
   * Lookups, key server key, portal (the usual retries) and the registration (none): one client,
   * so the registration goes out on the connection the sign-in opened.
   */
  http: ApiClient;
  tokens: TokenSource;
  signal?: AbortSignal;
}

/** A run whose profiles are stored (`ksctl enroll`), in the profile file it holds. */
export interface EnrollmentRun extends RegistrationRun {
  profiles: HeldProfiles;
  /** Make each stored profile the active one. */
  setActive: boolean;
}

export interface StoredDevice {
  row: ProfileRow;
  conversationId: string;
  profile: Profile;
}

/**
 * Gets the key server public key once for every device of the run: fetched at once, or, when the
 * token source may send it inline (a portal of a later SDK), only if one of its answers lacks it.
 * (The profile file was opened before: a wrong password fails before a token pair is spent.)
 */
export function prepareRun(run: RegistrationRun): {
  /** The fetched key server public key (one request, however often it is called). */
  serverPublicKey: () => Promise<KeyObject>;
} {
  let fetched: Promise<KeyObject> | undefined;
  const serverPublicKey = () => {
    fetched ??= run.endpoints
      .enrollment()
      .then((enrollment) =>
        fetchServerPublicKey(run.http, enrollment, run.endpoints.keyspace, run.signal),
      );
    return fetched;
  };
  // Awaited by every enrollment; marked handled so an early failure elsewhere is not "unhandled".
  if (!run.tokens.mayCarryServerKey) serverPublicKey().catch(() => undefined);
  return { serverPublicKey };
}

/** Enrolls device `index` and stores its profile. `deviceKeys` may already be under way. */
export async function enrollAndStore(
  run: EnrollmentRun,
  shared: ReturnType<typeof prepareRun>,
  index: number,
  name: string,
  deviceKeys?: Promise<DeviceKeyPair>,
): Promise<StoredDevice> {
  const enrolled = await enrollDevice(run, shared, index, name, deviceKeys);
  const row = await storeProfile(run.profiles, enrolled.profile, { setActive: run.setActive });
  return { row, conversationId: enrolled.conversationId, profile: enrolled.profile };
}

/** Enrolls device `index`: its profile, not stored. `deviceKeys` may already be under way. */
export async function enrollDevice(
  run: RegistrationRun,
  shared: ReturnType<typeof prepareRun>,
  index: number,
  name: string,
  deviceKeys: Promise<DeviceKeyPair> = deviceKeySource.generate(),
): Promise<EnrolledDevice> {
  const issuing = run.tokens.issue(index, run.signal);
  const serverKey = issuing.then((issued) => issued.serverPublicKey ?? shared.serverPublicKey());
  const [keys, issued, serverPublicKey] = await Promise.all([deviceKeys, issuing, serverKey]);
  const api = await run.endpoints.api(issued.apiUrl);
  return registerDevice(run.http, {
    api,
    keyspace: run.endpoints.keyspace,
    stoken: issued.tokens.stoken,
    uidauth: issued.tokens.uidauth,
    serverPublicKey,
    deviceKeys: keys,
    name,
    // Not aborted by Ctrl-C: once the package is sent the pair is spent, so the answer is
    // awaited and the profile stored; only what comes before stops.
  }).catch((error: unknown) => {
    throw run.tokens.explainRefusal?.(error) ?? error;
  });
}

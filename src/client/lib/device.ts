/**
 * `DeviceClient`: key requests as an enrolled device (create, fetch, modify), with a profile from
 * `enroll()` or a `ProfileFile`, in either dialect of the device request format (v2.4, the
 * default, or v2.3). Over the same code as `ksctl keys`: the envelope, the signatures, the
 * fingerprint exchange and the checks of every answer.
 */
import { ApiClient } from '../api/client.js';
import { API_VERSIONS, type ApiVersion } from '../../common/device/api-version.js';
import {
  type Attributes,
  type DeviceAnswer,
  type DeviceKey,
  type DeviceProfile,
  DeviceClient as DeviceRequests,
  type ItemRefusal,
  type KeyChange,
  type ModifyAnswer,
} from '../device/client.js';
import { UsageError } from '../../common/errors.js';
import { createKeys, fetchKeys } from '../usecases/keys.js';
import { codeFace } from './code-words.js';
import { checkConnection, clientOptions } from './connection.js';

export type { Attributes, DeviceAnswer, DeviceKey, DeviceProfile, ItemRefusal, KeyChange };
export type { ModifyAnswer };

/** The dialects of the device request format this version of ksctl speaks. */
export const DEVICE_API_VERSIONS: readonly DeviceApiVersion[] = API_VERSIONS;
export type DeviceApiVersion = ApiVersion;

/** Keys to create under one ref. */
export interface KeyRequest {
  /** The application's name for the keys (the service keeps it with them). */
  ref: string;
  /** Default 1. */
  count?: number;
  /** Attributes the service sees, markings among them: `{ classification: ['restricted'] }`. */
  attributes?: Attributes;
  /** `ionic-protected-*` attributes, sealed before they leave the process. */
  protectedAttributes?: Attributes;
  /** Mutable attributes the keys start with (v2.4 only). */
  mutableAttributes?: Attributes;
}

export interface DeviceClientOptions {
  /** The dialect: '2.4' (the default, the current SDKs') or '2.3' (older services; no modify). */
  apiVersion?: DeviceApiVersion;
  /** Time each attempt may take, in milliseconds (default 30,000). */
  timeout?: number;
  /** Extra attempts after the first (default 3), only after a 429 or 503 (nothing was done). */
  retries?: number;
  userAgent?: string;
  /** One line per request and answer (envelopes are opaque; no key material is traced). */
  trace?: (line: string) => void;
  /** CA certificates (PEM) to trust instead of Node's: an HTTPS mock's `ca` (ConnectionOptions). */
  ca?: string;
}

/** The refused items of an answer, their errors in code's words as a thrown one's are. */
function refusalsInCodeWords<A extends { refused: ItemRefusal[] }>(answer: A): A {
  for (const refusal of answer.refused) refusal.error.inCodeWords();
  return answer;
}

export class DeviceClient {
  readonly deviceId: string;
  readonly apiVersion: DeviceApiVersion;
  private readonly http: ApiClient;
  private readonly requests: DeviceRequests;

  constructor(profile: DeviceProfile, options: DeviceClientOptions = {}) {
    if (
      typeof profile?.deviceId !== 'string' ||
      typeof profile.server !== 'string' ||
      !Buffer.isBuffer(profile.aesCdIdcKey) ||
      !Buffer.isBuffer(profile.aesCdEiKey)
    ) {
      throw new UsageError(
        'DeviceClient needs a profile: deviceId, server and the two SEP keys (from enroll() or a ProfileFile)',
      );
    }
    const apiVersion = options.apiVersion ?? '2.4';
    if (!DEVICE_API_VERSIONS.includes(apiVersion)) {
      throw new UsageError(
        `device API version ${String(apiVersion)} is not one ksctl speaks (${DEVICE_API_VERSIONS.join(', ')})`,
      );
    }
    checkConnection(options);
    this.deviceId = profile.deviceId;
    this.apiVersion = apiVersion;
    // Every request names the profile's server in full; the envelope is the credential.
    this.http = new ApiClient(clientOptions(profile.server, { kind: 'none' }, options));
    this.requests = new DeviceRequests(profile, this.http, undefined, apiVersion);
  }

  /**
   * Creates keys: `count` keys under each ref, with their attributes (markings among them).
   * Refs the service refuses are in `refused`, each with its typed error; a refusal of the
   * whole request is thrown.
   */
  createKeys(requests: KeyRequest | KeyRequest[]): Promise<DeviceAnswer> {
    const list = Array.isArray(requests) ? requests : [requests];
    return codeFace(() => createKeys(this.requests, list)).then(refusalsInCodeWords);
  }

  /** Fetches keys by id, attributes checked against the service's signatures. */
  fetchKeys(ids: string | string[]): Promise<DeviceAnswer> {
    return codeFace(() => fetchKeys(this.requests, Array.isArray(ids) ? ids : [ids])).then(
      refusalsInCodeWords,
    );
  }

  /**
   * Replaces the mutable attributes of keys as created or last fetched (v2.4): a key changed
   * meanwhile is refused (`ConflictError`), not overwritten, unless the change says `force`.
   */
  modifyKeys(changes: KeyChange | KeyChange[]): Promise<ModifyAnswer> {
    return codeFace(() => this.requests.modify(Array.isArray(changes) ? changes : [changes])).then(
      refusalsInCodeWords,
    );
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

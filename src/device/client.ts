/**
 * Device requests from ksctl with a stored profile (docs/design.md 2.4): builds the envelope, signs
 * the attributes, answers the fingerprint exchange (4001), opens the answer and every key in it,
 * and checks the service's signatures. Returns data; failures are typed errors (device causes).
 */
import { createHash } from 'node:crypto';
import type { ApiClient } from '../api/client.js';
import { errorFromAnswer } from '../api/errors.js';
import { AuthError, type KsctlError, ServiceError } from '../errors.js';
import { isJsonObject } from '../encoding/json.js';
import type { Profile } from '../profiles/types.js';
import { DeviceErrorCode, deviceCause, deviceError } from './causes.js';
import { makeCid } from './cid.js';
import {
  aad,
  checkServiceSignature,
  isProtectedAttribute,
  openEnvelope,
  openProtectedValues,
  protectValues,
  sealEnvelope,
  signAttributes,
  unwrapDataKey,
} from './crypto.js';
import {
  type AnswerContent,
  type CreateAnswerData,
  type CreateData,
  type DeviceRequestBody,
  type FetchAnswerData,
  type FetchedKeyWire,
  type ItemErrorWire,
  KEY_PATH,
  type ModifyData,
} from './wire.js';

export type Attributes = Record<string, string[]>;

/** This device's fingerprint, sent in full only when the service asks (error 4001). */
const FINGERPRINT = JSON.stringify({ fptype: 'ksctl' });
const FINGERPRINT_HASH = createHash('sha256').update(FINGERPRINT).digest('hex');

export interface KeyRequest {
  ref: string;
  count: number;
  /** Plain attributes, which the service sees (markings among them). */
  attributes: Attributes;
  /** `ionic-protected-*` attributes, sealed before they leave the machine. */
  protectedAttributes?: Attributes;
}

export interface DeviceKey {
  id: string;
  /** The ref it was created under (create answers only). */
  ref?: string;
  /** The 32-byte data key. */
  key: Buffer;
  /** The key's attributes, protected ones opened. */
  attributes: Attributes;
  mutableAttributes?: Attributes;
  /** The signature a modify must quote as `prevmsig`. */
  signature?: string;
}

/** A ref or key id the service refused, with the typed error it maps to. */
export interface ItemRefusal {
  item: string;
  code: number;
  message: string;
  error: KsctlError;
}

export interface DeviceAnswer {
  keys: DeviceKey[];
  refused: ItemRefusal[];
}

export class DeviceClient {
  constructor(
    private readonly profile: Pick<Profile, 'deviceId' | 'server' | 'aesCdIdcKey' | 'aesCdEiKey'>,
    private readonly http: ApiClient,
    private readonly signal?: AbortSignal,
  ) {}

  async create(requests: KeyRequest[]): Promise<DeviceAnswer> {
    const signatures = new Map<string, string | undefined>();
    const { cid, content } = await this.exchange<CreateAnswerData>(
      KEY_PATH.create,
      'create keys',
      (cid): CreateData => ({
        'protection-keys': requests.map((r) => {
          const cattrs = JSON.stringify({
            ...r.attributes,
            ...this.sealProtected(r.protectedAttributes ?? {}),
          });
          const csig = signAttributes(this.profile.aesCdEiKey, aad(cid, r.ref), cattrs);
          signatures.set(r.ref, csig);
          return { ref: r.ref, qty: r.count, cattrs, csig };
        }),
      }),
    );
    const attributesOf = new Map(
      requests.map((r) => [r.ref, { ...r.attributes, ...(r.protectedAttributes ?? {}) }]),
    );
    const keys = list(content.data['protection-keys']).map((wire): DeviceKey => {
      if (!isJsonObject(wire) || typeof wire.id !== 'string' || typeof wire.ref !== 'string') {
        throw malformed('create');
      }
      const csig = signatures.get(wire.ref);
      const keyAad =
        csig === undefined ? aad(cid, wire.ref, wire.id) : aad(cid, wire.ref, wire.id, csig);
      return {
        id: wire.id,
        ref: wire.ref,
        key: this.unwrap(keyAad, wire.key, wire.id),
        attributes: attributesOf.get(wire.ref) ?? {},
      };
    });
    return { keys, refused: refusals(content.error, 'ref') };
  }

  async fetch(ids: string[]): Promise<DeviceAnswer> {
    const { cid, content } = await this.exchange<FetchAnswerData>(
      KEY_PATH.fetch,
      'fetch keys',
      () => ({ 'protection-keys': ids }),
    );
    const keys = list(content.data['protection-keys']).map((wire) => this.openFetched(cid, wire));
    return { keys, refused: refusals(content.error, 'key') };
  }

  /** Replaces the mutable attributes of keys as last fetched (`signature` guards the change). */
  async modify(
    changes: { key: DeviceKey; attributes: Attributes; protectedAttributes?: Attributes }[],
  ): Promise<DeviceAnswer> {
    const { cid, content } = await this.exchange<FetchAnswerData>(
      KEY_PATH.modify,
      'modify keys',
      (cid): ModifyData => ({
        'protection-keys': changes.map(({ key, attributes, protectedAttributes }) => {
          const mattrs = JSON.stringify({
            ...attributes,
            ...this.sealProtected(protectedAttributes ?? {}),
          });
          return {
            id: key.id,
            mattrs,
            msig: signAttributes(this.profile.aesCdEiKey, aad(cid, key.id), mattrs),
            prevmsig: key.signature ?? '',
          };
        }),
      }),
    );
    const keys = list(content.data['protection-keys']).map((wire) => this.openFetched(cid, wire));
    return { keys, refused: refusals(content.error, 'key') };
  }

  private sealProtected(attributes: Attributes): Attributes {
    const sealed: Attributes = {};
    for (const [name, values] of Object.entries(attributes)) {
      sealed[name] = [protectValues(this.profile.aesCdEiKey, name, values)];
    }
    return sealed;
  }

  private openFetched(cid: string, wire: unknown): DeviceKey {
    if (
      !isJsonObject(wire) ||
      typeof wire.id !== 'string' ||
      typeof wire.cattrs !== 'string' ||
      typeof wire.csig !== 'string'
    ) {
      throw malformed('fetch');
    }
    const k = wire as unknown as FetchedKeyWire;
    const key = this.unwrap(aad(cid, k.id, k.csig), k.key, k.id);
    const attributes = openAttributes(key, k.id, k.cattrs, k.csig, 'cattrs');
    const mutableAttributes =
      typeof k.mattrs === 'string' && typeof k.msig === 'string'
        ? openAttributes(key, k.id, k.mattrs, k.msig, 'mattrs')
        : undefined;
    return {
      id: k.id,
      key,
      attributes,
      ...(mutableAttributes ? { mutableAttributes } : {}),
      signature: k.msig ?? k.csig,
    };
  }

  private unwrap(aadText: string, wrapped: unknown, id: string): Buffer {
    const key =
      typeof wrapped === 'string'
        ? unwrapDataKey(this.profile.aesCdEiKey, aadText, wrapped)
        : undefined;
    if (!key) {
      throw new AuthError(
        `key ${id} does not open with the profile's SEP.CD:KS key (aesCdEiKey) of ${this.profile.deviceId}`,
        { hint: deviceCause(DeviceErrorCode.signatureInvalid)!.hint },
      );
    }
    return key;
  }

  /**
   * One request and its opened answer. When the service does not know the fingerprint (4001)
   * the request is sent once more, with a new cid and the full fingerprint.
   */
  private async exchange<D>(
    path: string,
    what: string,
    data: (cid: string) => unknown,
  ): Promise<{ cid: string; content: AnswerContent<D> }> {
    let hfp: string | undefined;
    for (;;) {
      const cid = makeCid(this.profile.deviceId);
      const meta =
        hfp === undefined ? { hfphash: FINGERPRINT_HASH } : { hfphash: FINGERPRINT_HASH, hfp };
      const body: DeviceRequestBody = {
        cid,
        envelope: sealEnvelope(this.profile.aesCdIdcKey, cid, { meta, data: data(cid) }),
      };
      const label = `${what} with device ${this.profile.deviceId}`;
      const answer = await this.http.request<unknown>('POST', `${this.profile.server}${path}`, {
        body,
        conversationId: cid,
        what: label,
        signal: this.signal,
        mapError: (status, errorBody) => httpError(status, errorBody, cid, label),
      });
      const content = this.openAnswer<D>(cid, answer.body);
      const error = content.error;
      if (
        isWholeError(error) &&
        error.code === DeviceErrorCode.fingerprintUnknown &&
        hfp === undefined
      ) {
        hfp = FINGERPRINT;
        continue;
      }
      if (isWholeError(error)) {
        throw deviceError(
          error.code,
          `${label}: the service refused: ${error.message} (${error.code})`,
          {
            conversationId: cid,
          },
        );
      }
      return { cid, content };
    }
  }

  private openAnswer<D>(cid: string, body: unknown): AnswerContent<D> {
    if (!isJsonObject(body) || body.cid !== cid || typeof body.envelope !== 'string') {
      throw new ServiceError('the service answered a device request without its cid and envelope', {
        conversationId: cid,
      });
    }
    const opened = openEnvelope(this.profile.aesCdIdcKey, cid, body.envelope);
    if (!opened.ok || !isJsonObject(opened.content) || !isJsonObject(opened.content.data)) {
      throw new AuthError(
        `the answer does not open with the profile's SEP.CD:IDC key (aesCdIdcKey) of ${this.profile.deviceId}`,
        { conversationId: cid, hint: deviceCause(DeviceErrorCode.envelopeNotAuthentic)!.hint },
      );
    }
    return opened.content as unknown as AnswerContent<D>;
  }
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function malformed(operation: string): ServiceError {
  return new ServiceError(
    `the service's ${operation} answer lists a key without id, key or attributes`,
  );
}

function isWholeError(error: unknown): error is ItemErrorWire {
  return isJsonObject(error) && typeof error.code === 'number' && typeof error.message === 'string';
}

function refusals(error: AnswerContent<unknown>['error'], noun: 'ref' | 'key'): ItemRefusal[] {
  if (error === undefined || isWholeError(error)) return [];
  return Object.entries(error).flatMap(([item, e]) => {
    if (!isJsonObject(e) || typeof e.code !== 'number') return [];
    const message = typeof e.message === 'string' ? e.message : 'refused';
    return [
      {
        item,
        code: e.code,
        message,
        error: deviceError(e.code, `${noun} ${JSON.stringify(item)}: ${message}`),
      },
    ];
  });
}

/** The attributes of a fetched key, signature checked and protected values opened. */
function openAttributes(
  dataKey: Buffer,
  id: string,
  text: string,
  signature: string,
  member: string,
): Attributes {
  if (!checkServiceSignature(dataKey, text, signature)) {
    throw new ServiceError(`the ${member} of key ${id} do not match the service's signature`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isJsonObject(parsed))
    throw new ServiceError(`the ${member} of key ${id} are not a JSON object`);
  const out: Attributes = {};
  for (const [name, values] of Object.entries(parsed as Attributes)) {
    const opened =
      isProtectedAttribute(name) && Array.isArray(values) && values.length === 1
        ? openProtectedValues(dataKey, id, values[0]!)
        : undefined;
    out[name] = opened ?? values;
  }
  return out;
}

/** An HTTP error answer: a device cause when the code is one, else the service's usual errors. */
function httpError(status: number, body: unknown, cid: string, what: string): KsctlError {
  const error = isJsonObject(body) && isJsonObject(body.error) ? body.error : undefined;
  const code = typeof error?.code === 'number' ? error.code : undefined;
  const cause = code === undefined ? undefined : deviceCause(code);
  if (cause && cause.status === status) {
    return deviceError(code, `${what}: ${cause.message} (${code})`, {
      conversationId: cid,
      status,
    });
  }
  return errorFromAnswer(status, body, cid, what);
}

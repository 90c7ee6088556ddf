/**
 * Device requests from ksctl with a stored profile (docs/design.md 2.4), in either dialect (v2.4 by
 * default, as the current SDKs speak; v2.3 for older services): builds the envelope, signs the
 * attributes, answers the fingerprint exchange (4001), opens the answer and every key in it, and
 * checks the service's signatures. Returns data; failures are typed errors (device causes).
 */
import { createHash } from 'node:crypto';
import type { ApiClient } from '../api/client.js';
import { errorFromAnswer } from '../api/errors.js';
import {
  AuthError,
  type KsctlError,
  rowHint,
  ServiceError,
  UsageError,
} from '../../common/errors.js';
import { isJsonObject } from '../../common/encoding/json.js';
import type { Profile } from '../profiles/types.js';
import { DeviceErrorCode, deviceCause, deviceError } from '../../common/device/causes.js';
import type { ApiVersion } from '../../common/device/api-version.js';
import { makeCid } from '../../common/device/cid.js';
import {
  checkServiceSignature,
  isProtectedAttribute,
  openEnvelope,
  openProtectedValues,
  protectValues,
  sealEnvelope,
  signAttributes,
  unwrapDataKey,
} from '../../common/device/crypto.js';
import {
  checkModifySigs,
  createdKeyAad,
  createSignatureAad,
  fetchedKeyAad,
  modifySignatureAad,
  modifySigsText,
} from '../../common/device/dialects.js';
import {
  type AnswerContent,
  type CreateData,
  DEVICE_PATHS,
  type DeviceOperation,
  type DeviceRequestBody,
  type ItemErrorWire,
  type ModifyData,
  type ModifyItem,
} from '../../common/device/wire.js';

export type Attributes = Record<string, string[]>;

export type DeviceProfile = Pick<Profile, 'deviceId' | 'server' | 'aesCdIdcKey' | 'aesCdEiKey'>;

/** This device's fingerprint, sent in full only when the service asks (error 4001). */
const FINGERPRINT = JSON.stringify({ fptype: 'ksctl' });
const FINGERPRINT_HASH = createHash('sha256').update(FINGERPRINT).digest('hex');

export interface KeyRequest {
  ref: string;
  count: number;
  /** Fixed attributes; `ionic-protected-*` ones are sealed before they leave the machine. */
  attributes: Attributes;
  /** `ionic-protected-*` attributes, sealed before they leave the machine. */
  protectedAttributes?: Attributes;
  /** Mutable attributes the keys start with (v2.4). */
  mutableAttributes?: Attributes;
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
  /** The service's signatures of the attributes: what a guarded modify quotes. */
  csig?: string;
  msig?: string;
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

export interface KeyChange {
  key: DeviceKey;
  /** The new mutable attributes (they replace the old ones); protected ones are sealed. */
  attributes: Attributes;
  protectedAttributes?: Attributes;
  /** Replace without quoting the key's signatures (no stale guard). */
  force?: boolean;
}

export interface ModifyAnswer {
  /** The keys changed, with their new signatures. */
  modified: { id: string; csig: string; msig: string }[];
  refused: ItemRefusal[];
}

export class DeviceClient {
  constructor(
    private readonly profile: DeviceProfile,
    private readonly http: ApiClient,
    private readonly signal?: AbortSignal,
    readonly version: ApiVersion = '2.4',
  ) {}

  async create(requests: KeyRequest[]): Promise<DeviceAnswer> {
    const v24 = this.version === '2.4';
    if (!v24 && requests.some((r) => Object.keys(r.mutableAttributes ?? {}).length > 0)) {
      throw new UsageError('mutable attributes at creation need the v2.4 dialect', {
        hint: {
          cli: 'drop --api-version 2.3, or set them afterwards with ksctl keys modify',
          code: "use apiVersion '2.4' (the default), or set them afterwards with modifyKeys()",
        },
      });
    }
    const sent = new Map<string, { csig: string; msig?: string }>();
    const { cid, content } = await this.exchange('create', 'create keys', (cid): CreateData => ({
      'protection-keys': requests.map((r) => {
        const cattrs = this.attributeText({ ...r.attributes, ...(r.protectedAttributes ?? {}) });
        const csig = signAttributes(
          this.profile.aesCdEiKey,
          createSignatureAad(cid, r.ref, false),
          cattrs,
        );
        if (!v24) {
          sent.set(r.ref, { csig });
          return { ref: r.ref, qty: r.count, cattrs, csig };
        }
        const mattrs = this.attributeText(r.mutableAttributes ?? {});
        const msig = signAttributes(
          this.profile.aesCdEiKey,
          createSignatureAad(cid, r.ref, true),
          mattrs,
        );
        sent.set(r.ref, { csig, msig });
        return { ref: r.ref, qty: r.count, cattrs, mattrs, csig, msig };
      }),
    }));
    const requested = new Map(requests.map((r) => [r.ref, r]));
    const keys = list(content.data['protection-keys']).map((wire): DeviceKey => {
      if (!isJsonObject(wire) || typeof wire.id !== 'string' || typeof wire.ref !== 'string') {
        throw malformed('create');
      }
      const request = requested.get(wire.ref);
      const sigs = sent.get(wire.ref);
      if (!request || !sigs) {
        throw new ServiceError(
          `the service's create answer names ref "${wire.ref}", not asked for`,
        );
      }
      const keyAad = createdKeyAad(this.version, cid, wire.ref, wire.id, sigs.csig, sigs.msig);
      return {
        id: wire.id,
        ref: wire.ref,
        key: this.unwrap(keyAad, wire.key, wire.id),
        attributes: { ...request.attributes, ...(request.protectedAttributes ?? {}) },
        ...(v24 ? { mutableAttributes: request.mutableAttributes ?? {} } : {}),
        ...(typeof wire.csig === 'string' ? { csig: wire.csig } : {}),
        ...(typeof wire.msig === 'string' ? { msig: wire.msig } : {}),
      };
    });
    return { keys, refused: refusals(content, 'ref') };
  }

  async fetch(ids: string[]): Promise<DeviceAnswer> {
    const { cid, content } = await this.exchange('fetch', 'fetch keys', () => ({
      'protection-keys': ids,
    }));
    const keys = list(content.data['protection-keys']).map((wire) => this.openFetched(cid, wire));
    return { keys, refused: refusals(content, 'key') };
  }

  /**
   * Replaces the mutable attributes of keys (v2.4). A guarded change quotes the key's signatures
   * as last fetched, so the service refuses it (4202) when the key changed meanwhile.
   */
  async modify(changes: KeyChange[]): Promise<ModifyAnswer> {
    if (this.version !== '2.4') {
      throw new UsageError('the v2.3 dialect has no key modify', {
        hint: {
          cli: 'modify keys with --api-version 2.4 (the default)',
          code: "modify keys with apiVersion '2.4' (the default)",
        },
      });
    }
    const sent = new Map<string, ModifyItem>();
    const { content } = await this.exchange('modify', 'modify keys', (cid): ModifyData => ({
      'protection-keys': changes.map(({ key, attributes, protectedAttributes, force = false }) => {
        const mattrs = this.attributeText({ ...attributes, ...(protectedAttributes ?? {}) });
        const item: ModifyItem = {
          id: key.id,
          force,
          csig: '',
          prevcsig: force ? '' : (key.csig ?? ''),
          prevmsig: force ? '' : (key.msig ?? ''),
          mattrs,
          msig: signAttributes(
            this.profile.aesCdEiKey,
            modifySignatureAad(cid, key.id, force),
            mattrs,
          ),
        };
        sent.set(key.id, item);
        return item;
      }),
    }));
    const modified = list(content.data['protection-keys']).map((wire) => {
      if (!isJsonObject(wire) || typeof wire.id !== 'string') throw malformed('modify');
      const item = sent.get(wire.id);
      if (!item || typeof wire.csig !== 'string' || typeof wire.msig !== 'string') {
        throw malformed('modify');
      }
      const sigs = typeof wire.sigs === 'string' ? wire.sigs : '';
      if (!checkModifySigs(this.profile.aesCdEiKey, modifySigsText(item.id, item), sigs)) {
        throw new AuthError(
          `the service's answer for key ${item.id} does not carry the signature of the change (sigs) made with the profile's SEP.CD:KS key (aesCdEiKey)`,
          { hint: rowHint(deviceCause(DeviceErrorCode.signatureInvalid)!) },
        );
      }
      return { id: item.id, csig: wire.csig, msig: wire.msig };
    });
    return { modified, refused: refusals(content, 'key') };
  }

  /** Attribute JSON text, `ionic-protected-*` values sealed under SEP.CD:KS (AAD = the name). */
  private attributeText(attributes: Attributes): string {
    const sealed = Object.fromEntries(
      Object.entries(attributes).map(([name, values]): [string, string[]] => [
        name,
        isProtectedAttribute(name)
          ? [protectValues(this.profile.aesCdEiKey, name, values)]
          : values,
      ]),
    );
    return JSON.stringify(sealed);
  }

  private openFetched(cid: string, wire: unknown): DeviceKey {
    if (
      !isJsonObject(wire) ||
      typeof wire.id !== 'string' ||
      typeof wire.cattrs !== 'string' ||
      typeof wire.csig !== 'string' ||
      (wire.mattrs !== undefined && typeof wire.mattrs !== 'string') ||
      (wire.msig !== undefined && typeof wire.msig !== 'string')
    ) {
      throw malformed('fetch');
    }
    const { id, cattrs, csig } = wire;
    const mattrs = wire.mattrs as string | undefined;
    const msig = wire.msig as string | undefined;
    const key = this.unwrap(fetchedKeyAad(this.version, cid, id, csig, msig), wire.key, id);
    const attributes = openAttributes(key, id, cattrs, csig, 'cattrs');
    const mutableAttributes =
      mattrs !== undefined && msig !== undefined
        ? openAttributes(key, id, mattrs, msig, 'mattrs')
        : undefined;
    return {
      id,
      key,
      attributes,
      ...(mutableAttributes ? { mutableAttributes } : {}),
      csig,
      ...(msig === undefined ? {} : { msig }),
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
        { hint: rowHint(deviceCause(DeviceErrorCode.signatureInvalid)!) },
      );
    }
    return key;
  }

  /**
   * One request and its opened answer. When the service does not know the fingerprint (4001)
   * the request is sent once more, with a new cid and the full fingerprint.
   */
  private async exchange(
    operation: DeviceOperation,
    what: string,
    data: (cid: string) => unknown,
  ): Promise<{ cid: string; content: AnswerContent<Record<string, unknown>> }> {
    const path = DEVICE_PATHS[this.version][operation];
    if (path === undefined) throw new UsageError(`the v${this.version} dialect has no ${what}`);
    let hfp: string | undefined;
    for (;;) {
      const cid = makeCid(this.profile.deviceId, this.version);
      const meta =
        hfp === undefined ? { hfphash: FINGERPRINT_HASH } : { hfphash: FINGERPRINT_HASH, hfp };
      const body = bodyText({
        cid,
        envelope: sealEnvelope(this.profile.aesCdIdcKey, cid, { meta, data: data(cid) }),
      });
      const label = `${what} with device ${this.profile.deviceId}`;
      const answer = await this.http.request<unknown>('POST', `${this.profile.server}${path}`, {
        body,
        conversationId: cid,
        what: label,
        signal: this.signal,
        mapError: (status, errorBody) => this.httpError(status, errorBody, cid, label),
      });
      const content = this.openAnswer(cid, answer.body);
      const error = content.error;
      if (
        isWholeError(error) &&
        error.code === DeviceErrorCode.fingerprintUnknown &&
        hfp === undefined
      ) {
        hfp = FINGERPRINT;
        continue;
      }
      if (isWholeError(error)) throw refusedWhole(error, label, cid);
      return { cid, content };
    }
  }

  private openAnswer(cid: string, body: unknown): AnswerContent<Record<string, unknown>> {
    if (!isJsonObject(body) || body.cid !== cid || typeof body.envelope !== 'string') {
      throw new ServiceError('the service answered a device request without its cid and envelope', {
        conversationId: cid,
      });
    }
    const opened = openEnvelope(this.profile.aesCdIdcKey, cid, body.envelope);
    if (!opened.ok || !isJsonObject(opened.content)) {
      throw new AuthError(
        `the answer does not open with the profile's SEP.CD:IDC key (aesCdIdcKey) of ${this.profile.deviceId}`,
        { conversationId: cid, hint: rowHint(deviceCause(DeviceErrorCode.envelopeNotAuthentic)!) },
      );
    }
    const content = opened.content;
    const data = isJsonObject(content.data) ? content.data : {};
    return { ...content, data } as AnswerContent<Record<string, unknown>>;
  }

  /**
   * An HTTP error answer: sealed (the device's own error, inside an envelope under our cid), a
   * device cause in a plain body, or the service's usual errors.
   */
  private httpError(status: number, body: unknown, cid: string, what: string): KsctlError {
    if (isJsonObject(body) && body.cid === cid && typeof body.envelope === 'string') {
      const opened = openEnvelope(this.profile.aesCdIdcKey, cid, body.envelope);
      const error = opened.ok && isJsonObject(opened.content) ? opened.content.error : undefined;
      if (isWholeError(error)) return refusedWhole(error, what, cid, status);
    }
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
}

/**
 * A request body's JSON text, as JSON.stringify writes it: Base64 needs no escaping, so the
 * envelope, most of the body, is not read through once more.
 */
function bodyText({ cid, envelope }: DeviceRequestBody): string {
  return `{"cid":${JSON.stringify(cid)},"envelope":"${envelope}"}`;
}

function refusedWhole(
  error: ItemErrorWire,
  what: string,
  cid: string,
  status?: number,
): KsctlError {
  // A create refused for its refs: the service's message names them, and is the whole story
  // for one ref; for several it names each one's code too.
  const forRefs = deviceCause(error.code)?.where === 'item';
  const message =
    forRefs && error.message.startsWith('ref')
      ? error.message
      : `${what}: the service refused: ${error.message}${forRefs && /^\d+ refs refused/.test(error.message) ? '' : ` (${error.code})`}`;
  return deviceError(error.code, message, {
    conversationId: cid,
    ...(status === undefined ? {} : { status }),
  });
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function malformed(operation: string): ServiceError {
  return new ServiceError(
    `the service's ${operation} answer lists a key without id, key, attributes or signatures`,
  );
}

function isWholeError(error: unknown): error is ItemErrorWire {
  return isJsonObject(error) && typeof error.code === 'number' && typeof error.message === 'string';
}

/** Per-item errors, wherever the dialect put them: `data.errorMap` or the inner `error` map. */
function refusals(
  content: AnswerContent<Record<string, unknown>>,
  noun: 'ref' | 'key',
): ItemRefusal[] {
  const maps = [content.data.errorMap, isWholeError(content.error) ? undefined : content.error];
  return maps.flatMap((map) =>
    isJsonObject(map)
      ? Object.entries(map).flatMap(([item, e]) => {
          if (!isJsonObject(e) || typeof e.code !== 'number') return [];
          const message = typeof e.message === 'string' ? e.message : 'refused';
          const error = deviceError(e.code, `${noun} ${JSON.stringify(item)}: ${message}`);
          return [{ item, code: e.code, message, error }];
        })
      : [],
  );
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
  return Object.fromEntries(
    Object.entries(parsed).map(([name, values]): [string, string[]] => {
      const list = Array.isArray(values) ? values.map(String) : [String(values)];
      const opened =
        isProtectedAttribute(name) && list.length === 1
          ? openProtectedValues(dataKey, id, list[0]!)
          : undefined;
      return [name, opened ?? list];
    }),
  );
}

/**
 * What the device operations share (docs/design.md 2.4, spec/device-requests-sdks.md): the verified
 * request, the bounds one request may not pass, reading the items of a request and answering
 * per-item errors in either dialect, and the key checks create, fetch and modify have in common.
 * The key operations live beside it (create-keys.ts, fetch-keys.ts, modify-keys.ts); the two small
 * ones, resources and messages, are here. Each returns the answer envelope's content, or undefined
 * when `data` does not have the operation's shape (the route answers 40023).
 */
import { type DeviceCause, DeviceErrorCode, deviceCause } from '../../../common/device/causes.js';
import type { ApiVersion } from '../../../common/device/api-version.js';
import { checkAttributeSignature, serviceSignature } from '../../../common/device/crypto.js';
import type { ItemErrorWire, MockDeviceMessage } from '../../../common/device/wire.js';
import { isJsonObject } from '../../../common/encoding/json.js';
import { injectedMessage } from '../../model/admin/faults.js';
import type { DeviceKeys, DeviceRecord } from '../../model/enrollment/store.js';
import type { MockState } from '../../model/state.js';
import { ItemFailure } from '../../model/device/attributes.js';
import type { StoredKey } from '../../model/device/store.js';

/** A request whose envelope opened, from a device the mock enrolled. */
export interface DeviceRequest {
  state: MockState;
  version: ApiVersion;
  cid: string;
  device: DeviceRecord;
  keys: DeviceKeys;
  /** The envelope's `data`, as sent: anything. */
  data: unknown;
  now: number;
  /**
   * A per-item error a fault rule fired for this request (docs/design.md 3.3): every item fails
   * with it, where the operation puts an item's failure, and no key is read, made or changed.
   */
  itemFault?: DeviceCause;
}

/** The answer envelope's content, or undefined for data of the wrong shape. */
export type OperationAnswer = Record<string, unknown> | undefined;

/**
 * An operation. One that may run long works in slices (pacing.ts) and so returns a promise: it
 * reads each key once, at one moment, and changes the state in one step at its end.
 */
export type Operation = (req: DeviceRequest) => OperationAnswer | Promise<OperationAnswer>;

/** An item failure worded as the cause table words it. */
export function failure(code: number, message = deviceCause(code)!.message): ItemFailure {
  return new ItemFailure(code, message);
}

/** The failure a fault rule gives every item of a request. */
export function injectedFailure(cause: DeviceCause): ItemFailure {
  return new ItemFailure(cause.code, injectedMessage(cause));
}

/** Every named item failing as a fault rule says, keyed by its name (fetch and modify). */
export function injectedErrors(
  cause: DeviceCause,
  names: Iterable<string>,
): Map<string, ItemErrorWire> {
  const wire = injectedFailure(cause).wire();
  return new Map([...names].map((name) => [name, wire]));
}

/** Items per request and keys per ref: bounds, so one request cannot exhaust the mock. */
export const MAX_ITEMS = 1000;
export const MAX_QTY = 1000;
/** Keys one create makes at most, over all its refs. */
export const MAX_KEYS_PER_CREATE = 10_000;
/**
 * What one fetch may cost at most (issue 17): its work is done in slices (pacing.ts), so other
 * clients are answered meanwhile, and these keep the whole of it within a fraction of a second and
 * a few megabytes. Beyond them the fetch is refused as a whole (40024), before the work is done.
 */
export const REQUEST_BOUNDS = {
  /** Query terms a fetch compares: its queries times the keys of the device's tenant. */
  queryChecks: 1_000_000,
  /** Keys in one fetch answer, by id and by query together. */
  answerKeys: 5_000,
  /** Key ids in one fetch answer's query results, all queries together. */
  queryResultIds: 100_000,
} as const;

/** A request refused as a whole for asking more than REQUEST_BOUNDS allows. */
export class RequestTooLarge extends Error {}

/** The device was removed (the mock was reset) while its request was being worked on. */
export class DeviceRemoved extends Error {}

/** Before a request that paused changes the state: is its device still there? */
export function checkStillEnrolled(req: DeviceRequest): void {
  if (req.state.enrollment.device(req.device.deviceId) !== req.device) throw new DeviceRemoved();
}

export const EMPTY_ATTRIBUTES = '{}';

export function items(data: unknown, member = 'protection-keys'): unknown[] | undefined {
  const list = isJsonObject(data) ? data[member] : undefined;
  return Array.isArray(list) && list.length <= MAX_ITEMS ? list : undefined;
}

/**
 * Items that are objects named by a unique string member (`ref` on create, `id` on modify), as
 * [name, item] pairs in request order; undefined when the list is not so.
 */
export function namedItems(
  data: unknown,
  member: 'ref' | 'id',
): [string, Record<string, unknown>][] | undefined {
  const list = items(data);
  if (!list?.every((item) => isJsonObject(item) && typeof item[member] === 'string')) {
    return undefined;
  }
  const named = (list as Record<string, unknown>[]).map(
    (item): [string, Record<string, unknown>] => [item[member] as string, item],
  );
  return new Set(named.map(([name]) => name)).size === named.length ? named : undefined;
}

/** Runs one item; its failure becomes that item's error. */
export function attempt(errors: Map<string, ItemErrorWire>, key: string, work: () => void): void {
  try {
    work();
  } catch (error) {
    if (!(error instanceof ItemFailure)) throw error;
    errors.set(key, error.wire());
  }
}

/** Per-key errors where the dialect puts them: `data.errorMap` (v2.4) or the inner `error`. */
export function withItemErrors(
  req: DeviceRequest,
  data: Record<string, unknown>,
  errors: Map<string, ItemErrorWire>,
): Record<string, unknown> {
  if (errors.size === 0) return { data };
  const map = Object.fromEntries(errors);
  return req.version === '2.3' ? { data, error: map } : { data: { ...data, errorMap: map } };
}

export function markingsOf(req: DeviceRequest) {
  return req.state.tenant(req.device.tenant)?.markings;
}

/** An optional string member; anything else fails the item. */
export function optionalString(item: Record<string, unknown>, member: string): string | undefined {
  const value = item[member];
  if (value === undefined || typeof value === 'string') return value;
  throw new ItemFailure(DeviceErrorCode.itemInvalid, `${member} must be a string`);
}

/** Checks a client's signature of an attribute text, when it sent one. */
export function verifySignature(
  req: DeviceRequest,
  aadText: string,
  text: string | undefined,
  signature: string | undefined,
  member: string,
): void {
  if (signature === undefined) return;
  if (text === undefined) {
    throw new ItemFailure(DeviceErrorCode.itemInvalid, `${member} must come with the attributes`);
  }
  if (!checkAttributeSignature(req.keys.cdEi, aadText, text, signature)) {
    throw failure(
      DeviceErrorCode.signatureInvalid,
      `${member} does not verify with the device's SEP.CD:KS key`,
    );
  }
}

/** A key's current signatures: what a fetch answers and a guarded modify must quote. */
export function currentState(key: StoredKey): { mattrs: string; csig: string; msig: string } {
  const mattrs = key.mattrs ?? EMPTY_ATTRIBUTES;
  const msig = key.msig ?? serviceSignature(Buffer.from(key.key, 'hex'), mattrs);
  return { mattrs, csig: key.csig, msig };
}

/** The key, if the device's tenant may use it. */
export function usableKey(req: DeviceRequest, id: string): StoredKey {
  const key = req.state.keys.get(id);
  if (!key) throw failure(DeviceErrorCode.keyNotFound);
  if (key.tenant !== req.device.tenant) throw failure(DeviceErrorCode.keyOfOtherTenant);
  return key;
}

/**
 * `/v2.4/resources`: each request answered in order. The mock knows no resources, so each answer
 * names the unknown resource in `error` (the SDK reads `id`, `data` and `error` as strings).
 */
export const resources: Operation = (req) => {
  const list = items(req.data, 'requests');
  const valid = list?.every(
    (r) =>
      isJsonObject(r) &&
      typeof r.id === 'string' &&
      typeof r.resource === 'string' &&
      (r.args === undefined || typeof r.args === 'string'),
  );
  if (!list || !valid) return undefined;
  const responses = (list as { id: string; resource: string }[]).map((r) => ({
    id: r.id,
    data: '',
    error: `unknown resource ${JSON.stringify(r.resource)}: this service serves none`,
  }));
  return { data: { responses } };
};

/**
 * `/v2.4/messages`: a list of `{data: {…}, message_type}`, kept for `GET /_mock/messages`. The
 * answer envelope holds exactly `{}` (the Java SDK checks that it is empty).
 */
export const logMessages: Operation = (req) => {
  const list = req.data;
  if (!Array.isArray(list) || list.length > MAX_ITEMS) return undefined;
  const valid = list.every(
    (m) => isJsonObject(m) && isJsonObject(m.data) && typeof m.message_type === 'string',
  );
  if (!valid) return undefined;
  const time = new Date(req.now).toISOString();
  req.state.deviceMessages.add(
    (list as { data: Record<string, unknown>; message_type: string }[]).map(
      (m): MockDeviceMessage => ({
        time,
        deviceId: req.device.deviceId,
        type: m.message_type,
        data: m.data,
      }),
    ),
  );
  return {};
};

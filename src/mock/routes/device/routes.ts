/**
 * The device request endpoints on the API URL (docs/design.md 2.4, spec/device-requests-sdks.md):
 * `/v2.3|v2.4/keys/create|fetch`, `/v2.4/keys/modify`, `/v2.4/resources` and `/v2.4/messages`,
 * for the devices this mock enrolled; and `GET /_mock/keys`, `GET /_mock/messages`. The dialect
 * is the path's version; one device and one key store serve both.
 *
 * Order of the checks: the body's shape (40020), the cid's form (40021), the device (40120), the
 * envelope (40022, 40122). Those cannot be sealed and are HTTP errors. From there on every
 * failure is sealed under the request's cid, with a status below 500: the cid's time (40121),
 * its novelty (40920: only after the envelope proved the device, so nobody else can spend its
 * cids), the content (40023), the fingerprint (4001), the request's bounds (40024: more work or
 * a larger answer than one request may be), then the operation, whose failures go into
 * the answer envelope (DeviceErrorCode). A fault rule with a device error code fires between the
 * checks and the operation. The checks run in one step once the body is read; an
 * operation that may run long works in slices, so other clients are answered meanwhile, and
 * changes the state in one step at its end (operations.ts).
 */
import type { ApiVersion } from '../../../common/device/api-version.js';
import { CID_MAX_SKEW_MS, parseCid } from '../../../common/device/cid.js';
import {
  DeviceErrorCode,
  deviceCause,
  type DeviceErrorCodeValue,
} from '../../../common/device/causes.js';
import { openEnvelopeBytes, sealEnvelope } from '../../../common/device/crypto.js';
import {
  DEVICE_PATHS,
  type DeviceOperation,
  type EnvelopeMeta,
} from '../../../common/device/wire.js';
import { decodeUtf8Strict } from '../../../common/encoding/base64.js';
import { isJsonObject, parseJsonObject } from '../../../common/encoding/json.js';
import { injectedMessage } from '../../model/admin/faults.js';
import type { DeviceKeys, DeviceRecord } from '../../model/enrollment/store.js';
import { json, type MockRequest, type MockResponse } from '../../kit/http.js';
import { type Route, route } from '../../request/route.js';
import { type JsonLimits, overLimit, parseJsonBody } from '../../kit/json-worker.js';
import { Pacer, runPaced } from '../../kit/pacing.js';
import type { MockState } from '../../model/state.js';
import { createKeys } from './create-keys.js';
import { fetchKeys } from './fetch-keys.js';
import { modifyKeys } from './modify-keys.js';
import {
  DeviceRemoved,
  logMessages,
  type Operation,
  RequestTooLarge,
  resources,
} from './operations.js';
import { sealedAnswer } from './sealed-answer.js';

/** A failure of the request as a whole: an HTTP error, or sealed when `where` says so. */
class DeviceRequestError extends Error {
  readonly status: number;
  readonly sealed: boolean;
  /** `message`: the cause's own words unless given (a bound names itself). */
  constructor(
    readonly code: DeviceErrorCodeValue,
    message?: string,
  ) {
    const cause = deviceCause(code);
    if (!cause || cause.where === 'item') throw new Error(`no request cause ${code}`);
    super(message ?? cause.message);
    this.status = cause.status;
    this.sealed = cause.where === 'sealed';
  }
}

const OPERATIONS: Record<DeviceOperation, Operation> = {
  create: createKeys,
  fetch: fetchKeys,
  modify: modifyKeys,
  resources,
  messages: logMessages,
};

export function deviceRoutes(state: MockState): Route[] {
  const routes: Route[] = [];
  for (const [version, paths] of Object.entries(DEVICE_PATHS) as [
    ApiVersion,
    (typeof DEVICE_PATHS)[ApiVersion],
  ][]) {
    for (const [name, path] of Object.entries(paths) as [DeviceOperation, string][]) {
      const operation = OPERATIONS[name];
      routes.push(route('POST', path, 'device', (req) => answer(state, req, version, operation)));
    }
  }
  routes.push(
    route('GET', '/_mock/keys', 'admin', async () => {
      return json(200, await runPaced(state.keys.listSteps()));
    }),
    route('GET', '/_mock/messages', 'admin', () => {
      return json(200, state.deviceMessages.list());
    }),
  );
  return routes;
}

async function answer(
  state: MockState,
  req: MockRequest,
  version: ApiVersion,
  operation: Operation,
): Promise<MockResponse> {
  const body = parseJsonObject(decodeUtf8Strict(await req.body(DEVICE_BODY_MAX_BYTES)));
  let proved: ProvedRequest | undefined;
  try {
    proved = await prove(state, body);
    const data = accept(state, proved);
    // A fault rule with a device error code (docs/design.md 3.3): only a request that got this
    // far spends it, and it answers as the real path would, sealed where the cause is.
    const fault = state.faults.fireDevice(req.method, req.path);
    if (fault && fault.where !== 'item') {
      throw new DeviceRequestError(fault.code, injectedMessage(fault));
    }
    const request = { state, version, ...proved, data, itemFault: fault };
    const result = await bounded(() => operation(request));
    if (result === undefined) throw new DeviceRequestError(DeviceErrorCode.envelopeContentInvalid);
    const answer = await sealedAnswer(proved.keys.cdIdc, proved.cid, result, new Pacer());
    const code = sealedCode(result);
    return code === undefined ? answer : { ...answer, deviceCode: code };
  } catch (error) {
    if (!(error instanceof DeviceRequestError)) throw error;
    const wire = { code: error.code, message: error.message };
    if (error.sealed && proved) return sealedError(proved, error.status, wire);
    // The error body quotes the request's own cid when it has one.
    const cid = typeof body?.cid === 'string' ? body.cid : req.cid;
    return json(error.status, { error: { cid, ...wire } });
  }
}

/**
 * An operation whose request asks more than one request may is refused whole (40024); one whose
 * device was removed while it worked is answered as for an unknown device (40120).
 */
async function bounded<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof DeviceRemoved) throw new DeviceRequestError(DeviceErrorCode.deviceUnknown);
    if (!(error instanceof RequestTooLarge)) throw error;
    throw new DeviceRequestError(DeviceErrorCode.requestTooLarge, error.message);
  }
}

/** Device API paths: `/v2.<minor>/…` at the root of the API URL. */
const DEVICE_PATH = /^\/v2\.\d+\//;

/**
 * A POST to a device path no route serves (`/v2.4/assertions/create`, say): when the body is a
 * request of a device this mock enrolled whose envelope opens, the answer is a sealed 40420
 * naming the endpoint, so an SDK reports a clean error; otherwise undefined (a plain 404).
 */
export async function unservedDeviceEndpoint(
  state: MockState,
  req: MockRequest,
): Promise<MockResponse | undefined> {
  if (req.method !== 'POST' || !DEVICE_PATH.test(req.path)) return undefined;
  let proved: ProvedRequest;
  try {
    const body = await req.body(DEVICE_BODY_MAX_BYTES);
    proved = await prove(state, parseJsonObject(decodeUtf8Strict(body)));
  } catch (error) {
    if (error instanceof DeviceRequestError) return undefined;
    throw error;
  }
  const cause = deviceCause(DeviceErrorCode.endpointNotServed)!;
  const message = `POST ${req.path.slice(0, 200)}: ${cause.message}`;
  return sealedError(proved, cause.status, { code: cause.code, message });
}

/** An error sealed under the request's cid: `{cid, envelope}`, the content `{data: {}, error}`. */
function sealedError(
  proved: ProvedRequest,
  status: number,
  error: { code: number; message: string },
): MockResponse {
  const envelope = sealEnvelope(proved.keys.cdIdc, proved.cid, { data: {}, error });
  return { ...json(status, { cid: proved.cid, envelope }), deviceCode: error.code };
}

/**
 * The error code an answer's content seals, for the journal: the inner `error`'s (a create's
 * failure), else the first key's (`data.errorMap` in v2.4, the inner `error` map in v2.3).
 */
function sealedCode(content: unknown): number | undefined {
  if (!isJsonObject(content)) return undefined;
  const codeOf = (value: unknown) =>
    isJsonObject(value) && typeof value.code === 'number' ? value.code : undefined;
  const firstOf = (map: unknown) =>
    isJsonObject(map)
      ? Object.values(map)
          .map(codeOf)
          .find((c) => c !== undefined)
      : undefined;
  const data = isJsonObject(content.data) ? content.data : undefined;
  return codeOf(content.error) ?? firstOf(content.error) ?? firstOf(data?.errorMap);
}

interface ProvedRequest {
  cid: string;
  timeMs: number;
  device: DeviceRecord;
  keys: DeviceKeys;
  /** The envelope's content, or undefined when it opened but is not JSON within the bounds. */
  content: unknown;
  /** Why the content was refused, when it was for passing CONTENT_LIMITS. */
  contentTooLarge?: string;
  now: number;
}

/**
 * Device request bodies (docs/design.md 2.4): far above what the largest request an SDK makes
 * takes (1,000 items), and small enough that reading one costs the mock milliseconds.
 */
const DEVICE_BODY_MAX_BYTES = 4 * 1024 * 1024;

/**
 * What an envelope's content may hold: enough for any request (1,000 items of a few members
 * each), while a content of millions of values is refused before the main thread builds it.
 */
const CONTENT_LIMITS: JsonLimits = {
  maxArrayLength: 10_000,
  maxStringLength: DEVICE_BODY_MAX_BYTES,
  maxValues: 200_000,
};

/** The checks that cannot be answered sealed: the body, the cid, the device, the envelope. */
async function prove(
  state: MockState,
  body: Record<string, unknown> | undefined,
): Promise<ProvedRequest> {
  if (typeof body?.cid !== 'string' || typeof body.envelope !== 'string') {
    throw new DeviceRequestError(DeviceErrorCode.requestInvalid);
  }
  const parsed = parseCid(body.cid);
  if (!parsed) throw new DeviceRequestError(DeviceErrorCode.cidMalformed);
  const device = state.enrollment.device(parsed.deviceId);
  const keys = state.enrollment.keysOf(parsed.deviceId);
  if (!device || !keys) throw new DeviceRequestError(DeviceErrorCode.deviceUnknown);
  const opened = openEnvelopeBytes(keys.cdIdc, body.cid, body.envelope);
  if (!opened.ok) {
    throw new DeviceRequestError(
      opened.reason === 'not-base64'
        ? DeviceErrorCode.envelopeUndecodable
        : DeviceErrorCode.envelopeNotAuthentic,
    );
  }
  // Parsed within bounds, and off the main thread when large (json-worker.ts).
  const content = await parseJsonBody(opened.plaintext, CONTENT_LIMITS);
  const proved = { cid: body.cid, timeMs: parsed.timeMs, device, keys, now: Date.now() };
  if (content.ok) return { ...proved, content: content.value };
  const tooLarge =
    content.problem === 'values' || content.problem === 'array'
      ? overLimit(content.problem, CONTENT_LIMITS, "the envelope's content")
      : undefined;
  return { ...proved, content: undefined, contentTooLarge: tooLarge };
}

/**
 * The checks of a proved request, answered sealed: the cid's time and novelty, the content's
 * shape, the fingerprint. Returns the envelope's `data`.
 */
function accept(state: MockState, req: ProvedRequest): unknown {
  if (Math.abs(req.now - req.timeMs) > CID_MAX_SKEW_MS) {
    throw new DeviceRequestError(DeviceErrorCode.clockSkew);
  }
  if (!state.cids.claim(req.cid, req.now)) throw new DeviceRequestError(DeviceErrorCode.cidReused);
  const { content } = req;
  if (req.contentTooLarge !== undefined) {
    throw new DeviceRequestError(DeviceErrorCode.requestTooLarge, req.contentTooLarge);
  }
  const meta = isJsonObject(content) ? content.meta : undefined;
  if (!isJsonObject(content) || !isMeta(meta) || !Object.hasOwn(content, 'data')) {
    throw new DeviceRequestError(DeviceErrorCode.envelopeContentInvalid);
  }
  if (!state.keys.knowsFingerprint(req.device.deviceId, meta.hfphash)) {
    if (meta.hfp === undefined) throw new DeviceRequestError(DeviceErrorCode.fingerprintUnknown);
    state.keys.addFingerprint(req.device.deviceId, meta.hfphash);
  }
  return content.data;
}

function isMeta(value: unknown): value is EnvelopeMeta {
  return (
    isJsonObject(value) &&
    typeof value.hfphash === 'string' &&
    value.hfphash !== '' &&
    (value.hfp === undefined || typeof value.hfp === 'string' || isJsonObject(value.hfp))
  );
}

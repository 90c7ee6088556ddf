/**
 * The device request endpoints on the API URL (docs/design.md 2.4): `/v2.3|v2.4/keys/create|fetch`
 * and `/v2.4/keys/modify`, for the devices this mock enrolled; and `GET /_mock/keys`.
 *
 * Order of the checks: the body's shape (40020), the cid's form (40021), the device (40120), the
 * cid's time (40121), the envelope (40022, 40122, 40023), the cid's novelty (40920: only after
 * the envelope proved the device, so nobody else can spend its cids), the fingerprint (4001),
 * then the operation, whose item failures go into the answer envelope (DeviceErrorCode).
 * Nothing is awaited after the body is read, so concurrent requests never interleave.
 */
import { CID_MAX_SKEW_MS, parseCid } from '../../device/cid.js';
import { DeviceErrorCode, deviceCause, type DeviceErrorCodeValue } from '../../device/causes.js';
import { openEnvelope, sealEnvelope } from '../../device/crypto.js';
import { KEY_PATHS, type EnvelopeMeta } from '../../device/wire.js';
import { decodeUtf8Strict } from '../../encoding/base64.js';
import { isJsonObject, parseJsonObject } from '../../encoding/json.js';
import { requireAdmin } from '../auth.js';
import { json, type MockRequest, type MockResponse, type Route, route } from '../http.js';
import type { MockState } from '../state.js';
import { createKeys, fetchKeys, modifyKeys, type Operation } from './operations.js';

/** A failure answered as an HTTP error with the JSON body of docs/design.md 1.4. */
class DeviceHttpError extends Error {
  readonly status: number;
  constructor(readonly code: DeviceErrorCodeValue) {
    const cause = deviceCause(code);
    if (!cause || cause.status === 0) throw new Error(`no HTTP cause ${code}`);
    super(cause.message);
    this.status = cause.status;
  }
}

export function deviceRoutes(state: MockState): Route[] {
  const routes: Route[] = [];
  const operations: [readonly string[], Operation][] = [
    [KEY_PATHS.create, createKeys],
    [KEY_PATHS.fetch, fetchKeys],
    [KEY_PATHS.modify, modifyKeys],
  ];
  for (const [paths, operation] of operations) {
    for (const path of paths)
      routes.push(route('POST', path, (req) => answer(state, req, operation)));
  }
  routes.push(
    route('GET', '/_mock/keys', (req) => {
      requireAdmin(state, req);
      return json(200, state.keys.list());
    }),
  );
  return routes;
}

async function answer(
  state: MockState,
  req: MockRequest,
  operation: Operation,
): Promise<MockResponse> {
  const body = parseJsonObject(decodeUtf8Strict(await req.body()));
  // The error body quotes the request's own cid when it has one.
  const cid = typeof body?.cid === 'string' ? body.cid : req.cid;
  try {
    return handle(state, body, operation);
  } catch (error) {
    if (!(error instanceof DeviceHttpError)) throw error;
    return json(error.status, { error: { cid, code: error.code, message: error.message } });
  }
}

function handle(
  state: MockState,
  body: Record<string, unknown> | undefined,
  operation: Operation,
): MockResponse {
  if (typeof body?.cid !== 'string' || typeof body.envelope !== 'string') {
    throw new DeviceHttpError(DeviceErrorCode.requestInvalid);
  }
  const { cid, envelope } = body;
  const parsed = parseCid(cid);
  if (!parsed) throw new DeviceHttpError(DeviceErrorCode.cidMalformed);
  const device = state.enrollment.device(parsed.deviceId);
  const keys = state.enrollment.keysOf(parsed.deviceId);
  if (!device || !keys) throw new DeviceHttpError(DeviceErrorCode.deviceUnknown);
  const now = Date.now();
  if (Math.abs(now - parsed.timeMs) > CID_MAX_SKEW_MS) {
    throw new DeviceHttpError(DeviceErrorCode.clockSkew);
  }
  const opened = openEnvelope(keys.cdIdc, cid, envelope);
  if (!opened.ok) {
    throw new DeviceHttpError(
      opened.reason === 'not-base64'
        ? DeviceErrorCode.envelopeUndecodable
        : opened.reason === 'not-authentic'
          ? DeviceErrorCode.envelopeNotAuthentic
          : DeviceErrorCode.envelopeContentInvalid,
    );
  }
  const content = opened.content;
  if (!state.cids.claim(cid, now)) throw new DeviceHttpError(DeviceErrorCode.cidReused);
  const meta = isJsonObject(content) ? content.meta : undefined;
  const data = isJsonObject(content) ? content.data : undefined;
  if (!isMeta(meta) || !isJsonObject(data)) {
    throw new DeviceHttpError(DeviceErrorCode.envelopeContentInvalid);
  }
  const seal = (answerContent: unknown) =>
    json(200, { cid, envelope: sealEnvelope(keys.cdIdc, cid, answerContent) });

  if (!state.keys.knowsFingerprint(device.deviceId, meta.hfphash)) {
    if (meta.hfp === undefined) {
      const cause = deviceCause(DeviceErrorCode.fingerprintUnknown)!;
      return seal({ data: {}, error: { code: cause.code, message: cause.message } });
    }
    state.keys.addFingerprint(device.deviceId, meta.hfphash);
  }
  const result = operation({ state, cid, device, keys, data, now });
  if (result === undefined) throw new DeviceHttpError(DeviceErrorCode.envelopeContentInvalid);
  const errors = Object.keys(result.errors).length > 0 ? { error: result.errors } : {};
  return seal({ data: result.data, ...errors });
}

function isMeta(value: unknown): value is EnvelopeMeta {
  return (
    isJsonObject(value) &&
    typeof value.hfphash === 'string' &&
    value.hfphash !== '' &&
    (value.hfp === undefined || typeof value.hfp === 'string')
  );
}

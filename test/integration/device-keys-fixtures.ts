/** Devices for device request tests: put straight into an in-process mock, no RSA work. */
import { randomBytes, randomUUID } from 'node:crypto';
import { ApiClient } from '../../src/client/api/client.js';
import { makeCid } from '../../src/common/device/cid.js';
import { sealEnvelope } from '../../src/common/device/crypto.js';
import type { Profile } from '../../src/client/profiles/types.js';
import type { TestMock } from '../helpers/mock.js';

export type DeviceProfile = Pick<Profile, 'deviceId' | 'server' | 'aesCdIdcKey' | 'aesCdEiKey'>;

/** A device enrolled in `tenant` (default: the mock's) with fresh SEP keys. */
export function addDevice(
  mock: TestMock,
  tenant = mock.info.tenantId,
  keyspace = 'ABcd',
): DeviceProfile {
  const deviceId = `${keyspace}.1.${randomUUID()}`;
  const keys = { cdEi: randomBytes(32), cdIdc: randomBytes(32) };
  mock.server.state.addTenant(tenant);
  mock.server.state.enrollment.addDevice(
    { deviceId, keyspace, tenant, user: 'alice', createdAt: new Date().toISOString() },
    keys,
  );
  return { deviceId, server: mock.info.apiUrl, aesCdIdcKey: keys.cdIdc, aesCdEiKey: keys.cdEi };
}

export function deviceHttp(): ApiClient {
  return new ApiClient({ auth: { kind: 'none' }, retries: 0 });
}

export interface RawAnswer {
  status: number;
  body: {
    cid?: string;
    envelope?: string;
    error?: { cid?: string; code?: number; message?: string };
  };
}

/** POSTs a body as is, for the error paths a correct client never takes. */
export async function postRaw(mock: TestMock, path: string, body: unknown): Promise<RawAnswer> {
  const response = await fetch(mock.info.apiUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as RawAnswer['body'] };
}

/** A request body sealed with the device's IDC key (or another key), cid as given. */
export function sealedBody(
  device: DeviceProfile,
  content: unknown,
  options: { cid?: string; idcKey?: Buffer } = {},
): { cid: string; envelope: string } {
  const cid = options.cid ?? makeCid(device.deviceId);
  return { cid, envelope: sealEnvelope(options.idcKey ?? device.aesCdIdcKey, cid, content) };
}

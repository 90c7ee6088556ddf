/**
 * Proving a profile in one step: create one key with it and fetch the key back. Success shows
 * that the service knows the device and that both SEP keys of the profile are the right ones.
 */
import type { ApiClient } from '../api/client.js';
import type { ErrorClass } from '../../common/enrollment/causes.js';
import { type KsctlError, ServiceError, UnreachableError } from '../../common/errors.js';
import type { Profile } from '../profiles/types.js';
import type { ApiVersion } from '../../common/device/api-version.js';
import { DeviceClient } from './client.js';
import { refusalError } from './refusals.js';

/** The ref of the keys a check creates, so they can be told apart on the service. */
export const CHECK_REF = 'ksctl-check';

export interface CheckResult {
  deviceId: string;
  server: string;
  /** The key created and fetched back. */
  keyId: string;
  /** The dialect the check spoke. */
  apiVersion: ApiVersion;
  /** Create and fetch, in milliseconds. */
  ms: number;
}

export async function checkDevice(
  profile: Pick<Profile, 'deviceId' | 'server' | 'aesCdIdcKey' | 'aesCdEiKey'>,
  http: ApiClient,
  signal?: AbortSignal,
  apiVersion: ApiVersion = '2.4',
): Promise<CheckResult> {
  const started = performance.now();
  const client = new DeviceClient(profile, http, signal, apiVersion);
  const created = await client.create([{ ref: CHECK_REF, count: 1, attributes: {} }]);
  if (created.refused.length > 0) throw refusalError(created.refused);
  const [key] = created.keys;
  if (!key) throw new ServiceError('the service created no key for the check');
  const fetched = await client.fetch([key.id]);
  if (fetched.refused.length > 0) throw refusalError(fetched.refused);
  if (!fetched.keys[0]?.key.equals(key.key)) {
    throw new ServiceError(`key ${key.id} came back different from the key created`);
  }
  return {
    deviceId: profile.deviceId,
    server: profile.server,
    keyId: key.id,
    apiVersion,
    ms: Math.round((performance.now() - started) * 10) / 10,
  };
}

/** A failed check of a profile that was stored all the same, said so in the message. */
export function storedButFailed(error: KsctlError): KsctlError {
  const ErrorType =
    error instanceof UnreachableError ? ServiceError : (error.constructor as ErrorClass);
  return new ErrorType(`the profile was stored, but the check failed: ${error.message}`, {
    hint: error.facedHint,
    conversationId: error.conversationId,
    status: error.status,
    serviceCode: error.serviceCode,
    cause: error,
  });
}

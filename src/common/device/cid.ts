/**
 * Conversation ids of the device request format (docs/design.md 2.4, spec/device-requests-sdks.md):
 * `CID|<deviceId>|<epoch ms>|<Base64 of 4 random bytes>` in the v2.3 dialect, the same with
 * `|<version>` (`2.4.0`) in v2.4. The nonce may come with or without its `==` padding (the Java
 * SDK strips it). The cid is also the AAD of the envelope, so client and service must agree on
 * it byte for byte: the service uses it exactly as sent.
 */
import { publicRandomBytes } from '../encoding/random-pool.js';
import type { ApiVersion } from './api-version.js';

/** How far a cid's time may be from the service's clock. */
export const CID_MAX_SKEW_MS = 5 * 60 * 1000;

/** The version field a v2.4 cid carries (the SDKs send `2.4.0`). */
const CID_VERSION: Record<ApiVersion, string | undefined> = { '2.3': undefined, '2.4': '2.4.0' };

export function makeCid(
  deviceId: string,
  version: ApiVersion = '2.4',
  nowMs = Date.now(),
  nonce = publicRandomBytes(4),
): string {
  const parts = ['CID', deviceId, String(nowMs), nonce.toString('base64')];
  const field = CID_VERSION[version];
  return (field === undefined ? parts : [...parts, field]).join('|');
}

export interface ParsedCid {
  deviceId: string;
  timeMs: number;
  /** The version field of a five-part cid, as sent. */
  version?: string;
}

/** A version field names a dialect the service speaks: `2.3` or `2.4`, with or without a patch. */
const SERVED_VERSION = /^2\.[34](?:\.\d{1,4})?$/;

/** The parts of a cid, or undefined when it is not of the forms above. */
export function parseCid(cid: string): ParsedCid | undefined {
  const parts = cid.split('|');
  if (parts.length !== 4 && parts.length !== 5) return undefined;
  const [tag, deviceId, time, nonce, version] = parts as [string, string, string, string, string?];
  if (tag !== 'CID' || deviceId === '' || !/^\d{1,16}$/.test(time)) return undefined;
  // 4 bytes in standard Base64 are 6 characters and `==`, which some clients leave out.
  if (!/^[A-Za-z0-9+/]{5}[AQgw](?:==)?$/.test(nonce)) return undefined;
  if (version !== undefined && !SERVED_VERSION.test(version)) return undefined;
  return { deviceId, timeMs: Number(time), ...(version === undefined ? {} : { version }) };
}

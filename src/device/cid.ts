/**
 * Conversation ids of the device request format (docs/design.md 2.4):
 * `CID|<deviceId>|<epoch ms>|<Base64 of 4 random bytes>`. The cid is also the AAD of the
 * envelope, so client and service must agree on it byte for byte.
 */
import { randomBytes } from 'node:crypto';

/** How far a cid's time may be from the service's clock. */
export const CID_MAX_SKEW_MS = 5 * 60 * 1000;

export function makeCid(deviceId: string, nowMs = Date.now(), nonce = randomBytes(4)): string {
  return ['CID', deviceId, String(nowMs), nonce.toString('base64')].join('|');
}

export interface ParsedCid {
  deviceId: string;
  timeMs: number;
}

/** The parts of a cid, or undefined when it is not of the form above. */
export function parseCid(cid: string): ParsedCid | undefined {
  const parts = cid.split('|');
  if (parts.length !== 4) return undefined;
  const [tag, deviceId, time, nonce] = parts as [string, string, string, string];
  if (tag !== 'CID' || deviceId === '' || !/^\d{1,16}$/.test(time)) return undefined;
  // 4 bytes in standard Base64 are always 8 characters ending in `==`.
  if (!/^[A-Za-z0-9+/]{6}==$/.test(nonce)) return undefined;
  return { deviceId, timeMs: Number(time) };
}

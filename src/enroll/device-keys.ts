/**
 * Where device key pairs come from. A module of its own, light to load, so `ksctl enroll` can
 * start the RSA-3072 generation (seconds) before it loads anything else. Tests swap in a
 * pre-generated pair; there is deliberately no flag for that.
 */
import { type DeviceKeyPair, generateDeviceKeyPair } from './protocol.js';

export const deviceKeySource: { generate: () => Promise<DeviceKeyPair> } = {
  generate: generateDeviceKeyPair,
};

// @ts-check
/** The Devices page's data: the enrolled devices, and one with its keys and messages. */
import { get } from './api.js';

/** @typedef {import('../../src/common/mock/wire.js').ConsoleDevices} ConsoleDevices */
/** @typedef {import('../../src/common/mock/wire.js').ConsoleDevice} ConsoleDevice */
/** @typedef {import('../../src/common/mock/wire.js').ConsoleDeviceDetail} ConsoleDeviceDetail */
/** @typedef {import('../../src/common/mock/wire.js').ConsoleDeviceKey} ConsoleDeviceKey */
/** @typedef {import('../../src/common/mock/wire.js').ConsoleDeviceMessage} ConsoleDeviceMessage */

export const readDevices = async () => /** @type {ConsoleDevices} */ (await get('devices'));

/** @param {string} id */
export const readDevice = async (id) =>
  /** @type {Partial<ConsoleDeviceDetail>} */ (await get(`devices/${encodeURIComponent(id)}`));

/** The Requests page's route to a device's requests. @param {string} id */
export const requestsOf = (id) => `#/requests?device=${encodeURIComponent(id)}`;

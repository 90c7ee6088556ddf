/** Keyspaces in the enrollment protocol: their form (a setting's, src/client/config) and new device ids. */
import { randomUUID } from 'node:crypto';

export { assertKeyspace, isKeyspace, keyspaceOfDeviceId } from './keyspace.js';

/** A new device id in the form the service uses, for the mock. */
export function newDeviceId(keyspace: string): string {
  return `${keyspace}.1.${randomUUID()}`;
}

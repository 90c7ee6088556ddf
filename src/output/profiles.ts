import type { ProfileRow } from '../profiles/operations.js';

/** The fields of one profile as `enroll` and `profiles show` print them. */
export function profileFields(row: ProfileRow): [string, string][] {
  return [
    // A profile written without a name (the vendor's samples do that) goes by its device id.
    ['Name', row.name ?? row.deviceId],
    ['Device ID', row.deviceId],
    ['Keyspace', row.keyspace],
    ['Server', row.server],
    ['Created', row.created ?? ''],
    ['Active', row.active ? 'yes' : 'no'],
  ];
}

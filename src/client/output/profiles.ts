import type { ProfileRow } from '../profiles/operations.js';
import { type Cell, isoCell } from './render.js';

/** When a profile was created, as a table cell (relative on a terminal). */
export function createdCell(row: ProfileRow): Cell {
  return row.created === null ? '' : isoCell(row.created);
}

/** The fields of one profile as `enroll` and `profiles show` print them. */
export function profileFields(row: ProfileRow): [string, Cell][] {
  return [
    // A profile written without a name (the vendor's samples do that) goes by its device id.
    ['Name', row.name ?? row.deviceId],
    ['Device ID', row.deviceId],
    ['Keyspace', row.keyspace],
    ['Server', row.server],
    ['Created', createdCell(row)],
    ['Active', row.active ? 'yes' : 'no'],
  ];
}

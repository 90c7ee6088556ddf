import { randomBytes } from 'node:crypto';
import type { Profile } from '../../src/client/profiles/types.js';

/** A profile with fresh random keys; the index makes its device id, name and time distinct. */
export function testProfile(index: number, keyspace = 'ABcd'): Profile {
  return {
    name: `profile-${index}`,
    deviceId: `${keyspace}.1.00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    server: 'https://api.example.test',
    aesCdIdcKey: randomBytes(32),
    aesCdEiKey: randomBytes(32),
    creationTimestamp: 1_763_780_000 + index,
  };
}

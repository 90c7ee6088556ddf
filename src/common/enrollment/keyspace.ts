/** The keyspace setting's form: 4 letters or digits (docs/design.md 2). */
import { InputError } from '../errors.js';

const KEYSPACE = /^[A-Za-z0-9]{4}$/;

export function isKeyspace(text: unknown): text is string {
  return typeof text === 'string' && KEYSPACE.test(text);
}

/** Returns the keyspace unchanged, or throws InputError before anything is sent. */
export function assertKeyspace(text: string): string {
  if (!isKeyspace(text)) {
    throw new InputError(
      `invalid keyspace ${JSON.stringify(text)}: a keyspace is 4 letters or digits`,
      {
        hint: 'use the keyspace your enrollment portal or key naming lookup gave, e.g. ABcd',
      },
    );
  }
  return text;
}

/** Device ids look like `ABcd.1.<uuid>`; the keyspace is the part before the first dot. */
export function keyspaceOfDeviceId(deviceId: string): string | undefined {
  const dot = deviceId.indexOf('.');
  const keyspace = dot < 0 ? deviceId : deviceId.slice(0, dot);
  return dot > 0 && isKeyspace(keyspace) ? keyspace : undefined;
}

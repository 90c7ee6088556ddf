/**
 * What a recording's messages hold, read the same way by the replay and by the starting state it
 * infers: a message's text (Base64 or not), whether the recording kept it whole, its JSON, the
 * markings path of a request, and the markings and values an answer body holds.
 */
import type { JournalMessage } from '../../common/mock/wire.js';

export function text(message: JournalMessage): string {
  return message.encoding === 'base64'
    ? Buffer.from(message.body, 'base64').toString('utf8')
    : message.body;
}

/** Whether the recording kept the whole of a message (a dropped one kept nothing). */
export const whole = (m: JournalMessage) => !m.truncated && m.dropped !== true;

export function parsed(message: JournalMessage): unknown {
  const body = text(message);
  if (body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** The markings path under the base URL: `/v2/acme/markings/1?x=y` → `/markings/1?x=y`. */
export function markingsPath(path: string): string | undefined {
  return /^[^?]*?(\/markings(?:[/?].*)?)$/.exec(path)?.[1];
}

export type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The markings and values an answer body holds (a marking, a listing, a bulk answer, a value). */
export function* markingsIn(body: unknown): Iterable<Json> {
  const items = Array.isArray(body)
    ? body
    : isObject(body) && Array.isArray(body.Resources)
      ? body.Resources
      : [body];
  for (const item of items) if (isObject(item) && typeof item.name === 'string') yield item;
}

/**
 * A device answer sealed in slices (pacing.ts): the content's JSON text is made piece by piece,
 * encrypted and Base64-encoded as it grows, so an answer of 5,000 keys or 100,000 ids (megabytes)
 * never holds the mock for the tens of milliseconds that one JSON.stringify, one encryption and
 * one encoding of the whole take. The envelope is the one sealEnvelope makes: 16-byte IV ||
 * AES-256-GCM(content) || 16-byte tag, the cid as AAD, in Base64.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { GCM_IV_BYTES, GCM_TAG_BYTES } from '../../encoding/gcm-envelope.js';
import type { MockResponse } from '../http.js';
import type { Pacer } from '../pacing.js';

/** Arrays and objects of at most this many plain members are written whole. */
const WHOLE_UP_TO = 16;
/** Text gathered before it is encrypted. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The JSON text of `value`, in pieces that join to exactly what JSON.stringify writes for the
 * plain data of an answer (objects, arrays, strings, numbers, booleans, null; members that are
 * undefined left out as JSON.stringify leaves them out). Small objects and arrays of plain values
 * (a key, say) are one piece; anything larger is written member by member.
 */
export function* jsonPieces(value: unknown): Generator<string> {
  if (Array.isArray(value) && !writtenWhole(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ',';
      const item: unknown = value[i];
      if (item === undefined || typeof item === 'function') yield 'null';
      else yield* jsonPieces(item);
    }
    yield ']';
  } else if (isPlainObject(value) && !writtenWhole(Object.values(value))) {
    yield '{';
    let first = true;
    for (const [name, member] of Object.entries(value)) {
      if (member === undefined || typeof member === 'function') continue;
      yield `${first ? '' : ','}${JSON.stringify(name)}:`;
      first = false;
      yield* jsonPieces(member);
    }
    yield '}';
  } else {
    yield JSON.stringify(value) ?? 'null';
  }
}

function writtenWhole(members: unknown[]): boolean {
  return (
    members.length <= WHOLE_UP_TO &&
    members.every((member) => typeof member !== 'object' || member === null)
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Base64 of bytes that arrive in chunks of any length: whole groups of three as they come. */
class Base64Writer {
  readonly parts: string[] = [];
  private rest = Buffer.alloc(0);

  write(bytes: Buffer): void {
    const all = this.rest.length === 0 ? bytes : Buffer.concat([this.rest, bytes]);
    const whole = all.length - (all.length % 3);
    this.parts.push(all.subarray(0, whole).toString('base64'));
    this.rest = Buffer.from(all.subarray(whole));
  }

  end(): string {
    this.parts.push(this.rest.toString('base64'));
    return this.parts.join('');
  }
}

/** The 200 answer `{cid, envelope}` of a device request, its content sealed in slices. */
export async function sealedAnswer(
  idcKey: Buffer,
  cid: string,
  content: unknown,
  pacer: Pacer,
): Promise<MockResponse> {
  const iv = randomBytes(GCM_IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', idcKey, iv, { authTagLength: GCM_TAG_BYTES });
  cipher.setAAD(Buffer.from(cid, 'utf8'));
  const base64 = new Base64Writer();
  base64.write(iv);
  let text = '';
  for (const piece of jsonPieces(content)) {
    text += piece;
    if (text.length >= CHUNK_CHARS) {
      base64.write(cipher.update(text, 'utf8'));
      text = '';
    }
    if (pacer.due()) await pacer.pause();
  }
  base64.write(Buffer.concat([cipher.update(text, 'utf8'), cipher.final(), cipher.getAuthTag()]));
  // Base64 needs no escaping in JSON: the body is written as it stands.
  return {
    status: 200,
    text: `{"cid":${JSON.stringify(cid)},"envelope":"${base64.end()}"}`,
    headers: { 'content-type': 'application/json' },
  };
}

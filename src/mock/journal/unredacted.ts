/**
 * An exchange's messages between the answer and their redaction. Redacting both messages of a
 * large exchange (64 KiB of each body scanned twice) costs a millisecond or more; when eight
 * clients' answers ended in one turn of the event loop, their redactions held health checks for
 * tens of milliseconds (issue 34). So recording only copies what will be kept (`take`), and the
 * redaction (`redact`) runs later: in slices beside the other clients' work, or at once when
 * something reads the message first. What is copied here is never given out as it is.
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  bodyDigest,
  type JournalSecrets,
  mayWithhold,
  type RedactedMessage,
  redactMessage,
} from './redaction.js';

/** Bytes read past the cut so that a secret the cut splits is still found and replaced. */
const SECRET_LOOKAHEAD_BYTES = 4 * 1024;

/** A body as it is kept: redacted, as a Latin-1 string of at most the kept bytes. */
export interface KeptMessage extends RedactedMessage {
  /** More than the kept bytes came. */
  truncated: boolean;
}

/** A message's headers and the first bytes of its body as they came, not yet redacted. */
export interface TakenMessage {
  headers: IncomingHttpHeaders | Record<string, string>;
  /** The first kept bytes and the lookahead, as a Latin-1 string; undefined without a body. */
  bytes: string | undefined;
  /** More than the kept bytes came. */
  truncated: boolean;
  /** The whole body's digest, taken when it may have to be withheld (mayWithhold). */
  digest: string | undefined;
}

/**
 * The first `max` bytes of the chunks as a Latin-1 string (one character a byte): a copy of its
 * own, made on the JavaScript heap, which costs less than a buffer of its own for each request.
 * A chunk that is already bytes as Latin-1 text is kept as it is when whole (it holds nothing
 * but itself), copied when cut (a slice would hold the whole).
 */
export function firstBytes(chunks: readonly (Uint8Array | string)[], max: number): string {
  let out = '';
  let left = max;
  for (const chunk of chunks) {
    if (left <= 0) break;
    const take = Math.min(chunk.length, left);
    if (typeof chunk === 'string') {
      out +=
        take === chunk.length
          ? chunk
          : Buffer.from(chunk.slice(0, take), 'latin1').toString('latin1');
    } else {
      const buffer =
        chunk instanceof Buffer ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
      out += buffer.toString('latin1', 0, take);
    }
    left -= take;
  }
  return out;
}

function chunksSize(chunks: readonly (Uint8Array | string)[]): number {
  let size = 0;
  for (const chunk of chunks) size += chunk.length;
  return size;
}

/** What recording keeps of a message until it is redacted: nothing holds the whole body. */
export function take(
  headers: IncomingHttpHeaders | Record<string, string>,
  chunks: readonly (Uint8Array | string)[] | undefined,
  keptBytes: number,
): TakenMessage {
  if (chunks === undefined)
    return { headers, bytes: undefined, truncated: false, digest: undefined };
  return {
    headers,
    bytes: firstBytes(chunks, keptBytes + SECRET_LOOKAHEAD_BYTES),
    truncated: chunksSize(chunks) > keptBytes,
    digest: mayWithhold(headers) ? bodyDigest(chunks) : undefined,
  };
}

/** The message as the journal keeps it, redacted (redaction.ts), its body cut to `keptBytes`. */
export function redact(
  secrets: JournalSecrets,
  message: TakenMessage,
  keptBytes: number,
): KeptMessage {
  const body =
    message.bytes === undefined
      ? undefined
      : { bytes: message.bytes, cut: keptBytes, digest: message.digest };
  return { ...redactMessage(secrets, message.headers, body), truncated: message.truncated };
}

/**
 * A taken message's size while it waits, as the queue's bound counts it: its body's first bytes
 * (the headers are the request's own object, a few hundred bytes, not copied).
 */
export function takenSize(message: TakenMessage): number {
  return message.bytes?.length ?? 0;
}

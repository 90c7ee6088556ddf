/**
 * How the mock server writes an answer: the body's bytes (a large JSON body made in slices), the
 * headers as Node will take them, and what was written, for the request journal.
 */
import type { ServerResponse } from 'node:http';
import type { MockResponse } from '../kit/http.js';
import { jsonSlices, jsonTextAtOnce } from '../kit/json-pieces.js';
import { Pacer } from '../kit/pacing.js';
import { errorAnswer, writableHeaders } from '../request/request.js';

/**
 * An answer's body as written, in chunks of bytes. A string chunk is bytes as Latin-1 text, one
 * character a byte: the form of a text whose UTF-8 is ASCII (the same bytes, not encoded again),
 * which Node writes in one go with the answer's head, and the request journal keeps as it is.
 */
export type BodyChunks = readonly (Buffer | string)[];

/**
 * The answer's body (no chunks without a body): a large JSON body made in slices
 * (json-pieces.ts), so a body of tens of megabytes never holds the mock.
 */
export async function bodyBytes(answer: MockResponse): Promise<BodyChunks> {
  if (answer.text === undefined && answer.body !== undefined) {
    const atOnce = jsonTextAtOnce(answer.body);
    return atOnce === undefined ? jsonSlices(answer.body, new Pacer()) : textBytes(atOnce);
  }
  return bytesNow(answer);
}

/** The body of a small answer (the mock's own 500), made at once. */
function bytesNow(answer: MockResponse): BodyChunks {
  if (answer.bytes !== undefined)
    return Buffer.isBuffer(answer.bytes) ? [answer.bytes] : answer.bytes;
  if (answer.text !== undefined) return textBytes(answer.text);
  if (answer.body !== undefined) return textBytes(JSON.stringify(answer.body));
  return [];
}

/** A text's UTF-8 bytes: the text itself when it is ASCII (one byte a character). */
function textBytes(text: string): BodyChunks {
  return [Buffer.byteLength(text, 'utf8') === text.length ? text : Buffer.from(text, 'utf8')];
}

/** An answer as written: its status, headers as sent and body bytes. */
export interface Written {
  status: number;
  headers: Record<string, string>;
  /** The body's text; undefined when there is none. */
  readonly body: string | undefined;
  chunks: BodyChunks;
  bytes: number;
}

/**
 * Writes the answer. A header Node refuses to write (a character outside Latin-1, say in a
 * Location built from an odd tenant id) is sent percent-encoded; if writing still fails, the
 * client gets a bare 500 error body, and a connection that cannot take even that is closed.
 * `last`: the connection closes after this answer. Undefined when nothing could be written.
 */
export function sendAnswer(
  res: ServerResponse,
  cid: string,
  answer: MockResponse,
  bytes: BodyChunks | undefined,
  last: boolean,
): Written | undefined {
  if (res.headersSent || res.destroyed) return undefined;
  if (last) answer = { ...answer, headers: { ...answer.headers, connection: 'close' } };
  try {
    if (bytes === undefined) throw new Error('no body');
    return writeAnswer(res, cid, answer, bytes);
  } catch {
    try {
      const fallback = errorAnswer(cid, new Error('the answer could not be written'), '');
      res.statusMessage = '';
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      return writeAnswer(res, cid, fallback, bytesNow(fallback));
    } catch {
      res.destroy();
      return undefined;
    }
  }
}

function writeAnswer(
  res: ServerResponse,
  cid: string,
  answer: MockResponse,
  bytes: BodyChunks,
): Written {
  const headers: Record<string, string> = { 'x-conversation-id': cid, ...answer.headers };
  if (answer.stream) {
    if (answer.reason) res.statusMessage = answer.reason;
    const sent = writableHeaders(headers);
    res.writeHead(answer.status, sent);
    answer.stream(res);
    return { status: answer.status, headers: sent, body: undefined, chunks: [], bytes: 0 };
  }
  if (answer.text !== undefined) headers['content-type'] ??= 'text/plain; charset=utf-8';
  else if (answer.body !== undefined) headers['content-type'] = 'application/json';
  // Bytes, or bytes as Latin-1 text: Node writes a string body in one write with the head, in
  // the body's encoding, and in UTF-8 a Latin-1 conversation id would not be echoed byte for byte.
  const length = bytes.reduce((sum, chunk) => sum + chunk.length, 0);
  headers['content-length'] = String(length);
  if (answer.reason) res.statusMessage = answer.reason;
  const sent = writableHeaders(headers);
  res.writeHead(answer.status, sent);
  for (const chunk of bytes.slice(0, -1)) res.write(chunk, 'latin1');
  res.end(bytes.at(-1), 'latin1');
  const hasBody =
    answer.text !== undefined || answer.body !== undefined || answer.bytes !== undefined;
  return {
    status: answer.status,
    headers: sent,
    chunks: bytes,
    bytes: length,
    get body() {
      if (!hasBody) return undefined;
      const buffers = bytes.map((chunk) =>
        typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk,
      );
      return Buffer.concat(buffers).toString('utf8');
    },
  };
}

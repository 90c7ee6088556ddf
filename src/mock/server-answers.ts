/**
 * How the mock server writes an answer: the body's bytes (a large JSON body made in slices), the
 * headers as Node will take them, and what was written, for the request journal.
 */
import type { ServerResponse } from 'node:http';
import type { MockResponse } from './http.js';
import { jsonChunks } from './json-pieces.js';
import { Pacer } from './pacing.js';
import { errorAnswer, writableHeaders } from './request.js';

/**
 * The answer's body as UTF-8 chunks (none without a body): a JSON body made in slices
 * (json-pieces.ts), so a body of tens of megabytes never holds the mock.
 */
export async function bodyBytes(answer: MockResponse): Promise<Buffer[]> {
  if (answer.text === undefined && answer.body !== undefined) {
    return jsonChunks(answer.body, new Pacer());
  }
  return bytesNow(answer);
}

/** The body of a small answer (the mock's own 500), made at once. */
function bytesNow(answer: MockResponse): Buffer[] {
  if (answer.bytes !== undefined) return [answer.bytes];
  if (answer.text !== undefined) return [Buffer.from(answer.text, 'utf8')];
  if (answer.body !== undefined) return [Buffer.from(JSON.stringify(answer.body), 'utf8')];
  return [];
}

/** An answer as written: its status, headers as sent and body bytes. */
export interface Written {
  status: number;
  headers: Record<string, string>;
  /** The body's text; undefined when there is none. */
  readonly body: string | undefined;
  chunks: Buffer[];
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
  bytes: Buffer[] | undefined,
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
  bytes: Buffer[],
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
  // Bytes, not a string: Node sends a string body in one write with the headers, all in UTF-8,
  // which would re-encode a Latin-1 conversation id instead of echoing its bytes.
  const length = bytes.reduce((sum, chunk) => sum + chunk.length, 0);
  headers['content-length'] = String(length);
  if (answer.reason) res.statusMessage = answer.reason;
  const sent = writableHeaders(headers);
  res.writeHead(answer.status, sent);
  for (const chunk of bytes.slice(0, -1)) res.write(chunk);
  res.end(bytes.at(-1));
  const hasBody =
    answer.text !== undefined || answer.body !== undefined || answer.bytes !== undefined;
  return {
    status: answer.status,
    headers: sent,
    chunks: bytes,
    bytes: length,
    get body() {
      return hasBody ? Buffer.concat(bytes).toString('utf8') : undefined;
    },
  };
}

/**
 * Raw HTTP/1.1 over a socket, for requests no HTTP client would send (malformed request lines,
 * odd header bytes, stalls). Every wait is bounded.
 */
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  /** 0 when the server closed the connection without answering. */
  status: number;
  headers: Record<string, string>;
  /** The head as Latin-1 text, so each byte is one character. */
  head: string;
  body: Buffer;
  /** The connection closed before the timeout. */
  closed: boolean;
}

/** Interim answers (`100 Continue`) come before the answer: they are skipped. */
function skipInterim(bytes: Buffer): Buffer {
  while (/^HTTP\/1\.1 1\d\d /.test(bytes.subarray(0, 13).toString('latin1'))) {
    const end = bytes.indexOf('\r\n\r\n');
    if (end < 0) return Buffer.alloc(0);
    bytes = bytes.subarray(end + 4);
  }
  return bytes;
}

function parse(all: Buffer, closed: boolean, headOnly: boolean): RawAnswer {
  const bytes = skipInterim(all);
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, head: '', body: Buffer.alloc(0), closed };
  const head = bytes.subarray(0, end).toString('latin1');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = headOnly ? 0 : Number(headers['content-length'] ?? 0);
  const body = bytes.subarray(end + 4, end + 4 + length);
  return { status: Number(statusLine!.split(' ')[1]), headers, head, body, closed };
}

/** The first answer complete in the bytes so far, if any. */
function complete(all: Buffer, head: boolean): boolean {
  const bytes = skipInterim(all);
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return false;
  if (head) return true;
  const match = /\r\ncontent-length:\s*(\d+)/i.exec(bytes.subarray(0, end).toString('latin1'));
  return bytes.length >= end + 4 + Number(match?.[1] ?? 0);
}

export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Sends `request` (Latin-1 text or bytes, or a function that writes to the socket) and resolves
 * with the first answer, or what there is when the server closes the connection or `timeoutMs`
 * passes. The socket is then closed. `head`: the answer to a HEAD request has no body.
 */
export async function rawRequest(
  port: number,
  request: string | Buffer | ((socket: Socket) => void),
  timeoutMs = 5_000,
  head = false,
): Promise<RawAnswer> {
  const socket = await openSocket(port);
  return new Promise((resolve) => {
    let bytes = Buffer.alloc(0);
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parse(bytes, closed, head));
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', (chunk) => {
      bytes = Buffer.concat([bytes, chunk]);
      if (complete(bytes, head)) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    if (typeof request === 'function') request(socket);
    else socket.write(typeof request === 'string' ? Buffer.from(request, 'latin1') : request);
  });
}

/** The JSON error body of an answer, or a failure message naming what came instead. */
export function errorOf(answer: RawAnswer): { cid: string; code: number; message: string } {
  const text = answer.body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`not a JSON body (status ${answer.status}): ${JSON.stringify(text)}`);
  }
  const error = (parsed as { error?: { cid: string; code: number; message: string } }).error;
  if (!error || typeof error.cid !== 'string' || error.cid === '') {
    throw new Error(`not an error body with a cid: ${text}`);
  }
  return error;
}

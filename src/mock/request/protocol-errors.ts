/**
 * Node's own HTTP protocol errors, answered with the JSON error body like every other error
 * (docs/design.md 3.2.1): Node's defaults send an empty, non-JSON answer or none.
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { MarkingsErrorCode } from '../../common/markings/wire.js';
import { conversationId, writableHeaders } from './request.js';

interface ProtocolAnswer {
  status: number;
  code: number;
  message: string;
}

function protocolAnswer(errorCode: string | undefined): ProtocolAnswer {
  switch (errorCode) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        code: MarkingsErrorCode.headersTooLarge,
        message: 'the request headers are too large',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return {
        status: 408,
        code: MarkingsErrorCode.requestTimeout,
        message: 'the request did not arrive in time',
      };
    default:
      return {
        status: 400,
        code: MarkingsErrorCode.badRequest,
        message: 'the request is not valid HTTP/1.1',
      };
  }
}

function errorJson(answer: ProtocolAnswer, cid: string): string {
  return JSON.stringify({ error: { cid, code: answer.code, message: answer.message } });
}

/**
 * The server's `clientError` handler: one JSON answer, then the connection is closed (the
 * parser's state after such an error cannot be trusted). A connection that is already gone, or
 * in the middle of an answer, is just closed.
 */
export function answerProtocolError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const busy = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage?.headersSent;
  if (error.code === 'ECONNRESET' || !socket.writable || busy) {
    socket.destroy();
    return;
  }
  const answer = protocolAnswer(error.code);
  // The request's own id cannot be trusted (or was never read): the answer gets a new one, in
  // the header every answer carries and in the body.
  const cid = randomUUID();
  const body = errorJson(answer, cid);
  socket.end(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n` +
      `X-Conversation-ID: ${cid}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/** The server's `checkExpectation` handler: an `Expect` other than 100-continue is a 417. */
export function answerUnmetExpectation(req: IncomingMessage, res: ServerResponse): void {
  const cid = conversationId(req);
  const body = errorJson(
    {
      status: 417,
      code: MarkingsErrorCode.expectationFailed,
      message: 'only "Expect: 100-continue" is supported',
    },
    cid,
  );
  res.shouldKeepAlive = false;
  try {
    const bytes = Buffer.from(body, 'utf8');
    res.writeHead(
      417,
      writableHeaders({
        'x-conversation-id': cid,
        'content-type': 'application/json',
        'content-length': String(bytes.length),
      }),
    );
    res.end(bytes);
  } catch {
    res.destroy();
  }
}

/**
 * Reading an answer's body within its cap (docs/design.md 5, README "Limits") and parsing it: JSON
 * when it says or looks so, the text otherwise.
 */
import { finished, type Readable } from 'node:stream';
import type { Dispatcher } from './transport.js';

export const MIB = 1024 * 1024;
/**
 * What an answer may hold (docs/design.md 5, README "Limits"): beyond it the body is not read further
 * and the command fails (exit 7) naming the limit, so an endless or enormous answer cannot take
 * ksctl's memory. The largest request the service takes is 32 MiB; listings are paged (a page
 * aims at 4 MiB) but a page of large markings may weigh more, so pages get a larger cap.
 */
export const ANSWER_MAX_BYTES = 32 * MIB;
export const LISTING_ANSWER_MAX_BYTES = 128 * MIB;
/** JSON nested deeper than this is refused: ksctl's readers of an answer are recursive. */
export const ANSWER_MAX_DEPTH = 256;

/** The answer's body went over its cap; not retried (the service would send it again). */
export class AnswerTooLarge extends Error {
  constructor(
    readonly limit: number,
    readonly declared?: number,
  ) {
    super('answer too large');
  }
}

export function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The content codings ksctl asks for (Accept-Encoding) and decodes, as a mature client does
 * (curl --compressed, gh): an answer in any other coding is refused, naming it.
 */
export const ACCEPTED_ENCODINGS = 'gzip, deflate, br';
const DECODERS = {
  gzip: 'createGunzip',
  'x-gzip': 'createGunzip',
  deflate: 'createInflate',
  br: 'createBrotliDecompress',
} as const;
type Coding = keyof typeof DECODERS;

/** The answer is in a content coding ksctl does not read, or its bytes do not decode as it says. */
export class AnswerNotDecodable extends Error {
  constructor(
    /** The Content-Encoding as sent. */
    readonly encoding: string,
    /** Why the bytes do not decode; undefined when the coding itself is unknown. */
    readonly reason?: string,
  ) {
    super(reason === undefined ? `unknown content coding ${encoding}` : reason);
  }
}

/**
 * The codings of a Content-Encoding in the order they were applied; `identity` is no coding.
 * Throws for one ksctl does not decode, before any byte is read.
 */
function contentCodings(header: string | undefined): Coding[] {
  const codings = (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  const unknown = codings.find((coding) => !Object.hasOwn(DECODERS, coding));
  if (unknown !== undefined) throw new AnswerNotDecodable(unknown);
  return codings as Coding[];
}

/**
 * The body as text, read chunk by chunk up to `limit` bytes; a larger declared length is refused
 * before reading. The rest of a body over the limit is never read: the connection is dropped. A
 * compressed body is decoded as it streams in, and the limit holds for the decoded bytes (and
 * for those on the wire), so a small answer that inflates without end stops at the limit.
 */
export async function readBody(response: Dispatcher.ResponseData, limit: number): Promise<string> {
  const declared = Number(headerText(response.headers['content-length']));
  if (Number.isFinite(declared) && declared > limit) {
    discard(response.body);
    throw new AnswerTooLarge(limit, declared);
  }
  const encoding = headerText(response.headers['content-encoding']);
  let codings: Coding[];
  try {
    codings = contentCodings(encoding);
  } catch (error) {
    discard(response.body);
    throw error;
  }
  if (codings.length === 0) return readWithin(response.body, limit);
  // Loaded only for a compressed answer: the service never sends one unasked, and a command's
  // start-up does without zlib.
  const [zlib, { pipeline }] = await Promise.all([import('node:zlib'), import('node:stream')]);
  let received = 0;
  let sourceFailure: unknown;
  response.body.once('error', (error: unknown) => (sourceFailure = error));
  response.body.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit) response.body.destroy(new AnswerTooLarge(limit));
  });
  // Codings are listed in the order they were applied: the last one is undone first.
  const decoders = codings.reverse().map((coding) => zlib[DECODERS[coding]]());
  pipeline([response.body, ...decoders], () => {});
  try {
    return await readWithin(decoders.at(-1)!, limit);
  } catch (error) {
    if (error instanceof AnswerTooLarge || error === sourceFailure) throw error;
    // No byte at all (a HEAD, a 204) is no body, whatever coding it names.
    if (received === 0) return '';
    throw new AnswerNotDecodable(encoding ?? '', (error as Error).message);
  }
}

/** Drops a body unread; the abort this reports is no news to anyone. */
function discard(body: Readable): void {
  body.on('error', () => {}).destroy();
}

/**
 * A stream's bytes as text, at most `limit` of them; the stream is destroyed beyond. Read as it
 * flows, with `finished` for its end and failures, as `for await` reads it but without an async
 * iterator made and driven for every answer.
 */
function readWithin(stream: Readable, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let tooLarge: AnswerTooLarge | undefined;
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (length > limit) {
        tooLarge = new AnswerTooLarge(limit);
        stream.off('data', onData);
        stream.destroy();
        return;
      }
      chunks.push(chunk);
    };
    stream.on('data', onData);
    finished(stream, { writable: false }, (error) => {
      if (tooLarge) reject(tooLarge);
      else if (error) reject(error);
      else resolve(Buffer.concat(chunks, length).toString('utf8'));
    });
  });
}

export function parseBody(text: string, contentType: string | string[] | undefined): unknown {
  const type = headerText(contentType);
  if (text.length === 0) return undefined;
  if (type?.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

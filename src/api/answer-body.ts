/**
 * Reading an answer's body within its cap (docs/design.md 5, README "Limits") and parsing it: JSON
 * when it says or looks so, the text otherwise.
 */
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
 * The body as text, read chunk by chunk up to `limit` bytes; a larger declared length is refused
 * before reading. The rest of a body over the limit is never read: the connection is dropped.
 */
export async function readBody(response: Dispatcher.ResponseData, limit: number): Promise<string> {
  const declared = Number(headerText(response.headers['content-length']));
  if (Number.isFinite(declared) && declared > limit) {
    response.body.destroy();
    throw new AnswerTooLarge(limit, declared);
  }
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of response.body) {
    const bytes = chunk as Buffer;
    length += bytes.length;
    if (length > limit) {
      response.body.destroy();
      throw new AnswerTooLarge(limit);
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, length).toString('utf8');
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

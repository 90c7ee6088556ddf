/**
 * What ksctl says of an answer it cannot take, whatever its status: one too large to read, one in
 * a content coding it does not read, a redirect (never followed). None is retried: the service
 * would answer the same again.
 */
import { ServiceError } from '../../common/errors.js';
import {
  ACCEPTED_ENCODINGS,
  type AnswerNotDecodable,
  type AnswerTooLarge,
  MIB,
} from './answer-body.js';
import { redactUrl } from '../../common/http/redact.js';

/** An answer over the most ksctl reads of one. */
export function tooLargeError(
  what: string,
  shownUrl: string,
  status: number,
  cid: string,
  error: AnswerTooLarge,
): ServiceError {
  const said =
    error.declared === undefined ? 'went on past' : `declared ${error.declared} bytes, over`;
  return new ServiceError(
    `${what}: the answer from ${shownUrl} (HTTP ${status}) ${said} ${error.limit / MIB} MiB, the most ksctl reads of one answer`,
    {
      hint: 'check the URL: the service pages its listings and never sends this much; a proxy or another server may be answering',
      conversationId: cid,
      status,
      cause: error,
    },
  );
}

/** An answer in a content coding ksctl does not read, or one that does not decode as it says. */
export function notDecodableError(
  what: string,
  shownUrl: string,
  status: number,
  cid: string,
  error: AnswerNotDecodable,
): ServiceError {
  const problem =
    error.reason === undefined
      ? `is in the content coding "${error.encoding}", which ksctl does not read (it asks for ${ACCEPTED_ENCODINGS})`
      : `says it is "${error.encoding}" encoded but does not decode (${error.reason})`;
  return new ServiceError(`${what}: the answer from ${shownUrl} (HTTP ${status}) ${problem}`, {
    hint: 'the service sends plain or gzip answers; a proxy or another server may be answering',
    conversationId: cid,
    status,
    cause: error,
  });
}

/**
 * Redirects are not followed: the Authorization header must not reach another origin, and a
 * moved service is worth knowing about. The error names where it points.
 */
export function redirectError(
  what: string,
  url: string,
  status: number,
  location: string | undefined,
  cid: string,
): ServiceError {
  // Origin and path only: a redirect's query may carry a one-time code or a token.
  let target: string | undefined;
  try {
    const parsed = location === undefined ? undefined : new URL(location, url);
    target = parsed === undefined ? undefined : `${parsed.origin}${parsed.pathname}`;
  } catch {
    target = undefined;
  }
  const where = target === undefined ? 'without a Location' : `to ${target}`;
  return new ServiceError(
    `${what}: ${redactUrl(url)} answered HTTP ${status}, a redirect ${where}; ksctl does not follow redirects`,
    {
      hint:
        target === undefined
          ? 'check the URL (--base-url, KSCTL_BASE_URL or the context)'
          : 'if you trust the new address, use it as the URL (--base-url, KSCTL_BASE_URL or the context)',
      conversationId: cid,
      status,
    },
  );
}

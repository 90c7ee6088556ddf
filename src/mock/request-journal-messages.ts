/**
 * An entry's messages as the journal gives them out: headers and body with their secrets redacted
 * (src/api/redact.ts, and the values the journal is told to scrub, the dev token), a body as UTF-8
 * text when it is, else base64.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { redactFormText, redactHeaders, redactJsonText, scrubSecrets } from '../api/redact.js';
import type { JournalMessage } from './wire.js';

export const bytesOf = (kept: string | undefined) =>
  kept === undefined ? undefined : Buffer.from(kept, 'latin1');

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The kept bytes as text when they are UTF-8 (a character the 64 KiB cut in two is left out),
 * else undefined.
 */
function utf8Text(bytes: Buffer, truncated: boolean): string | undefined {
  for (let cut = 0; cut <= (truncated ? 3 : 0) && cut <= bytes.length; cut++) {
    try {
      return UTF8.decode(bytes.subarray(0, bytes.length - cut));
    } catch {
      // a shorter prefix may end before a cut character
    }
  }
  return undefined;
}

function isForm(contentType: string | undefined): boolean {
  return /^application\/x-www-form-urlencoded/i.test(contentType ?? '');
}

/** Body text with its secrets redacted: JSON, a form, or anything with the known secrets. */
function redactBody(text: string, contentType: string | undefined, secrets: string[]): string {
  let out = text;
  if (/^\s*[[{]/.test(text)) out = redactJsonText(text);
  else if (isForm(contentType) || /^[^\s=&{}[\]"]+=[^\s]*$/.test(text)) out = redactFormText(text);
  return scrubSecrets(out, secrets);
}

function redactedHeaders(
  headers: IncomingHttpHeaders | Record<string, string>,
  secrets: string[],
): Record<string, string> {
  const out = redactHeaders(headers);
  for (const name of Object.keys(out)) out[name] = scrubSecrets(out[name]!, secrets);
  return out;
}

export function message(
  headers: IncomingHttpHeaders | Record<string, string> | undefined,
  body: Buffer | undefined,
  bytes: number,
  secrets: string[],
): JournalMessage {
  if (headers === undefined) {
    return { headers: {}, body: '', encoding: 'utf8', bytes, truncated: bytes > 0, dropped: true };
  }
  const kept = body ?? Buffer.alloc(0);
  const truncated = kept.length < bytes;
  const text = utf8Text(kept, truncated);
  const contentType = headers['content-type'];
  return {
    headers: redactedHeaders(headers, secrets),
    ...(text === undefined
      ? { body: kept.toString('base64'), encoding: 'base64' as const }
      : {
          body: redactBody(
            text,
            typeof contentType === 'string' ? contentType : undefined,
            secrets,
          ),
          encoding: 'utf8' as const,
        }),
    bytes,
    truncated,
  };
}

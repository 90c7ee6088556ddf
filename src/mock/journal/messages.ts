/**
 * An entry's messages as the journal gives them out, from what it kept (already redacted when
 * recorded, redaction.ts): a body as UTF-8 text when it is, else Base64; a body
 * that could not be scrubbed safely as its size and digest only.
 */
import type { JournalMessage } from '../../common/mock/wire.js';
import type { RedactedMessage } from './redaction.js';

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

/** A message as the journal gives it; `kept` undefined once its bytes were let go. */
export function message(
  kept: (RedactedMessage & { truncated: boolean }) | undefined,
  bytes: number,
): JournalMessage {
  if (kept === undefined) {
    return { headers: {}, body: '', encoding: 'utf8', bytes, truncated: bytes > 0, dropped: true };
  }
  const { headers, truncated } = kept;
  if (kept.withheld !== undefined) {
    return {
      headers: { ...headers },
      body: '',
      encoding: 'utf8',
      bytes,
      truncated,
      withheld: kept.withheld,
    };
  }
  const body = Buffer.from(kept.body ?? '', 'latin1');
  const text = utf8Text(body, truncated);
  return {
    headers: { ...headers },
    ...(text === undefined
      ? { body: body.toString('base64'), encoding: 'base64' as const }
      : { body: text, encoding: 'utf8' as const }),
    bytes,
    truncated,
  };
}

/**
 * A device answer sealed in slices (pacing.ts): the content's JSON text is made in chunks
 * (json-pieces.ts), encrypted and Base64-encoded chunk by chunk, so an answer of 5,000 keys or
 * 100,000 ids (megabytes) never holds the mock for the tens of milliseconds that one
 * JSON.stringify, one encryption and one encoding of the whole take. The envelope is the one
 * sealEnvelope makes (encoding/gcm-envelope.ts, its chunked sealer), the cid as AAD, in Base64.
 */
import { Base64Writer } from '../../../common/encoding/base64.js';
import { gcmEnvelopeSealer, sealGcmEnvelope } from '../../../common/encoding/gcm-envelope.js';
import type { MockResponse } from '../../kit/http.js';
import { jsonChunks } from '../../kit/json-pieces.js';
import type { Pacer } from '../../kit/pacing.js';

/** The 200 answer `{cid, envelope}` of a device request, its content sealed in slices. */
export async function sealedAnswer(
  idcKey: Buffer,
  cid: string,
  content: unknown,
  pacer: Pacer,
): Promise<MockResponse> {
  const aad = Buffer.from(cid, 'utf8');
  const chunks = await jsonChunks(content, pacer);
  let envelope: string;
  if (chunks.length === 1) {
    // Most answers (a few keys) are one chunk: sealed and encoded at once.
    envelope = sealGcmEnvelope(idcKey, aad, chunks[0]!).toString('base64');
  } else {
    const sealer = gcmEnvelopeSealer(idcKey, aad);
    const base64 = new Base64Writer();
    base64.write(sealer.start);
    for (const chunk of chunks) {
      base64.write(sealer.update(chunk));
      if (pacer.used()) await pacer.pause();
    }
    base64.write(sealer.end());
    envelope = base64.end();
  }
  // Base64 needs no escaping in JSON: the body is written as it stands.
  return {
    status: 200,
    text: `{"cid":${JSON.stringify(cid)},"envelope":"${envelope}"}`,
    headers: { 'content-type': 'application/json' },
  };
}

import type { Readable } from 'node:stream';

/** The whole of a stream (stdin for `-` arguments, secrets read from a pipe) as UTF-8 text. */
export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

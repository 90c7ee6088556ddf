/**
 * Ways to send a request over HTTPS that trust a CA the way other programs are told to trust the
 * mock's (the lines `mock serve --tls` prints), each a Transport for the independent device
 * client (sdk-device.ts):
 * - curl with `--cacert FILE`;
 * - Node's own `https` in a child process started with `NODE_EXTRA_CA_CERTS=FILE` and nothing
 *   else: the variable is read once, as a process starts, so it cannot be set inside vitest's.
 * Neither trusts anything the test process does, so a request that goes through shows that the
 * printed CA file and the served certificate fit together.
 */
import { spawn } from 'node:child_process';
import type { Transport } from './sdk-device.js';

interface Sent {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

/** What a refusal looks like: curl's exit code, or the Node error code, with its words. */
export class TransportRefused extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

function requestParts(init: RequestInit | undefined): {
  method: string;
  headers: [string, string][];
  body: Buffer | undefined;
} {
  const headers = [...new Headers(init?.headers).entries()];
  const body =
    init?.body === undefined || init.body === null
      ? undefined
      : Buffer.from(typeof init.body === 'string' ? init.body : String(init.body));
  return { method: init?.method ?? 'GET', headers, body };
}

function asResponse(sent: Sent): Response {
  const empty = sent.status === 204 || sent.status === 304;
  return new Response(empty ? null : new Uint8Array(sent.body), {
    status: sent.status,
    headers: sent.headers,
  });
}

function run(
  command: string,
  args: string[],
  input: Buffer,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'], timeout: 30_000 });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr }));
    child.stdin.end(input);
  });
}

/** curl --cacert `caFile`: the answer's status line and headers come first (-i). */
export function curlTransport(caFile: string): Transport {
  return async (url, init) => {
    const { method, headers, body } = requestParts(init);
    const args = ['-sS', '-i', '--cacert', caFile, '-X', method, '-H', 'Expect:'];
    for (const [name, value] of headers) args.push('-H', `${name}: ${value}`);
    if (body !== undefined) args.push('--data-binary', '@-');
    args.push(url);
    const { code, stdout, stderr } = await run('curl', args, body ?? Buffer.alloc(0));
    if (code !== 0)
      throw new TransportRefused(`curl exited ${code}: ${stderr.trim()}`, String(code));
    const end = stdout.indexOf('\r\n\r\n');
    const head = stdout.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(head[0] ?? '')?.[1]);
    const fields = head.slice(1).map((line): [string, string] => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
    });
    return asResponse({ status, headers: fields, body: stdout.subarray(end + 4) });
  };
}

/** Node's https with its default trust, in a process that reads one request on stdin. */
const RELAY = `
const https = require('node:https');
let input = '';
process.stdin.setEncoding('utf8').on('data', (t) => (input += t)).on('end', () => {
  const r = JSON.parse(input);
  const request = https.request(r.url, { method: r.method, headers: Object.fromEntries(r.headers) }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => {
      const headers = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2) headers.push([res.rawHeaders[i], res.rawHeaders[i + 1]]);
      process.stdout.write(JSON.stringify({ status: res.statusCode, headers, body: Buffer.concat(chunks).toString('base64') }));
    });
  });
  request.on('error', (e) => process.stdout.write(JSON.stringify({ error: e.code || e.message, message: e.message })));
  if (r.body !== undefined) request.write(Buffer.from(r.body, 'base64'));
  request.end();
});
`;

/** Node's own https, trusting `caFile` only through NODE_EXTRA_CA_CERTS. */
export function nodeExtraCaTransport(caFile: string): Transport {
  return async (url, init) => {
    const { method, headers, body } = requestParts(init);
    const request = JSON.stringify({ url, method, headers, body: body?.toString('base64') });
    // Nothing of the test process's own trust: the environment without NODE_OPTIONS.
    const { NODE_OPTIONS: _options, ...env } = process.env;
    const { code, stdout, stderr } = await run(
      process.execPath,
      ['-e', RELAY],
      Buffer.from(request),
      { ...env, NODE_EXTRA_CA_CERTS: caFile },
    );
    if (code !== 0) throw new Error(`the relay exited ${code}: ${stderr}`);
    const answer = JSON.parse(stdout.toString('utf8')) as
      | { status: number; headers: [string, string][]; body: string }
      | { error: string; message: string };
    if ('error' in answer) throw new TransportRefused(answer.message, answer.error);
    return asResponse({ ...answer, body: Buffer.from(answer.body, 'base64') });
  };
}

/**
 * Issue 17: no answer takes ksctl's memory or runs without end. A server in this process answers
 * as a broken or hostile one would (endless bodies, a huge Content-Length, a gzip bomb, JSON
 * nested 100,000 deep, a body that trickles, a 200 that is not a listing); the real `ksctl` is
 * spawned against it, and its exit code, its message and its peak RSS (written at exit by a
 * preload, test/helpers/peak-rss.ts) are checked.
 */
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { brotliCompressSync, createGzip, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_MAX_BYTES, LISTING_ANSWER_MAX_BYTES } from '../../src/client/api/answer-body.js';
import { assertBuilt, cleanEnv, ksctl } from '../helpers/spawn.js';
import { type PeakRss, peakRssProbe } from '../helpers/peak-rss.js';
import { tempDirs } from '../helpers/temp.js';
import { ONE_MARKING_LISTING } from '../helpers/listings.js';

const MIB = 1024 * 1024;
/** Beyond the bytes a cap lets in, what a command may take at most: ~200 MiB per the issue. */
const HEADROOM = 200 * MIB;

const temp = tempDirs();
let server: Server;
let base: string;
let dir: string;
let peak: PeakRss;
let gzipBomb: Buffer;
/** Every request's Accept-Encoding, by kind. */
const acceptEncoding = new Map<string, string | undefined>();

/** What each compressed kind sends: its Content-Encoding and bytes. */
const ENCODED: Record<string, [string, () => Buffer]> = {
  'gzip-listing': ['gzip', () => gzipSync(ONE_MARKING_LISTING)],
  'br-listing': ['br', () => brotliCompressSync(ONE_MARKING_LISTING)],
  'deflate-listing': ['deflate', () => deflateSync(ONE_MARKING_LISTING)],
  zstd: ['zstd', () => Buffer.from(ONE_MARKING_LISTING)],
  'x-foo': ['gzip, x-foo', () => gzipSync(ONE_MARKING_LISTING)],
  'gzip-corrupt': ['gzip', () => Buffer.from(ONE_MARKING_LISTING)],
};

/** 512 MiB of zeros, gzipped: about half a megabyte on the wire. */
async function makeGzipBomb(): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const parts: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => parts.push(chunk));
  const zeros = Buffer.alloc(MIB);
  for (let i = 0; i < 512; i++) {
    if (!gzip.write(zeros)) await once(gzip, 'drain');
  }
  gzip.end();
  await once(gzip, 'end');
  return Buffer.concat(parts);
}

/** Writes `chunk` until the client goes away or `maxBytes` are out; waits on back-pressure. */
async function endless(res: ServerResponse, chunk: Buffer, maxBytes: number): Promise<void> {
  for (let sent = 0; sent < maxBytes && !res.destroyed; sent += chunk.length) {
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done).off('close', done);
          resolve();
        };
        res.on('drain', done).on('close', done);
      });
    }
  }
  res.end();
}

beforeAll(async () => {
  assertBuilt();
  dir = await temp.make();
  peak = await peakRssProbe(dir);
  gzipBomb = await makeGzipBomb();
  server = createServer((req, res) => {
    const [, kind] = (req.url ?? '').split('/');
    res.on('error', () => {});
    acceptEncoding.set(kind ?? '', req.headers['accept-encoding']);
    const encoded = ENCODED[kind ?? ''];
    if (encoded) {
      const [encoding, bytes] = encoded;
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
      res.end(bytes());
      return;
    }
    switch (kind) {
      case 'endless': {
        // A listing whose first marking's name never ends: 3 GiB if nobody stops reading.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"totalResults":1,"Resources":[{"id":"x","name":"');
        void endless(res, Buffer.alloc(MIB, 'a'), 3 * 1024 * MIB);
        return;
      }
      case 'declared':
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(2 * 1024 * MIB),
        });
        res.write('{"totalResults":1,"Resources":[');
        return; // and never more
      case 'gzip':
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipBomb);
        return;
      case 'deep': {
        const depth = 100_000;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`${'['.repeat(depth)}${']'.repeat(depth)}`);
        return;
      }
      case 'slow':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"totalResults":1,');
        void (async () => {
          for (let i = 0; i < 600 && !res.destroyed; i++) {
            res.write(' ');
            await sleep(100);
          }
          res.end('"Resources":[]}');
        })();
        return;
      case 'not-a-listing':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"hello":"world"}');
        return;
      default:
        res.writeHead(404).end();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await temp.removeAll();
});

/** `ksctl ARGS` against `/KIND/v2/t`, with its exit, its error output and its peak RSS. */
async function run(kind: string, args: string[], timeoutS = 30) {
  const env = cleanEnv({
    KSCTL_CONFIG_DIR: dir,
    KSCTL_HOME: dir,
    KSCTL_BASE_URL: `${base}/${kind}/v2/t`,
    KSCTL_TOKEN: 'hostile-test-token',
    NODE_OPTIONS: peak.nodeOptions,
  });
  const exit = await ksctl([...args, '--timeout', String(timeoutS)], { env, timeoutMs: 60_000 });
  const rss = await peak.read();
  return { ...exit, rss };
}

describe('answers that would take ksctl without end (issue 17)', () => {
  it('an endless listing body: exit 7 at the listing cap, memory bounded by it', async () => {
    const { code, stderr, rss } = await run('endless', ['markings', 'list']);
    expect(stderr).toMatch(/went on past 128 MiB, the most ksctl reads of one answer/);
    expect(code).toBe(7);
    expect(rss).toBeLessThan(LISTING_ANSWER_MAX_BYTES + HEADROOM);
  });

  it('an endless answer to `ksctl api`: exit 7 at the answer cap', async () => {
    const { code, stderr, rss } = await run('endless', ['api', 'GET', '/markings/x']);
    expect(stderr).toMatch(/went on past 32 MiB/);
    expect(code).toBe(7);
    expect(rss).toBeLessThan(ANSWER_MAX_BYTES + HEADROOM);
  });

  it('a Content-Length of 2 GiB: refused before reading (exit 7)', async () => {
    const { code, stderr, rss } = await run('declared', ['markings', 'list']);
    expect(stderr).toMatch(/declared 2147483648 bytes, over 128 MiB/);
    expect(code).toBe(7);
    expect(rss).toBeLessThan(HEADROOM);
  });

  it('a gzip bomb is inflated only up to the listing cap (exit 7), memory bounded by it', async () => {
    const { code, stderr, rss } = await run('gzip', ['markings', 'list']);
    expect(stderr).toMatch(/went on past 128 MiB, the most ksctl reads of one answer/);
    expect(code).toBe(7);
    expect(rss).toBeLessThan(LISTING_ANSWER_MAX_BYTES + HEADROOM);
  });

  it('a gzip bomb to `ksctl api`: exit 7 at the answer cap, memory bounded by it', async () => {
    const { code, stdout, stderr, rss } = await run('gzip', ['api', 'GET', '/markings']);
    expect(stderr).toMatch(/went on past 32 MiB/);
    expect(stdout).toBe('');
    expect(code).toBe(7);
    expect(rss).toBeLessThan(ANSWER_MAX_BYTES + HEADROOM);
  });

  it.each(['gzip-listing', 'br-listing', 'deflate-listing'])(
    'a listing sent %s is decoded: `markings list` and `ksctl api` read it (issue 25)',
    async (kind) => {
      const list = await run(kind, ['markings', 'list', '-o', 'json']);
      expect(list.stderr).toBe('');
      expect(list.code).toBe(0);
      expect(JSON.parse(list.stdout)).toMatchObject([{ name: 'squeezed' }]);
      expect(acceptEncoding.get(kind)).toBe('gzip, deflate, br');
      const api = await run(kind, ['api', 'GET', '/markings']);
      expect(api.code).toBe(0);
      expect(JSON.parse(api.stdout)).toEqual(JSON.parse(ONE_MARKING_LISTING));
    },
  );

  it.each([
    ['zstd', 'zstd'],
    ['x-foo', 'x-foo'],
  ])(
    'an answer in the unknown coding %s is exit 7 naming it, never printed (issue 25)',
    async (kind, named) => {
      for (const args of [
        ['markings', 'list'],
        ['api', 'GET', '/markings'],
      ]) {
        const { code, stdout, stderr } = await run(kind, args);
        expect(stderr).toContain(`is in the content coding "${named}", which ksctl does not read`);
        expect(stdout).toBe('');
        expect(code).toBe(7);
      }
    },
  );

  it('an answer that says gzip but is not: exit 7, saying it does not decode (issue 25)', async () => {
    const { code, stdout, stderr } = await run('gzip-corrupt', ['api', 'GET', '/markings']);
    expect(stderr).toMatch(
      /says it is "gzip" encoded but does not decode \(incorrect header check\)/,
    );
    expect(stdout).toBe('');
    expect(code).toBe(7);
  });

  it('JSON nested 100,000 deep: a clear exit 7, no stack overflow', async () => {
    const { code, stderr } = await run('deep', ['api', 'GET', '/markings']);
    expect(stderr).toMatch(/nested deeper than 256 levels/);
    expect(stderr).not.toMatch(/call stack|RangeError|at .*\.js:\d+/);
    expect(code).toBe(7);
  });

  it('a body that trickles: cut off at the timeout (exit 7), not waited on for a minute', async () => {
    const { code, stderr } = await run('slow', ['markings', 'list'], 1);
    expect(stderr).toMatch(/cut short: timed out/);
    expect(code).toBe(7);
  });

  it('`ksctl status` checks the listing it reads, like `markings list` (exit 7)', async () => {
    const { code, stderr } = await run('not-a-listing', ['status']);
    expect(stderr + '').toMatch(/totalResults is missing|not what the service sends/);
    expect(code).toBe(7);
  });
});

/**
 * Listings and exports keep memory flat in the number of markings (issue 11): pages sized by
 * their bytes, one page fetched ahead and no more, output written as the markings arrive and
 * held back by a slow reader. Checked by what is requested and written when, never by timing.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, RequestOptions } from '../../src/client/api/client.js';
import { HttpMarkingsApi } from '../../src/client/markings/http-markings-api.js';
import type { Marking, MarkingInput } from '../../src/common/markings/wire.js';
import type { IOStreams } from '../../src/client/output/io.js';
import { writeJsonArray } from '../../src/client/output/streaming.js';
import { mockSuite } from '../helpers/mock-suite.js';

const BIG = 200;
const VALUES = 100;
const SMALL = 2400;

/** Seeded once for the file: no reset between tests. */
const suite = mockSuite({ resetEachTest: false });
const cli = suite.ksctl;

const names = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);

beforeAll(async () => {
  const { api } = suite;
  const values = names('value', VALUES).map((name) => ({ name, description: `about ${name}` }));
  const big: MarkingInput[] = names('big', BIG).map((name) => ({ name, detail: { values } }));
  const small: MarkingInput[] = names('small', SMALL).map((name) => ({ name }));
  for (const items of [big, small.slice(0, 1000), small.slice(1000, 2000), small.slice(2000)])
    await api.createOrUpdateMarkings(items, 0);
});

/** A reader that takes each chunk a turn of the event loop later, keeping what it read. */
class SlowReader extends Writable {
  readonly chunks: Buffer[] = [];
  constructor() {
    super({ highWaterMark: 16 * 1024 });
  }
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.chunks.push(chunk);
    setImmediate(done);
  }
}

describe('a listing through a slow reader', () => {
  it('asks for one page ahead, pages of about pageBytes, and never outruns the reader', async () => {
    const pageBytes = 64 * 1024;
    const stdout = new SlowReader();
    let handedOn = 0;
    let mostBuffered = 0;
    const requests: { skip: number; limit: number; handedOn: number }[] = [];
    const watching = {
      request: (method: string, path: string, options: RequestOptions) => {
        const { skip, limit } = options.query ?? {};
        requests.push({ skip: Number(skip), limit: Number(limit), handedOn });
        return suite.client.request(method, path, options);
      },
    } as unknown as ApiClient;
    const api = new HttpMarkingsApi(watching, { pageBytes });
    async function* watched(markings: AsyncIterable<Marking>) {
      for await (const marking of markings) {
        mostBuffered = Math.max(mostBuffered, stdout.writableLength);
        handedOn += 1;
        yield marking;
      }
    }
    const io = { stdout } as unknown as IOStreams;
    const listing = api.listMarkings({ name__startswith: 'big-' });
    expect(await writeJsonArray(io, watched(listing))).toBe(BIG);
    await new Promise<void>((resolve) => stdout.end(resolve));

    const output = Buffer.concat(stdout.chunks);
    const listed = JSON.parse(output.toString('utf8')) as Marking[];
    expect(listed.map((m) => m.name)).toEqual(names('big', BIG));
    expect(listed.every((m) => m.detail.values?.length === VALUES)).toBe(true);

    // Pages sized by their bytes: a page after the first holds what fits into pageBytes.
    const wireBytes = Math.min(...listed.map((m) => JSON.stringify(m).length));
    expect(requests.length).toBeGreaterThan(10);
    for (const { limit } of requests.slice(1))
      expect(limit).toBeLessThanOrEqual(Math.ceil(pageBytes / wireBytes));
    // One page ahead: each page is asked for when the one before has arrived, before any of that
    // one is handed on; never while an earlier page is still waiting to be written.
    for (const [i, request] of requests.entries())
      if (i > 0) expect(request.handedOn).toBe(requests[i - 1]!.skip);
    // The writer waits for the reader: what waits in the stream stays a chunk or two, not the
    // megabytes of the whole listing.
    expect(output.length).toBeGreaterThan(3 * 1024 * 1024);
    expect(mostBuffered).toBeLessThan(256 * 1024);
  });
});

describe('output written while the markings are still being read', () => {
  // The last answer the service gives comes after output has begun: nothing waits for every
  // marking before writing (only a table on a terminal must).
  it.each([
    ['json', ['markings', 'list', '--value-limit', '0', '-o', 'json']],
    ['yaml', ['markings', 'list', '--value-limit', '0', '-o', 'yaml']],
    ['a piped table', ['markings', 'list']],
    ['export', ['markings', 'export', '-o', 'json']],
  ])('%s', async (_format, argv) => {
    const { mock } = suite;
    let written = 0;
    const writtenAtAnswer: number[] = [];
    mock.onRequest = () => writtenAtAnswer.push(written);
    const result = await cli(argv, { onStdout: (chunk) => (written += chunk.length) });
    mock.onRequest = undefined;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(writtenAtAnswer.length).toBeGreaterThan(2);
    expect(writtenAtAnswer.at(-1)).toBeGreaterThan(0);
    expect(written).toBe(Buffer.byteLength(result.stdout));
    const lines = result.stdout.split('\n');
    expect(lines.filter((line) => /big-0199|small-2399/.test(line))).toHaveLength(2);
  });
});

describe('export --file, written while the markings are read', () => {
  it('leaves the previous file whole when reading fails half-way, and says why', async () => {
    const { mock } = suite;
    const dir = await suite.makeDir();
    const file = join(dir, 'markings.json');
    await writeFile(file, 'previous export\n');
    let answers = 0;
    // The first batch of markings has been read (and written to the temp file) by then.
    mock.onRequest = () => {
      if (++answers === 6)
        mock.server.state.faults.replace([
          { method: 'GET', path: `${new URL(mock.baseUrl).pathname}/markings`, status: 500 },
        ]);
    };
    const result = await cli(['markings', 'export', '-o', 'json', '--file', file, '--force']);
    mock.onRequest = undefined;
    mock.server.state.faults.replace([]);
    expect(answers).toBeGreaterThan(6);
    expect(result.code).toBe(7);
    expect(result.stderr).toMatch(/list markings/);
    expect(result.stderr).not.toMatch(/cannot write/);
    expect(await readFile(file, 'utf8')).toBe('previous export\n');
    expect(await readdir(dir)).toEqual(['markings.json']);
  });
});

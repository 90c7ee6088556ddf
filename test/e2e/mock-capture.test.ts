/**
 * `ksctl mock capture` (issue 32): a tenant's markings as a seed. A mock with 20,000 markings and
 * one of 100,000 values, captured and served again with `--seed`, exports the same byte for byte;
 * the capture's memory stays that of a batch; an answer that is not the markings shape is exit 3
 * with no file left behind; the seed holds no token or URL.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeedMarking } from '../../src/mock/model/seed.js';
import { type RunningCli, startCli } from '../helpers/cli.js';
import { peakRssProbe } from '../helpers/peak-rss.js';
import { prng } from '../helpers/random.js';
import { assertBuilt, cleanEnv, ksctl, serveMock, type ServedMock } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const MARKINGS = 20_000;
const BIG_VALUES = 100_000;

const dirs = tempDirs();
let dir: string;
let source: ServedMock;
const served: ServedMock[] = [];

/** Names YAML or JSON could misread, unicode, quotes and spaces: what a tenant may hold. */
function oddName(random: ReturnType<typeof prng>, i: number): string {
  const parts = [
    'true',
    'null',
    '- x',
    '#c',
    'a: b',
    '"q"',
    "it's",
    'ünï',
    '日本',
    '0x1F',
    '1e3',
    'a  b',
  ];
  return `${random.pick(parts)}${random.pick(parts)}-${i}`;
}

function tenantSeed(): { markings: SeedMarking[] } {
  const random = prng(32);
  const markings: SeedMarking[] = [];
  for (let i = 0; i < MARKINGS - 2; i++) {
    const values = Array.from({ length: random.int(4) }, (_, v) =>
      random.int(3) === 0 ? { name: `v${v}`, description: oddName(random, v) } : `v${v}`,
    );
    markings.push({
      name: i % 50 === 0 ? oddName(random, i) : `m-${String(i).padStart(5, '0')}`,
      ...(random.int(2) === 0 ? { description: `about ${i}: ${oddName(random, i)}` } : {}),
      ...(random.int(5) === 0 ? { public: true } : {}),
      ...(random.int(7) === 0 ? { adminOnly: true } : {}),
      ...(values.length > 0 && random.int(2) === 0
        ? { defaultValue: typeof values[0] === 'string' ? values[0] : values[0]!.name }
        : {}),
      values,
    });
  }
  markings.push({
    name: 'big',
    description: 'a hundred thousand values',
    values: Array.from({ length: BIG_VALUES }, (_, v) => `value-${String(v).padStart(6, '0')}`),
  });
  markings.push({ name: 'empty', values: [] });
  return { markings };
}

async function serve(seedFile: string): Promise<ServedMock> {
  const config = await dirs.make();
  const mock = await serveMock(['--seed', seedFile, '--no-context'], {
    env: cleanEnv({ KSCTL_CONFIG_DIR: config }),
    readyFile: join(config, 'ready.json'),
    readyTimeoutMs: 120_000,
  });
  served.push(mock);
  return mock;
}

const envOf = (mock: ServedMock, extra: Record<string, string> = {}) =>
  cleanEnv({
    KSCTL_CONFIG_DIR: dir,
    KSCTL_BASE_URL: mock.info.baseUrl,
    KSCTL_TOKEN: mock.info.token,
    ...extra,
  });

const exportOf = async (mock: ServedMock) => {
  const exit = await ksctl(['markings', 'export', '-o', 'json'], {
    env: envOf(mock),
    timeoutMs: 240_000,
  });
  expect(exit.stderr).toBe('');
  expect(exit.code).toBe(0);
  return exit.stdout;
};

beforeAll(async () => {
  assertBuilt();
  dir = await dirs.make();
  const seedFile = join(dir, 'tenant.json');
  await writeFile(seedFile, JSON.stringify(tenantSeed()));
  source = await serve(seedFile);
}, 180_000);

afterAll(async () => {
  await Promise.all(served.map((mock) => mock.stop()));
  await dirs.removeAll();
});

describe('ksctl mock capture', () => {
  it('captures 20,000 markings and one of 100,000 values in bounded memory, and a mock seeded with it exports the same byte for byte', async () => {
    const seed = join(dir, 'captured.yaml');
    const peak = await peakRssProbe(dir);
    const exit = await ksctl(['mock', 'capture', '--out', seed], {
      env: envOf(source, { NODE_OPTIONS: peak.nodeOptions }),
      timeoutMs: 240_000,
    });
    expect(exit.stdout).toBe('');
    expect(exit.code).toBe(0);
    // Piped stderr: a line at each tenth, then what was written where.
    expect(exit.stderr).toMatch(/^captured 2000 of 20,?000 markings$/m);
    expect(exit.stderr).toMatch(
      /^captured 20,?000 markings with [\d,]+ values to .*captured\.yaml; a mock with them: ksctl mock serve --seed /m,
    );
    expect(exit.stderr).not.toMatch(/\r/);
    // Measured at about 210 MiB, most of it the marking of 100,000 values (its value objects and
    // their YAML): memory follows the biggest marking, never the number of markings.
    expect(await peak.read()).toBeLessThan(256 * 1024 * 1024);

    const text = await readFile(seed, 'utf8');
    expect(text).not.toContain(source.info.token);
    expect(text).not.toContain(source.info.baseUrl);
    expect(text).not.toMatch(/token|https?:/i);

    const again = await serve(seed);
    const [before, after] = [await exportOf(source), await exportOf(again)];
    expect(JSON.parse(before).markings).toHaveLength(MARKINGS);
    expect(after).toBe(before);
  }, 600_000);

  it('writes JSON to stdout with -o json, which a mock takes as a seed', async () => {
    const exit = await ksctl(['mock', 'capture', '-o', 'json', '--quiet'], {
      env: envOf(source),
      timeoutMs: 240_000,
    });
    expect(exit.code).toBe(0);
    expect(exit.stderr).toBe('');
    const seed = JSON.parse(exit.stdout) as { markings: SeedMarking[] };
    expect(Object.keys(seed)).toEqual(['markings']);
    expect(seed.markings.find((m) => m.name === 'big')?.values).toHaveLength(BIG_VALUES);
    expect(seed.markings.find((m) => m.name === 'empty')).toEqual({ name: 'empty', values: [] });
  }, 300_000);
});

/**
 * A service that answers the way no markings service does, in front of the source mock: `html`
 * answers every request with a web page, `short` drops the last value of every marking sent with
 * its values while its count stays, `unlisted` sends a listing without `Resources` once a page of
 * markings has gone by.
 */
async function drifted(
  mode: 'html' | 'short' | 'unlisted',
): Promise<{ url: string; server: Server }> {
  const target = new URL(source.info.url);
  let pages = 0;
  const server = createServer((req, res) => {
    if (mode === 'html') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sign in</body></html>');
      return;
    }
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          let body = Buffer.concat(chunks).toString('utf8');
          const parsed = JSON.parse(body) as {
            Resources?: { detail: { values?: unknown[] } }[];
            detail?: { values?: unknown[] };
          };
          if (mode === 'short') {
            for (const marking of [...(parsed.Resources ?? []), parsed]) {
              if (marking.detail?.values && marking.detail.values.length > 0)
                marking.detail.values.pop();
            }
          } else if (parsed.Resources !== undefined && ++pages > 2) {
            delete parsed.Resources;
          }
          body = JSON.stringify(parsed);
          const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(body)) };
          delete headers['content-encoding'];
          res.writeHead(answer.statusCode ?? 502, headers).end(body);
        });
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}${new URL(source.info.baseUrl).pathname}`, server };
}

describe('ksctl mock capture stopped midway', () => {
  it('Ctrl-C: exit 130, the previous seed as it was, no temp file', async () => {
    const out = await dirs.make();
    const seed = join(out, 'seed.yaml');
    await writeFile(seed, 'markings: []\n');
    const running: RunningCli = startCli(['mock', 'capture', '--out', seed, '--force'], {
      env: {
        KSCTL_CONFIG_DIR: dir,
        KSCTL_BASE_URL: source.info.baseUrl,
        KSCTL_TOKEN: source.info.token,
      },
      // Stopped once the first tenth is written: the temp file is open and half full.
      onStderr: (chunk) => {
        if (chunk.toString().includes('captured 2000 of')) running.stop();
      },
    });
    expect(await running.exit).toBe(130);
    expect(running.stderr()).toMatch(/captured 2000 of/);
    expect(await readFile(seed, 'utf8')).toBe('markings: []\n');
    expect(await readdir(out)).toEqual(['seed.yaml']);
  }, 300_000);
});

describe('ksctl mock capture of an answer that is not the markings shape', () => {
  it.each(['html', 'short', 'unlisted'] as const)(
    '%s: exit 3 naming the problem, no file and no temp file left',
    async (mode) => {
      const { url, server } = await drifted(mode);
      try {
        const out = await dirs.make();
        const seed = join(out, 'seed.yaml');
        const exit = await ksctl(['mock', 'capture', '--out', seed], {
          env: cleanEnv({
            KSCTL_CONFIG_DIR: dir,
            KSCTL_BASE_URL: url,
            KSCTL_TOKEN: source.info.token,
          }),
          timeoutMs: 240_000,
        });
        expect(exit.code).toBe(3);
        expect(exit.stderr).toMatch(
          mode === 'short'
            ? /^error: the service answered marking ".+" with \d+ values of the \d+ it counts/m
            : /^error: .*is not what the service sends/m,
        );
        expect(exit.stderr).not.toMatch(/\n\s+at |bug/);
        expect(exit.stderr).not.toContain(source.info.token);
        expect(await readdir(out)).toEqual([]);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    },
    300_000,
  );
});

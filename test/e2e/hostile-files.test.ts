/**
 * Issue 17: a file under the size cap can still take memory by its shape, not its size: 4 MiB of
 * `- a` lines took 1.2 GiB to read, 4 MiB of `[[[[` 3.8 GiB and a stack overflow, one marking of
 * 380,000 values half a gigabyte. Each hostile shape is written here (a few MiB, by a seeded
 * generator), the real `ksctl` is run on it, and its exit code, its message and its peak RSS
 * (test/helpers/peak-rss.ts) are checked: at most HEADROOM beyond the same command on a small
 * file, or a clear refusal. A 100,000-marking export, YAML and JSON, still applies.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Marking } from '../../src/common/markings/wire.js';
import { exportDocument } from '../../src/client/apply/export.js';
import { MockServer } from '../../src/mock/server/server.js';
import { DEV_TOKEN } from '../helpers/mock.js';
import { prng } from '../helpers/random.js';
import { assertBuilt, cleanEnv, ksctl } from '../helpers/spawn.js';
import { type PeakRss, peakRssProbe } from '../helpers/peak-rss.js';
import { tempDirs } from '../helpers/temp.js';

const MIB = 1024 * 1024;
/** Beyond the same command on a small file, what a file may take at most: ~200 MiB per the issue. */
const HEADROOM = 200 * MIB;
/** Large enough for the path of large files (over 512 KiB), small enough to be quick. */
const SIZE = 4 * MIB;

const temp = tempDirs();
let dir: string;
let peak: PeakRss;
/** Peak RSS of each command on a small, valid file. */
const floor: Record<string, number> = {};
const random = prng(17);

/** Units of `unit(i)` joined by `separator` between `head` and `tail`, about SIZE in all. */
function fill(head: string, unit: (i: number) => string, tail: string, separator = ''): string {
  const count = Math.floor(
    (SIZE - head.length - tail.length) / (unit(0).length + separator.length),
  );
  return head + Array.from({ length: count }, (_, i) => unit(i)).join(separator) + tail;
}

/** A name of the generator's: 8 letters, so the file's text is not one repeated line. */
function word(i: number): string {
  let text = '';
  for (let k = 0; k < 6; k++) text += String.fromCharCode(97 + random.int(26));
  return `${text}${String(i % 100).padStart(2, '0')}`;
}

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

/** ksctl on a hostile file; `timeoutMs` ends the process before the test's own 60 s would. */
async function run(args: string[], extra: Record<string, string> = {}, timeoutMs = 50_000) {
  const env = cleanEnv({
    KSCTL_CONFIG_DIR: dir,
    KSCTL_HOME: dir,
    // Nothing listens there: files that read well end at the first request, exit 7.
    KSCTL_BASE_URL: 'http://127.0.0.1:9/v2/t',
    KSCTL_TOKEN: 'hostile-files',
    NODE_OPTIONS: peak.nodeOptions,
    ...extra,
  });
  const exit = await ksctl(args, { env, timeoutMs });
  return { ...exit, rss: await peak.read() };
}

const apply = (path: string) => ['markings', 'apply', '-f', path, '--dry-run'];

beforeAll(async () => {
  assertBuilt();
  dir = await temp.make();
  peak = await peakRssProbe(dir);
  const small = await file('small.yaml', 'markings:\n  - name: small\n    values: [a, b]\n');
  floor.apply = (await run(apply(small))).rss;
  const profiles = await file('small.pt', '{"activeDeviceId":"","profiles":[]}');
  floor.profiles = (await run(['profiles', 'list', '--persistor-path', profiles])).rss;
}, 60_000);
afterAll(() => temp.removeAll());

describe('hostile markings files: a clear exit 3, within the headroom', () => {
  const shapes: [string, () => string, RegExp][] = [
    [
      'dash.yaml',
      () => fill('markings:\n', () => '- a\n', ''),
      /markings\[\d+\]: a marking must be a mapping with at least a name, found the text "a"/,
    ],
    [
      'zeros.json',
      () => fill('{"markings":[', () => '0', ']}', ','),
      /markings\[0\]: a marking must be a mapping with at least a name, found the number 0/,
    ],
    [
      'strings.json',
      () => fill('{"markings":[', () => '"a"', ']}', ','),
      /a marking must be a mapping with at least a name, found the text "a"/,
    ],
    ['deep.json', () => '['.repeat(SIZE), /nested deeper than 64 levels of lists or mappings/],
    ['deep.yaml', () => `markings:\n${'- '.repeat(SIZE / 2)}a\n`, /nested deeper than 64 levels/],
    [
      'one-marking-many-values.json',
      () => fill('{"markings":[{"name":"m","values":[', (i) => `"${word(i)}"`, ']}]}', ','),
      /"m" lists [\d,]+ values; at most 100000 are allowed/,
    ],
    [
      'one-marking-many-values.yaml',
      () => fill('markings:\n  - name: m\n    values:\n', (i) => `      - ${word(i)}\n`, ''),
      /"m" lists [\d,]+ values; at most 100000 are allowed/,
    ],
    [
      'many-keys.json',
      () =>
        fill(
          '{"markings":[{"name":"m",',
          (i) => `"${word(i)}${String(i).padStart(7, '0')}":0`,
          '}]}',
          ',',
        ),
      /a mapping of more than 10,000 keys; a markings file never has one/,
    ],
    [
      'many-keys.yaml',
      () =>
        fill(
          'markings:\n  - name: m\n',
          (i) => `    ${word(i)}${String(i).padStart(7, '0')}: 0\n`,
          '',
        ),
      /many-keys\.yaml at line \d+: a mapping of more than 10,000 keys/,
    ],
    [
      'long-description.yaml',
      () => `markings:\n  - name: m\n    description: "${'d'.repeat(SIZE - 50)}"\n`,
      /description of marking "m" must be at most 4096 characters/,
    ],
    [
      'aliases.yaml',
      // Every entry the same anchored marking: each alias counts where it is used.
      () => fill('x: &x {name: m, values: [a, b, c]}\nmarkings:\n', () => '  - *x\n', ''),
      /more than 4,194,304 values \(lists, mappings, keys and scalars, aliases counted where they are used\)/,
    ],
    [
      'alias-bomb.yaml',
      // Ten to the twentieth values if aliases were copies, in a file padded past 512 KiB.
      () => {
        let text = `# ${'padding '.repeat(80_000)}\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n`;
        for (let i = 1; i < 20; i++) {
          text += `a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]\n`;
        }
        return `${text}markings: *a19\n`;
      },
      /unknown key "a0" in the top level/,
    ],
  ];

  it.each(shapes)('%s', async (name, text, says) => {
    const path = await file(name, text());
    const { code, stderr, rss } = await run(apply(path));
    expect(stderr).toMatch(says);
    expect(stderr).not.toMatch(/call stack|heap|\n\s+at /i);
    expect(code).toBe(3);
    expect(rss).toBeLessThan(floor.apply! + HEADROOM);
  });

  it('a large file with problems says where they are, and that it has no positions inside a marking', async () => {
    const entries = fill(
      'markings:\n',
      (i) => `  - name: ${word(i)}-${i}\n    values: [${i === 1000 ? '" bad"' : 'ok'}]\n`,
      '',
    );
    const path = await file('one-bad.yaml', entries);
    const { code, stderr } = await run(apply(path));
    expect(stderr).toMatch(
      /one-bad\.yaml:2002:5: markings\[1000\]\.values\[0\]: value name " bad" must not start or end with white space/,
    );
    expect(stderr).toMatch(/files over 512 KiB are read without positions inside a marking/);
    expect(code).toBe(3);
  });

  it('a file over its node budget under a lower KSCTL_MAX_INPUT_MIB, and the budget raised with it', async () => {
    const path = await file(
      'budget.yaml',
      fill('markings:\n', () => '- a\n', ''),
    );
    const refused = await run(apply(path), { KSCTL_MAX_INPUT_MIB: '4' });
    expect(refused.stderr).toContain(
      `${path}: more than 262,144 values (lists, mappings, keys and scalars, aliases counted where they are used), the most a markings file may hold`,
    );
    expect(refused.stderr).toMatch(/KSCTL_MAX_INPUT_MIB raises this limit with the size cap/);
    expect(refused.code).toBe(3);
    const raised = await run(apply(path), { KSCTL_MAX_INPUT_MIB: '32' });
    expect(raised.stderr).toMatch(/a marking must be a mapping/);
  });

  it('a marking document (markings create -f) of one marking with too many values', async () => {
    const path = await file(
      'document.yaml',
      fill('name: m\nvalues:\n', (i) => `  - ${word(i)}\n`, ''),
    );
    const { code, stderr, rss } = await run(['markings', 'create', '-f', path]);
    expect(stderr).toMatch(/"m" lists [\d,]+ values; at most 100000 are allowed/);
    expect(code).toBe(3);
    expect(rss).toBeLessThan(floor.apply! + HEADROOM);
  });
});

describe('hostile profile and seed files', () => {
  it.each([
    [
      'zeros.pt',
      () => fill('{"activeDeviceId":"","profiles":[', () => '0', ']}', ','),
      /more than 262,144 values/,
    ],
    [
      'empty.pt',
      () => fill('{"activeDeviceId":"","profiles":[', () => '{}', ']}', ','),
      /more than 262,144 values/,
    ],
    [
      'keys.pt',
      () =>
        fill(
          '{"activeDeviceId":"","profiles":[],"x":{',
          (i) => `"${word(i)}${String(i).padStart(7, '0')}":0`,
          '}}',
          ',',
        ),
      /a mapping of more than 10,000 keys; a profile file never has one/,
    ],
    ['deep.pt', () => '['.repeat(SIZE), /JSON nested deeper than 64 levels/],
  ])('profiles list on %s', async (name, text, says) => {
    const path = await file(name, text());
    const { code, stderr, rss } = await run(['profiles', 'list', '--persistor-path', path], {
      KSCTL_MAX_INPUT_MIB: '4',
    });
    expect(stderr).toMatch(says);
    expect(code).toBe(3);
    expect(rss).toBeLessThan(floor.profiles! + HEADROOM);
  });

  it('a seed of a million list items: refused by its node budget', async () => {
    const path = await file(
      'seed.yaml',
      fill('markings:\n', () => '- a\n', ''),
    );
    const { code, stderr } = await run(['mock', 'serve', '--port', '0', '--seed', path], {
      KSCTL_MAX_INPUT_MIB: '4',
    });
    expect(stderr).toMatch(/seed\.yaml: more than 262,144 values/);
    expect(code).toBe(3);
  });
});

describe('a large tenant', () => {
  const COUNT = 100_000;

  /** The wire form of marking `i`: a few values, some described, as a tenant has them. */
  function marking(i: number): Marking {
    const name = `${word(i)}-${String(i).padStart(6, '0')}`;
    const values = ['high', 'low', 'mid'].map((level, k) => ({
      id: `v${i}-${k}`,
      markingId: `m${i}`,
      name: `${level}-${i}`,
      description: k === 2 ? '' : `${level} for ${name}`,
      _createdTs: 0,
      _updatedTs: 0,
      _version: 1,
    }));
    return {
      id: `m${i}`,
      name,
      public: i % 2 === 0,
      adminOnly: i % 7 === 0,
      defaultValue: `low-${i}`,
      detail: { description: `marking ${i}`, valueCount: values.length, values },
      _createdTs: 0,
      _createdBy: 'test',
      _updatedTs: 0,
      _updatedBy: 'test',
      _version: 1,
    } as unknown as Marking;
  }

  it.each(['yaml', 'json'] as const)(
    'its %s export of 100,000 markings applies: nothing refused, every marking read',
    async (format) => {
      const markings = Array.from({ length: COUNT }, (_, i) => marking(i)).sort((a, b) =>
        a.name < b.name ? -1 : 1,
      );
      async function* listed() {
        yield* markings;
      }
      let text = '';
      for await (const chunk of exportDocument(listed(), format)) text += chunk;
      const path = await file(`export.${format}`, text);
      // The plan needs the service's markings: against a mock holding none, all are created.
      const server = await MockServer.start({ port: 0, devToken: DEV_TOKEN });
      try {
        // 10-40 s on a busy machine: what is judged is the outcome, not the time.
        const { code, stdout, stderr } = await run(
          [...apply(path), '-o', 'json'],
          { KSCTL_BASE_URL: server.info.url + '/v2/dev', KSCTL_TOKEN: DEV_TOKEN },
          150_000,
        );
        expect(stderr).not.toMatch(/more than|nested/);
        expect(code).toBe(0);
        expect(stdout).toContain(markings[COUNT - 1]!.name);
      } finally {
        await server.close();
      }
    },
    180_000,
  );
});

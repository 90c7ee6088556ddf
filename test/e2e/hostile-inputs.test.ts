/**
 * Issue 17: every file ksctl reads is a regular file under a cap (64 MiB for profile, markings
 * and --input files, KSCTL_MAX_INPUT_MIB raises it; 64 KiB for token and password files), or a
 * clear exit 3 naming the file and the cap, and the file is left as it was. `/dev/zero` used to
 * run `profiles list` to 23 GiB.
 */
import { execFileSync } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanEnv, ksctl } from '../helpers/spawn.js';
import { type PeakRss, peakRssProbe } from '../helpers/peak-rss.js';
import { tempDirs } from '../helpers/temp.js';

const MIB = 1024 * 1024;
const temp = tempDirs();
let dir: string;
let peak: PeakRss;

beforeAll(async () => {
  assertBuilt();
  dir = await temp.make();
  peak = await peakRssProbe(dir);
});
afterAll(() => temp.removeAll());

async function run(args: string[], extra: Record<string, string> = {}) {
  const env = cleanEnv({
    KSCTL_CONFIG_DIR: dir,
    KSCTL_HOME: dir,
    // Nothing listens there: every case must fail before a request.
    KSCTL_BASE_URL: 'http://127.0.0.1:9/v2/t',
    NODE_OPTIONS: peak.nodeOptions,
    ...extra,
  });
  const exit = await ksctl(args, { env, timeoutMs: 60_000 });
  return { ...exit, rss: await peak.read() };
}

describe('files that are not regular files are refused (exit 3), never read', () => {
  it.each([
    ['profiles list', ['profiles', 'list', '--persistor-path', '/dev/zero'], /profile file/],
    [
      'profiles convert',
      [
        'profiles',
        'convert',
        '--persistor-path',
        '/dev/zero',
        '--to-persistor',
        'plaintext',
        '--to-path',
        'x.pt',
      ],
      /profile file/,
    ],
    ['markings apply', ['markings', 'apply', '-f', '/dev/zero', '--dry-run'], /markings file/],
    ['markings create -f', ['markings', 'create', '-f', '/dev/zero'], /markings file/],
    ['api --input', ['api', 'POST', '/markings', '--input', '/dev/zero'], /request body/],
    ['--token-file', ['markings', 'list', '--token-file', '/dev/zero'], /token file/],
    ['mock serve --seed', ['mock', 'serve', '--port', '0', '--seed', '/dev/zero'], /seed file/],
  ])('%s /dev/zero', async (_name, args, what) => {
    const { code, stderr, rss } = await run(args);
    expect(stderr).toMatch(/\/dev\/zero is a character device/);
    expect(stderr).toMatch(what);
    expect(code).toBe(3);
    expect(rss).toBeLessThan(200 * MIB);
  });

  it('a FIFO is refused without waiting for a writer', async () => {
    const fifo = join(dir, 'markings.fifo');
    execFileSync('mkfifo', [fifo]);
    const { code, stderr } = await run(['markings', 'apply', '-f', fifo, '--dry-run']);
    expect(stderr).toMatch(/is a pipe; a markings file must be a regular file/);
    expect(code).toBe(3);
  });
});

describe('files over their cap are refused (exit 3) naming the file and the cap, left as they were', () => {
  it('a 2 MiB profile file under KSCTL_MAX_INPUT_MIB=1, and the same file read when the cap is raised', async () => {
    const path = join(dir, 'big.pt');
    const text = JSON.stringify({ activeDeviceId: '', profiles: [], pad: 'x'.repeat(2 * MIB) });
    await writeFile(path, text);
    const before = await stat(path);
    const refused = await run(['profiles', 'list', '--persistor-path', path], {
      KSCTL_MAX_INPUT_MIB: '1',
    });
    expect(refused.stderr).toContain(
      `${path}: ${text.length} bytes, more than the 1 MiB a profile file may be`,
    );
    expect(refused.stderr).toMatch(/set KSCTL_MAX_INPUT_MIB to a larger number/);
    expect(refused.code).toBe(3);
    expect(await readFile(path, 'utf8')).toBe(text);
    expect((await stat(path)).mtimeMs).toBe(before.mtimeMs);
    const raised = await run(['profiles', 'list', '--persistor-path', path, '-o', 'json'], {
      KSCTL_MAX_INPUT_MIB: '3',
    });
    expect(raised.stderr).not.toMatch(/more than/);
  });

  it('a markings file over the cap', async () => {
    const big = `markings:\n  - name: a\n    description: "${'d'.repeat(MIB)}"\n`;
    await writeFile(join(dir, 'one.yaml'), big);
    const one = await run(['markings', 'apply', '-f', join(dir, 'one.yaml'), '--dry-run'], {
      KSCTL_MAX_INPUT_MIB: '1',
    });
    expect(one.stderr).toMatch(/one\.yaml: \d+ bytes, more than the 1 MiB a markings file may be/);
    expect(one.code).toBe(3);
  });

  it('a token file over 64 KiB', async () => {
    const path = join(dir, 'token.txt');
    await writeFile(path, 't'.repeat(70_000));
    const { code, stderr } = await run(['markings', 'list', '--token-file', path]);
    expect(stderr).toContain(`${path}: 70000 bytes, more than the 64 KiB a token file may be`);
    expect(code).toBe(3);
  });

  it('a bad KSCTL_MAX_INPUT_MIB is a usage error', async () => {
    const { code, stderr } = await run(['markings', 'apply', '-f', '-', '--dry-run'], {
      KSCTL_MAX_INPUT_MIB: '64k',
    });
    expect(stderr).toMatch(/KSCTL_MAX_INPUT_MIB must be a whole number of MiB/);
    expect(code).toBe(2);
  });
});

describe('files that nest deeper than a parser recurses', () => {
  it('a profile file whose unknown member nests 100,000 deep: exit 3, not a stack overflow', async () => {
    const path = join(dir, 'deep.pt');
    const depth = 100_000;
    const profile = {
      name: 'd',
      deviceId: 'ABcd.1.00000000-0000-4000-8000-000000000000',
      server: 'http://127.0.0.1:9',
      aesCdIdcKey: '0'.repeat(64),
      aesCdEiKey: '1'.repeat(64),
      creationTimestamp: 1,
    };
    const text = JSON.stringify({ activeDeviceId: profile.deviceId, profiles: [profile] });
    await writeFile(
      path,
      text.replace(
        '"creationTimestamp":1',
        `"creationTimestamp":1,"x":${'['.repeat(depth)}${']'.repeat(depth)}`,
      ),
    );
    const args = [
      'profiles',
      'convert',
      '--persistor-path',
      path,
      '--to-persistor',
      'plaintext',
      '--to-path',
      join(dir, 'out.pt'),
    ];
    const { code, stderr } = await run(args);
    expect(stderr).toMatch(/is not a valid profile file: JSON nested deeper than 64 levels/);
    expect(stderr).not.toMatch(/call stack/i);
    expect(code).toBe(3);
  });

  it.each(['deep.json', 'deep.yaml'])(
    '%s, 100,000 levels: a clear problem, exit 3',
    async (name) => {
      const depth = 100_000;
      await writeFile(join(dir, name), `{"markings": ${'['.repeat(depth)}${']'.repeat(depth)}}`);
      const { code, stderr } = await run(['markings', 'apply', '-f', join(dir, name), '--dry-run']);
      expect(stderr).toMatch(/nested too deeply to read/);
      expect(stderr).not.toMatch(/call stack/i);
      expect(code).toBe(3);
    },
  );
});

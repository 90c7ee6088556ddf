/**
 * A reader that goes away early (`ksctl markings list | head -1`) ends every command quietly:
 * exit 0, nothing on stderr, no stack trace, and nothing the command made left behind (the demo's
 * folder). The lists are long enough (3,000 markings, 300 values) that writes outlast the reader.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cleanEnv, ksctl, type ServedMock, serveMock } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const dirs = tempDirs();
let served: ServedMock;
let env: NodeJS.ProcessEnv;
let tmp: string;

beforeAll(async () => {
  assertBuilt();
  const configDir = await dirs.make();
  tmp = await dirs.make();
  const seed = join(configDir, 'seed.json');
  const markings = Array.from({ length: 3000 }, (_, i) => ({
    name: `marking-${String(i).padStart(4, '0')}`,
    values: i === 0 ? Array.from({ length: 300 }, (_, v) => `value-${v}`) : ['a'],
  }));
  await writeFile(seed, JSON.stringify({ markings }));
  served = await serveMock(['--seed', seed], {
    env: cleanEnv({ KSCTL_CONFIG_DIR: configDir }),
    readyFile: join(configDir, 'ready.json'),
  });
  // TMPDIR: the demo's folder goes there, so the test can see that none is left.
  env = cleanEnv({ KSCTL_CONFIG_DIR: configDir, KSCTL_HOME: configDir, TMPDIR: tmp });
  for (let i = 0; i < 5; i++) {
    const answer = await fetch(`${served.info.baseUrl}/markings?limit=1`, {
      headers: { authorization: `Bearer ${served.info.token}` },
    });
    await answer.text();
  }
}, 60_000);

afterAll(async () => {
  await served?.stop();
  await dirs.removeAll();
});

/** `ksctl ARGS | head -1`: ksctl's exit code and stderr, and what head printed. */
function intoHead(args: string[], whileRunning?: () => Promise<void>) {
  return new Promise<{ code: number | null; stderr: string; line: string }>((resolve, reject) => {
    const child = spawn(
      'bash',
      [
        '-c',
        'node "$0" "$@" 2>"$KSCTL_TEST_ERR" | head -1; echo "exit ${PIPESTATUS[0]}"',
        BIN,
        ...args,
      ],
      {
        env: { ...env, KSCTL_TEST_ERR: join(tmp, 'stderr') },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 60_000,
      },
    );
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
    let running = true;
    child.once('error', reject);
    child.once('close', async () => {
      running = false;
      const stderr = await readFile(join(tmp, 'stderr'), 'utf8');
      const lines = out.split('\n');
      const exit = /^exit (\d+)$/.exec(lines.at(-2) ?? '');
      resolve({ code: exit ? Number(exit[1]) : null, stderr, line: lines[0]! });
    });
    if (whileRunning) {
      void (async () => {
        // Bounded: new requests until ksctl has noticed that head is gone.
        for (let i = 0; i < 200 && running; i++) await whileRunning();
      })();
    }
  });
}

describe('a closed stdout ends a command quietly, with exit 0', () => {
  const lists: string[][] = [
    ['markings', 'list'],
    ['markings', 'list', '-o', 'json'],
    ['markings', 'list', '-o', 'yaml', '--value-limit', '0'],
    ['markings', 'export'],
    ['markings', 'values', 'list', 'marking-0000'],
    ['context', 'list'],
    ['profiles', 'list'],
    ['mock', 'requests'],
    ['mock', 'devices'],
    ['mock', 'outbox'],
    ['mock', 'faults', 'list'],
    ['--help'],
  ];
  for (const args of lists) {
    it(`ksctl ${args.join(' ')} | head -1`, { timeout: 60_000 }, async () => {
      const result = await intoHead(args);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    });
  }

  it(
    'ksctl mock requests --follow | head -1 ends once a request arrives after head left',
    {
      timeout: 60_000,
    },
    async () => {
      const result = await intoHead(
        ['mock', 'requests', '--follow', '--interval', '100'],
        async () => {
          const answer = await fetch(`${served.info.baseUrl}/markings?limit=1`, {
            headers: { authorization: `Bearer ${served.info.token}` },
          });
          await answer.text();
          await new Promise((r) => setTimeout(r, 50));
        },
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.line).toMatch(/GET\t/);
    },
  );

  it('ksctl demo | head -1 leaves no folder behind', { timeout: 120_000 }, async () => {
    const before = (await readdir(tmp)).filter((f) => f.startsWith('ksctl-demo-'));
    expect(before).toEqual([]);
    const result = await intoHead(['demo']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.line).toMatch(/mock of the service is running/);
    expect((await readdir(tmp)).filter((f) => f.startsWith('ksctl-demo-'))).toEqual([]);
  });

  it(
    'ksctl demo stopped by Ctrl-C twice leaves no folder behind either',
    { timeout: 120_000 },
    async () => {
      const child = spawn(process.execPath, [BIN, 'demo'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 60_000,
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (t: string) => (out += t));
      const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
      // Bounded: until the tour has started (its folder exists).
      for (let i = 0; i < 400 && !/^1\. /m.test(out); i++)
        await new Promise((r) => setTimeout(r, 25));
      expect((await readdir(tmp)).some((f) => f.startsWith('ksctl-demo-'))).toBe(true);
      child.kill('SIGINT');
      // A second Ctrl-C, after the echo window of the first: the process ends at once.
      await new Promise((r) => setTimeout(r, 300));
      child.kill('SIGINT');
      expect(await closed).toBe(130);
      expect((await readdir(tmp)).filter((f) => f.startsWith('ksctl-demo-'))).toEqual([]);
    },
  );
});

describe('a mock whose reader went away still closes its state cleanly', () => {
  /** `ksctl mock serve --state DIR`, ready, with both its output pipes closed on the reading end. */
  async function mockWithoutReader() {
    const configDir = await dirs.make();
    const state = join(configDir, 'state');
    const served = await serveMock(['--state', state, '--no-context'], {
      env: cleanEnv({ KSCTL_CONFIG_DIR: configDir }),
      readyFile: join(configDir, 'ready.json'),
      log: true,
    });
    const closed = new Promise<number | null>((resolve) => served.child.once('close', resolve));
    served.child.stdout!.destroy();
    served.child.stderr!.destroy();
    return { ...served, closed, state };
  }

  /** The exit code once `closed` settles, or "running" (and the child killed) after `ms`. */
  async function exitWithin(child: ChildProcess, closed: Promise<number | null>, ms: number) {
    let timer: NodeJS.Timeout | undefined;
    const running = new Promise<'running'>((r) => (timer = setTimeout(() => r('running'), ms)));
    const stopped = await Promise.race([closed, running]);
    clearTimeout(timer);
    if (stopped === 'running') child.kill('SIGKILL');
    return stopped;
  }

  /** What `ksctl mock state check` says of the directory, on either stream. */
  async function checked(state: string) {
    const { stdout, stderr } = await ksctl(['mock', 'state', 'check', state], {
      env: cleanEnv({}),
    });
    return stdout + stderr;
  }

  it('SIGTERM: the lines on its way out fail, and it still stops cleanly, exit 0', async () => {
    const mock = await mockWithoutReader();
    mock.child.kill('SIGTERM');
    expect(await mock.closed).toBe(0);
    const report = await checked(mock.state);
    expect(report).toMatch(/ends with a clean stop/);
    expect(report).not.toMatch(/did not stop cleanly/);
  });

  it('no reader from the start: its banner finds none, and it stops cleanly, exit 0', async () => {
    // The banner is written once the state is open and locked, before the ready file: a reader
    // gone then must not end it with its state left open.
    const configDir = await dirs.make();
    const state = join(configDir, 'state');
    const child = spawn(
      process.execPath,
      [
        ...[BIN, 'mock', 'serve', '--port', '0', '--state', state, '--no-context'],
        ...['--ready-file', join(configDir, 'ready.json')],
      ],
      { env: cleanEnv({ KSCTL_CONFIG_DIR: configDir }), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout.destroy();
    child.stderr.destroy();
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(await exitWithin(child, closed, 30_000)).toBe(0);
    const report = await checked(state);
    expect(report).toMatch(/ends with a clean stop/);
  });

  it('its next line finds no reader: it stops by itself, as on Ctrl-C, exit 0', async () => {
    const mock = await mockWithoutReader();
    // A request's log line is the next write.
    const answer = await fetch(`${mock.info.baseUrl}/markings?limit=1`, {
      headers: { authorization: `Bearer ${mock.info.token}` },
    });
    expect(answer.status).toBe(200);
    await answer.text();
    expect(await exitWithin(mock.child, mock.closed, 20_000)).toBe(0);
    const report = await checked(mock.state);
    expect(report).toMatch(/ends with a clean stop/);
  });
});

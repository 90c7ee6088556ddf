/**
 * README command one: `ksctl demo` must work on a fresh machine, from any folder, and leave nothing
 * behind. Runs the real binary (the bundle), so it also catches files the bundle cannot find.
 */
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cleanEnv, ksctl } from '../helpers/spawn.js';
import { requireProgram } from '../helpers/programs.js';
import { tempDirs } from '../helpers/temp.js';

const dirs = tempDirs();
afterAll(() => dirs.removeAll());

it('walks the whole tour from an unrelated folder and leaves no file behind', async () => {
  assertBuilt();
  const [tmp, cwd, home, config] = await Promise.all([
    dirs.make(),
    dirs.make(),
    dirs.make(),
    dirs.make(),
  ]);
  const result = await ksctl(['demo'], {
    env: cleanEnv({ TMPDIR: tmp, HOME: home, KSCTL_CONFIG_DIR: config }),
    cwd,
    timeoutMs: 120_000,
  });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  for (const command of [
    '$ ksctl markings create classification',
    '$ ksctl markings list --name region -o yaml --value-limit 0',
    '$ ksctl markings apply -f examples/markings.yaml',
    '--dry-run',
    '$ ksctl enroll',
    '$ ksctl profiles list',
    '$ ksctl markings values add region sa-east',
    '$ ksctl keys create --attr region=sa-east -o json',
  ]) {
    expect(result.stdout).toContain(command);
  }
  // The last step of the story: the device's key carries the new marking value, the service
  // refuses a value the marking lacks, and the key comes back with its markings.
  expect(result.stdout).toContain(
    'error: ref "ksctl": marking "region" has no value "mars"; allowed: "ap-southeast", "eu-central", "eu-west", "sa-east", "us-east", "us-west"',
  );
  const keyId = /\$ ksctl keys fetch (ABcd\w+) -o yaml\n/.exec(result.stdout)?.[1];
  expect(keyId, result.stdout.slice(-1500)).toBeDefined();
  const fetched = result.stdout.includes(
    `- id: ${keyId}\n  attributes:\n    region:\n      - sa-east\n`,
  )
    ? keyId
    : null;
  expect(fetched, result.stdout.slice(-1500)).not.toBeNull();
  expect(result.stdout).toContain('Plan: 0 to create, 2 to update, 0 to delete, 3 unchanged.');
  expect(result.stdout).toContain('That was the tour.');
  // Its mock, configuration and profiles lived in a temporary folder that is gone now, and the
  // user's configuration, home and working folder were never touched.
  expect(await readdir(tmp)).toEqual([]);
  expect(await readdir(config)).toEqual([]);
  expect(await readdir(home)).toEqual([]);
  expect(await readdir(cwd)).toEqual([]);
}, 150_000);

/**
 * On a terminal (a pseudo-terminal from `script`), the tour is a tour: it waits after each step
 * until Enter, and q or Ctrl-C end it with the mock closed and nothing left behind.
 */
describe('on a terminal', () => {
  requireProgram('script', 'apt-get install bsdutils');
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

  /** `ksctl demo ARGS` on a pseudo-terminal; the test types into it. */
  async function onTerminal(args: string[]) {
    const [tmp, cwd, home, config] = await Promise.all([
      dirs.make(),
      dirs.make(),
      dirs.make(),
      dirs.make(),
    ]);
    const command = [process.execPath, BIN, 'demo', ...args].map(quote).join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      // A tour on a terminal pauses unless CI says nobody is there: CI runs these tests with CI=true.
      env: cleanEnv({ TMPDIR: tmp, HOME: home, KSCTL_CONFIG_DIR: config, COLUMNS: '80', CI: '' }),
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (screen += text));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    void exited.then(() => clearTimeout(killer));
    return {
      tmp,
      screen: () => screen,
      type: (keys: string) => child.stdin.write(keys),
      exited,
      /** Waits (bounded) until the screen shows `text`. */
      async shows(text: string, timeoutMs = 60_000) {
        const deadline = Date.now() + timeoutMs;
        while (!screen.includes(text)) {
          if (Date.now() > deadline || child.exitCode !== null) {
            throw new Error(`never showed ${JSON.stringify(text)}:\n${screen.slice(-1500)}`);
          }
          await sleep(50);
        }
      },
    };
  }

  const PAUSE = 'Press Enter for the next step (q to stop)';

  it('waits at the first pause until Enter, and q stops it cleanly', async () => {
    assertBuilt();
    const tour = await onTerminal([]);
    await tour.shows(`[1/18] ${PAUSE}`);
    expect(tour.screen()).toContain('1. Create a marking with three values and a default');
    // Nothing more comes until a key is pressed.
    await sleep(1500);
    expect(tour.screen()).not.toContain('2. Add values one at a time');
    tour.type('\r');
    await tour.shows(`[2/18] ${PAUSE}`);
    expect(tour.screen()).toContain('$ ksctl markings values add classification confidential');
    expect(tour.screen()).not.toContain('3. Another marking');
    tour.type('q');
    expect(await tour.exited).toBe(0);
    expect(tour.screen()).toContain(
      'Stopped the tour after step 2 of 18; its mock is closed and its files removed.',
    );
    expect(tour.screen()).not.toContain('3. Another marking');
    // The mock and the throwaway folder are gone.
    expect(await readdir(tour.tmp)).toEqual([]);
  }, 90_000);

  it('Ctrl-C at a pause ends it with exit 130 and nothing left behind', async () => {
    assertBuilt();
    const tour = await onTerminal([]);
    await tour.shows(`[1/18] ${PAUSE}`);
    tour.type('\x03');
    expect(await tour.exited).toBe(130);
    expect(tour.screen()).toContain('interrupted; the demo stopped its mock and removes its files');
    expect(await readdir(tour.tmp)).toEqual([]);
  }, 90_000);

  it('--no-pause runs straight through without a key', async () => {
    assertBuilt();
    const tour = await onTerminal(['--no-pause']);
    expect(await tour.exited).toBe(0);
    expect(tour.screen()).not.toContain(PAUSE);
    expect(tour.screen()).toContain('That was the tour.');
    expect(await readdir(tour.tmp)).toEqual([]);
  }, 150_000);
});

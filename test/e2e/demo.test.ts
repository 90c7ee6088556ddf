/**
 * README command one: `ksctl demo` must work on a fresh machine, from any folder, and leave nothing
 * behind. Runs the real binary (the bundle), so it also catches files the bundle cannot find.
 */
import { readdir } from 'node:fs/promises';
import { afterAll, expect, it } from 'vitest';
import { assertBuilt, cleanEnv, ksctl } from '../helpers/spawn.js';
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

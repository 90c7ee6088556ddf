/**
 * `ksctl conformance --write` stopped with Ctrl-C (SIGINT), the real bin/ksctl.js against a
 * spawned `ksctl mock serve` playing the service: the markings of the run are deleted before it
 * exits 130, and the report of what ran is printed.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cleanEnv, type ServedMock, serveMock } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const temp = tempDirs();
let served: ServedMock;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  assertBuilt();
  const dir = await temp.make();
  const seed = join(dir, 'seed.json');
  await writeFile(seed, JSON.stringify({ markings: [{ name: 'kept', values: ['a', 'b'] }] }));
  // Every request waits a little, so the run is surely still going when it is stopped.
  served = await serveMock(['--seed', seed, '--latency', '20', '--no-context', '--no-console'], {
    env: cleanEnv({ KSCTL_CONFIG_DIR: join(dir, 'serve-config') }),
    readyFile: join(dir, 'ready.json'),
  });
  env = cleanEnv({
    KSCTL_CONFIG_DIR: join(dir, 'config'),
    KSCTL_BASE_URL: served.info.baseUrl,
    KSCTL_TOKEN: served.info.token,
  });
});
afterAll(async () => {
  await served?.stop();
  await temp.removeAll();
});

async function names(): Promise<string[]> {
  const response = await fetch(`${served.info.baseUrl}/markings?valueLimit=0`, {
    headers: { authorization: `Bearer ${served.info.token}` },
  });
  const { Resources } = (await response.json()) as { Resources: { name: string }[] };
  return Resources.map((m) => m.name);
}

describe('Ctrl-C during conformance --write', () => {
  it('deletes the markings of the run, prints what ran, exits 130', async () => {
    const child = spawn(process.execPath, [BIN, 'conformance', '--write', '--yes'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let stopped = false;
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      // Stopped once the run has markings of its own on the service.
      if (!stopped && /\] update a marking, the complete set of values/.test(stderr)) {
        stopped = true;
        child.kill('SIGINT');
      }
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearTimeout(killer);
    expect(stopped, stderr).toBe(true);
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/deleting the markings of the run \(ksctl-conformance-[0-9a-f]{8}-\*\)/);
    expect(stderr).toMatch(/interrupted after \d+ scenarios; the markings of the run were deleted/);
    expect(stdout).toMatch(/^create a marking with values and a default value +same$/m);
    expect(await names()).toEqual(['kept']);
  });
});

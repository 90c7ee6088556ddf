/**
 * Every shell example in README.md runs as written. Each fenced ```sh block runs in bash (`set -e`,
 * so every line must succeed) against one spawned `ksctl mock serve --port 0`, with a fresh copy of
 * the configuration it wrote (the "mock" context, current), the mock's state reset, in an empty
 * folder holding the files examples name: token.txt (a bearer token), markings.yaml and
 * markings/ (copies of examples/markings.yaml). A block that cannot run as written (it installs,
 * serves forever or asks on a terminal) is marked ```sh norun.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cleanEnv, ROOT, type ServedMock, serveMock } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

interface Example {
  line: number;
  script: string;
}

/** The runnable ```sh blocks of a Markdown text, with the line each starts on. */
export function shellExamples(markdown: string): { run: Example[]; norun: number } {
  const run: Example[] = [];
  let norun = 0;
  const fence = /^ *```sh([^\n]*)\n([\s\S]*?)^ *```$/gm;
  for (const match of markdown.matchAll(fence)) {
    const line = markdown.slice(0, match.index).split('\n').length;
    if (match[1]!.trim().split(/\s+/).includes('norun')) norun++;
    else run.push({ line, script: match[2]! });
  }
  return { run, norun };
}

const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
const { run: examples } = shellExamples(readme);
const dirs = tempDirs();
let served: ServedMock;
let configFile: string;
let binDir: string;

beforeAll(async () => {
  assertBuilt();
  const configDir = await dirs.make();
  binDir = await dirs.make();
  await symlink(BIN, join(binDir, 'ksctl'));
  served = await serveMock([], {
    env: cleanEnv({ KSCTL_CONFIG_DIR: configDir, KSCTL_HOME: configDir }),
    readyFile: join(configDir, 'ready.json'),
  });
  configFile = join(configDir, 'config.json');
});

afterAll(async () => {
  await served?.stop();
  await dirs.removeAll();
});

describe('README.md shell examples', () => {
  it('has runnable examples, and the fence convention is understood', () => {
    expect(examples.length).toBeGreaterThan(3);
    expect(shellExamples('```sh norun\nexit 1\n```\n```sh\ntrue\n```\n')).toEqual({
      run: [{ line: 4, script: 'true\n' }],
      norun: 1,
    });
  });

  for (const example of examples) {
    const first = example.script.split('\n')[0];
    it(`line ${example.line}: ${first}`, { timeout: 120_000 }, async () => {
      const reset = await fetch(`${served.info.url}/_mock/reset`, {
        method: 'POST',
        headers: { authorization: `Bearer ${served.info.token}` },
      });
      expect(reset.status).toBe(200);
      await reset.text();
      const home = await dirs.make();
      const work = join(home, 'work');
      await mkdir(join(work, 'markings'), { recursive: true });
      await copyFile(configFile, join(home, 'config.json'));
      await writeFile(join(work, 'token.txt'), `${served.info.token}\n`);
      const sample = join(ROOT, 'examples', 'markings.yaml');
      await copyFile(sample, join(work, 'markings.yaml'));
      await copyFile(sample, join(work, 'markings', 'markings.yaml'));
      const env = cleanEnv({
        PATH: `${binDir}:${dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: home,
        KSCTL_CONFIG_DIR: home,
        KSCTL_HOME: home,
      });
      const result = await promisify(execFile)(
        'bash',
        ['--norc', '--noprofile', '-e', '-o', 'pipefail', '-c', example.script],
        { cwd: work, env, encoding: 'utf8', timeout: 110_000 },
      ).catch((error: { code?: number; stdout?: string; stderr?: string }) => error);
      expect(
        'code' in result && result.code !== undefined ? result.code : 0,
        `${example.script}\n--- stderr ---\n${result.stderr}`,
      ).toBe(0);
    });
  }
});

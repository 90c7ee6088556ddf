/**
 * README.md runs as written, as a newcomer would run it: every fenced ```sh block, in order, in one
 * bash "terminal" and again in one zsh "terminal" (the working directory and exported variables
 * carry from block to block; `set -e`, so every line must succeed), in a folder laid out like a
 * fresh clone (README.md, examples/, schema/) and nothing else: no token file, no markings file,
 * no context beyond the one `ksctl mock serve` adds. The test plays the README's first terminal:
 * one `ksctl mock serve` with the reader's configuration. Afterwards the contexts are what the
 * reader was told they would be. A block that cannot run as written (it installs, serves until
 * Ctrl-C, or asks on a terminal) is marked ```sh norun.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  BIN,
  cleanEnv,
  ksctl,
  ROOT,
  type ServedMock,
  serveMock,
} from '../helpers/spawn.js';
import { requireProgram } from '../helpers/programs.js';
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
afterAll(() => dirs.removeAll());

/**
 * A block as typed into the same terminal as the blocks before it: in their directory, with what
 * they exported; afterwards the directory and the exports are kept for the next.
 */
const inTerminal = (script: string) => `cd "$(cat "$KSCTL_README_STATE/cwd")"
. "$KSCTL_README_STATE/env"
trap 'pwd > "$KSCTL_README_STATE/cwd"; export -p | grep -v " KSCTL_README_STATE=" > "$KSCTL_README_STATE/env"' EXIT
set -e -o pipefail
${script}`;

/** The shells a newcomer may type the README into; .ci/run installs zsh (skipped without it). */
const SHELLS: [name: string, args: string[]][] = [
  ['bash', ['--norc', '--noprofile', '-c']],
  ['zsh', ['-f', '-c']],
];

for (const [shell, args] of SHELLS) {
  describe(`README.md shell examples, in order, as a newcomer runs them in ${shell}`, () => {
    let served: ServedMock;
    let env: NodeJS.ProcessEnv;
    let state: string;
    const installed = requireProgram(shell, `apt-get install ${shell}`);

    beforeAll(async () => {
      if (!installed) return;
      assertBuilt();
      const home = await dirs.make();
      const binDir = await dirs.make();
      state = await dirs.make();
      await symlink(BIN, join(binDir, 'ksctl'));
      const clone = join(home, 'ksctl');
      await mkdir(clone);
      for (const entry of ['README.md', 'examples', 'schema']) {
        await cp(join(ROOT, entry), join(clone, entry), { recursive: true });
      }
      env = cleanEnv({
        PATH: `${binDir}:${dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: home,
        KSCTL_CONFIG_DIR: join(home, 'config'),
        KSCTL_HOME: home,
      });
      // The reader's first terminal: `ksctl mock serve`, which adds the "mock" context.
      served = await serveMock([], { env, readyFile: join(state, 'ready.json') });
      // The second terminal starts in the clone, with nothing exported yet.
      await writeFile(join(state, 'cwd'), clone);
      await writeFile(join(state, 'env'), '');
    }, 60_000);

    afterAll(async () => {
      await served?.stop();
    });

    if (shell === 'bash') {
      it('has runnable examples, and the fence convention is understood', () => {
        expect(examples.length).toBeGreaterThan(6);
        expect(shellExamples('```sh norun\nexit 1\n```\n```sh\ntrue\n```\n')).toEqual({
          run: [{ line: 4, script: 'true\n' }],
          norun: 1,
        });
      });
    }

    for (const example of examples) {
      const first = example.script.split('\n')[0];
      it(`line ${example.line}: ${first}`, { timeout: 120_000 }, async () => {
        const result = await promisify(execFile)(shell, [...args, inTerminal(example.script)], {
          env: { ...env, KSCTL_README_STATE: state },
          encoding: 'utf8',
          timeout: 110_000,
        }).catch((error: { code?: number; stdout?: string; stderr?: string }) => error);
        expect(
          'code' in result && result.code !== undefined ? result.code : 0,
          `${example.script}\n--- stderr ---\n${result.stderr}`,
        ).toBe(0);
        expect(result.stderr, example.script).not.toMatch(/^\s+at .*\(.*:\d+:\d+\)$/m);
        // An example that exports nothing shows a newcomer nothing: it names markings the
        // examples before it made.
        expect(result.stderr, example.script).not.toMatch(/^exported 0 markings/m);
      });
    }

    it('leaves the contexts as the README says: "mock" current, "production" added', async () => {
      const listed = await ksctl(['context', 'list', '-o', 'json'], { env });
      expect(listed.code).toBe(0);
      const contexts = JSON.parse(listed.stdout) as { name: string; current: boolean }[];
      expect(contexts.map((c) => c.name).sort()).toEqual(['mock', 'production']);
      expect(contexts.find((c) => c.current)?.name).toBe('mock');
    });
  });
}

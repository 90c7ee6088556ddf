/**
 * The README's `npm test` passes on a machine with only Node and npm: a test needing a program
 * the machine lacks (zsh, fish, chromium, script) is skipped with one line naming it and how to
 * get it, and the run ends listing how many were skipped and why; with CI set the same tests
 * fail, loudly. Runs vitest itself on test/fixtures/needs-programs (tests that need fish and a
 * program no machine has), on a PATH without fish and through the helper's KSCTL_TEST_WITHOUT.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { onCi, requireProgram } from '../helpers/programs.js';
import { ROOT } from '../helpers/spawn.js';

const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const CONFIG = join(ROOT, 'test', 'fixtures', 'needs-programs', 'vitest.config.ts');
const NOTE_FISH = 'fish is not installed (not on PATH): apt-get install fish';
const NOTE_NONE = 'ksctl-test-no-such-program is not installed (not on PATH): there is none';

/** Runs the fixture suite: exit code and what it printed (colours off). */
async function runFixture(
  env: NodeJS.ProcessEnv,
  extra: string[] = [],
): Promise<{ code: number; out: string }> {
  const { CI: _ci, KSCTL_TEST_WITHOUT: _without, ...rest } = process.env;
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [VITEST, 'run', '--config', CONFIG, ...extra],
      { cwd: ROOT, env: { ...rest, NO_COLOR: '1', FORCE_COLOR: '0', ...env }, timeout: 60_000 },
    );
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout + failed.stderr };
  }
}

describe('a program the machine lacks', () => {
  it('off CI: skipped, one line naming it and how to get it; the run passes and ends with why', async () => {
    const { code, out } = await runFixture({ KSCTL_TEST_WITHOUT: 'fish' });
    expect(code).toBe(0);
    const summary = out.slice(out.lastIndexOf('tests skipped:') - 2);
    expect(summary).toBe(
      [
        '4 tests skipped:',
        `     2  ${NOTE_FISH}`,
        `     1  ${NOTE_NONE}`,
        '     1  skipped in the test code (.skip, .skipIf, .todo)',
        '',
      ].join('\n'),
    );
  });

  it('off CI, on a PATH without it: the same', async () => {
    // A PATH holding node alone (a fresh machine's): fish is not found even where it is installed.
    const bin = await mkdtemp(join(tmpdir(), 'ksctl-path-'));
    try {
      await symlink(process.execPath, join(bin, 'node'));
      const { code, out } = await runFixture({ PATH: bin });
      expect(code).toBe(0);
      expect(out).toContain(`     2  ${NOTE_FISH}\n`);
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });

  it('with CI set: the tests fail, saying what is missing and that CI must run them', async () => {
    const { code, out } = await runFixture({ CI: 'true', KSCTL_TEST_WITHOUT: 'fish' });
    expect(code).toBe(1);
    expect(out).toContain(`Error: ${NOTE_FISH} (CI is set: every test must run`);
    expect(out).toMatch(/Tests\s+3 failed \| 1 passed \| 1 skipped/);
  });

  describe('installed', () => {
    requireProgram('fish', 'apt-get install fish');
    it('its tests run (CI or not), and nothing is said about it', async () => {
      const { code, out } = await runFixture({});
      expect(code).toBe(0);
      expect(out).not.toContain('fish is not installed');
      expect(out).toMatch(/Tests\s+3 passed \| 2 skipped/);
    });
  });

  it(".ci/run's reporters: the summary, and the JSON that its passed/failed/skipped line counts", async () => {
    const results = join(await mkdtemp(join(tmpdir(), 'ksctl-json-')), 'results.json');
    try {
      const { code, out } = await runFixture({ KSCTL_TEST_WITHOUT: 'fish' }, [
        '--reporter=default',
        `--reporter=${join(ROOT, 'test', 'helpers', 'skip-summary.ts')}`,
        '--reporter=json',
        `--outputFile=${results}`,
      ]);
      expect(code).toBe(0);
      expect(out).toContain(`     2  ${NOTE_FISH}\n`);
      const json = JSON.parse(await readFile(results, 'utf8')) as Record<string, number>;
      expect(json).toMatchObject({ numPassedTests: 1, numFailedTests: 0, numPendingTests: 4 });
    } finally {
      await rm(dirname(results), { recursive: true, force: true });
    }
  });
});

describe('onCi', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['0', false],
    ['false', false],
    ['1', true],
    ['true', true],
    ['woodpecker', true],
  ])('CI=%j: %s', (value, expected) => {
    expect(onCi(value === undefined ? {} : { CI: value })).toBe(expected);
  });
});

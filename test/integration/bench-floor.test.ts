/**
 * The start-up bench's floor of a network command (bench/lib/plain-request.cjs: one GET with
 * node:http and nothing else) does the work of `ksctl markings list -o json`: the same request
 * of the service and the same listing printed, so its row measures what the listing's rows are
 * held against (bench/README.md, "Point 3").
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mockSuite } from '../helpers/mock-suite.js';
import { ROOT } from '../helpers/spawn.js';

const FLOOR = join(ROOT, 'bench', 'lib', 'plain-request.cjs');

const suite = mockSuite();

/** Runs the floor against the mock: its exit code, standard output and error. */
function floor(
  token = suite.mock.token,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [FLOOR],
      {
        env: { PATH: process.env.PATH, KSCTL_BASE_URL: suite.mock.baseUrl, KSCTL_TOKEN: token },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe("the start-up bench's plain GET", () => {
  it('prints what ksctl markings list -o json prints, empty or not, from the same request', async () => {
    const empty = await floor();
    expect(empty).toEqual({ code: 0, stdout: '[]\n', stderr: '' });

    for (const [name, values] of [
      ['bench-floor-a', ['x', 'y']],
      ['bench-floor-b', ['only']],
    ] as const) {
      const created = await suite.ksctl([
        'markings',
        'create',
        name,
        ...values.flatMap((v) => ['--value', v]),
      ]);
      expect(created.code).toBe(0);
    }
    const before = (await suite.mock.journal()).length;
    const listed = await suite.ksctl(['markings', 'list', '-o', 'json']);
    expect(listed.code).toBe(0);
    const plain = await floor();
    expect(plain.code).toBe(0);
    const markings = JSON.parse(plain.stdout) as { name: string }[];
    expect(markings.map((m) => m.name).sort()).toEqual(['bench-floor-a', 'bench-floor-b']);
    expect(markings).toEqual(JSON.parse(listed.stdout));

    const requests = (await suite.mock.journal()).slice(before);
    expect(requests).toHaveLength(2);
    const [ksctlRequest, floorRequest] = requests.map((entry) => new URL(entry.path, 'http://x'));
    expect(requests.map((entry) => [entry.method, entry.status])).toEqual([
      ['GET', 200],
      ['GET', 200],
    ]);
    expect(floorRequest!.pathname).toBe(ksctlRequest!.pathname);
  });

  it('fails with the status on stderr, not a listing, when the token is refused', async () => {
    const refused = await floor('ksdev.not-the-token');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^HTTP 401: /);
  });
});

/**
 * Ctrl-C during `ksctl markings apply`, with the real bin/ksctl.js against a spawned
 * `ksctl mock serve`: no new request starts, those in flight finish, the partial report is
 * printed, the exit code is 130, and running again converges.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry, RequestJournal } from '../../src/common/mock/wire.js';
import { assertBuilt, BIN, cleanEnv, ksctl, type ServedMock, serveMock } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const temp = tempDirs();
let dir: string;
let served: ServedMock;
let env: NodeJS.ProcessEnv;
const MARKINGS = 30;

beforeAll(async () => {
  assertBuilt();
  dir = await temp.make();
  const seed = join(dir, 'seed.json');
  const markings = Array.from({ length: MARKINGS }, (_, i) => ({ name: `old-${i}` }));
  await writeFile(seed, JSON.stringify({ markings }));
  // Every request waits, so the deletes take long enough to be interrupted half-way.
  served = await serveMock(['--seed', seed, '--latency', '100', '--no-context'], {
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

async function deletes(): Promise<JournalEntry[]> {
  const response = await fetch(`${served.info.url}/_mock/requests`, {
    headers: { authorization: `Bearer ${served.info.token}` },
  });
  const { requests } = (await response.json()) as RequestJournal;
  return requests.filter((r) => r.method === 'DELETE');
}

describe('Ctrl-C during markings apply', () => {
  it('finishes what is in flight, reports, exits 130; the next run converges', async () => {
    const empty = join(dir, 'empty.yaml');
    await writeFile(empty, 'markings: []\n');
    const child = spawn(
      process.execPath,
      [BIN, 'markings', 'apply', '-f', empty, '--prune', '--yes', '--concurrency', '2'],
      // A log with no COLUMNS: 80.
      { env: { ...env, COLUMNS: undefined }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));

    const deadline = Date.now() + 30_000;
    while ((await deletes()).length < 2 && Date.now() < deadline) await sleep(50);
    child.kill('SIGINT');
    const code = await exited;

    expect(stderr).toMatch(/not attempted \(interrupted\): /);
    // A log is 80 columns: the names not attempted go on over lines, every one of them there.
    expect(stderr.split('\n').filter((line) => line.length > 80)).toEqual([]);
    const notAttempted = /not attempted \(interrupted\): ([^]*?)\napplied:/.exec(stderr)?.[1];
    // Twenty names, then how many more.
    const more = Number(/ … and (\d+) more$/.exec(notAttempted ?? '')?.[1] ?? 0);
    const named = notAttempted?.replace(/ … and \d+ more$/, '').split(/,\s+/);
    const summary = /applied: 0 created, 0 updated, (\d+) deleted; (\d+) not attempted/.exec(
      stderr,
    );
    expect(summary, stderr).not.toBeNull();
    const deleted = Number(summary?.[1]);
    expect(deleted).toBeGreaterThan(0);
    expect(deleted + Number(summary?.[2])).toBe(MARKINGS);
    expect(named!.length + more, stderr).toBe(MARKINGS - deleted);
    expect(
      named!.every((name) => /^old-\d+$/.test(name)),
      stderr,
    ).toBe(true);
    expect(code).toBe(130);
    expect(stdout).toContain(`Plan: 0 to create, 0 to update, ${MARKINGS} to delete, 0 unchanged.`);
    // Every delete that started was answered: none was cut off.
    expect((await deletes()).every((r) => r.status === 204)).toBe(true);

    const rest = await ksctl(['markings', 'apply', '-f', empty, '--prune', '--yes'], {
      env,
      timeoutMs: 60_000,
    });
    expect(rest.code).toBe(0);
    expect(rest.stderr).toContain(`applied: 0 created, 0 updated, ${MARKINGS - deleted} deleted`);
    const again = await ksctl(['markings', 'apply', '-f', empty, '--prune', '--dry-run'], { env });
    expect(again.stdout).toBe('No changes. 0 markings are up to date.\n');
  });

  it('applies a file from stdin in the real process', async () => {
    const result = await ksctl(['markings', 'apply', '-f', '-', '-o', 'json'], {
      env,
      input: 'markings:\n  - name: piped\n    values: [a, b]\n',
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).summary).toMatchObject({ created: 1, failed: 0 });
  });
});

/**
 * One enrollment reads the profile file once, under its lock (issue 35): the set read as the run
 * starts is the one its profiles are stored into, one device or many. A writer that takes no lock
 * (an app's SDK) and changes the file meanwhile is not undone: the file is then read again.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadProfiles } from '../../src/client/profiles/index.js';
import type * as BoundedRead from '../../src/common/files/bounded-read.js';
import { cliFor } from '../helpers/cli.js';
import { enrollingSuite } from './mock-enroll-fixtures.js';

/** The reads of each file through the bounded reader, and what to do after one that succeeds. */
const reads = vi.hoisted(() => ({
  count: new Map<string, number>(),
  after: undefined as ((path: string, bytes: Buffer) => Promise<void>) | undefined,
}));

vi.mock('../../src/common/files/bounded-read.js', async (importOriginal) => {
  const original = await importOriginal<typeof BoundedRead>();
  return {
    ...original,
    readBoundedFile: async (...args: Parameters<typeof original.readBoundedFile>) => {
      const [path] = args;
      // Counted as asked: a file not there yet is read too, and found missing.
      reads.count.set(path, (reads.count.get(path) ?? 0) + 1);
      const bytes = await original.readBoundedFile(...args);
      await reads.after?.(path, bytes);
      return bytes;
    },
  };
});

const suite = enrollingSuite();
const cli = cliFor(() => suite.markingsEnv());

/** Runs `argv` and says how often it read the profile file. */
async function profileReads(argv: string[]): Promise<number> {
  reads.count.clear();
  const result = await cli(argv);
  expect(result.stderr).toMatch(/^enrolled /);
  expect(result.code).toBe(0);
  return reads.count.get(suite.profilesPath) ?? 0;
}

const names = async () =>
  (await loadProfiles({ kind: 'plaintext', path: suite.profilesPath })).profiles.map((p) => p.name);

describe('one enrollment, one read of the profile file', () => {
  it('ksctl enroll reads the file once, into a new file and into one that has profiles', async () => {
    expect(await profileReads(['enroll', '--mock-user', 'alice', '--name', 'first'])).toBe(1);
    expect(await profileReads(['enroll', '--mock-user', 'alice', '--name', 'second'])).toBe(1);
    expect(await names()).toEqual(['first', 'second']);
  });

  it('enroll --count N reads it once for all N devices', async () => {
    await profileReads(['enroll', '--mock-user', 'alice', '--name', 'first']);
    const argv = ['enroll', '--mock-user', 'alice', '--count', '3', '--name', 'bulk'];
    expect(await profileReads(argv)).toBe(1);
    expect((await names()).sort()).toEqual(['bulk-1', 'bulk-2', 'bulk-3', 'first']);
  });

  it('keeps what a writer without the lock put in the file during the run', async () => {
    const outsiderFile = join(suite.dir, 'outsider.pt');
    const outsider = await cli(['enroll', '--mock-user', 'alice', '--name', 'outsider'], {
      env: { ...suite.markingsEnv(), KSCTL_PERSISTOR_PATH: outsiderFile },
    });
    expect(outsider.code).toBe(0);
    await profileReads(['enroll', '--mock-user', 'alice', '--name', 'first']);
    const { profiles: theirs } = JSON.parse(await readFile(outsiderFile, 'utf8')) as {
      profiles: unknown[];
    };
    // Right after the run reads the file, another program adds its profile to it.
    reads.after = async (path, bytes) => {
      if (path !== suite.profilesPath) return;
      reads.after = undefined;
      const document = JSON.parse(bytes.toString('utf8'));
      document.profiles.push(...theirs);
      await writeFile(path, JSON.stringify(document));
    };
    try {
      await profileReads(['enroll', '--mock-user', 'alice', '--name', 'third']);
    } finally {
      reads.after = undefined;
    }
    expect(await names()).toEqual(['first', 'outsider', 'third']);
  });
});

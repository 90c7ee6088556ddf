import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Temporary directories made by a test file, removed together at the end (call from afterAll). */
export function tempDirs(): { make(): Promise<string>; removeAll(): Promise<void> } {
  const made: string[] = [];
  return {
    async make() {
      const dir = await mkdtemp(join(tmpdir(), 'ksctl-test-'));
      made.push(dir);
      return dir;
    },
    async removeAll() {
      await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
    },
  };
}

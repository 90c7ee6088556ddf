import { existsSync } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { ensureDirectory } from '../../src/common/files/directories.js';
import { runCli } from '../helpers/cli.js';
import { tempDirs } from '../helpers/temp.js';

const dirs = tempDirs();
afterAll(() => dirs.removeAll());

describe('ensureDirectory', () => {
  it('creates every missing level with exactly the mode asked for, keeping existing ones', async () => {
    const root = await dirs.make();
    await mkdir(join(root, 'kept'), { mode: 0o755 });
    const leaf = join(root, 'kept', 'a', 'b', 'c');
    await ensureDirectory(leaf, 0o700);
    for (const level of ['a', 'a/b', 'a/b/c']) {
      expect((await stat(join(root, 'kept', level))).mode & 0o777).toBe(0o700);
    }
    expect((await stat(join(root, 'kept'))).mode & 0o777).toBe(0o755);
    await ensureDirectory(leaf, 0o700);
  });

  it('refuses a path through a regular file, naming it', async () => {
    const root = await dirs.make();
    await writeFile(join(root, 'file'), '');
    await expect(ensureDirectory(join(root, 'file', 'x', 'y'), 0o700)).rejects.toThrow(
      `${join(root, 'file')} is not a directory`,
    );
  });

  it.skipIf(!existsSync('/proc/self'))(
    'refuses, at once, a directory the file system will not create (Node would spin on it)',
    async () => {
      const error = await ensureDirectory('/proc/newdir/deeper', 0o700).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).message).toBe(
        'cannot create the directory /proc/newdir: the file system of /proc does not allow new directories',
      );
    },
  );

  it.skipIf(!existsSync('/proc/self'))(
    'every command that makes a directory refuses such a path with exit 3',
    async () => {
      const config = await dirs.make();
      const env = { KSCTL_CONFIG_DIR: config };
      const state = await runCli(
        ['mock', 'serve', '--port', '0', '--state', '/proc/newdir/state'],
        { env },
      );
      expect(state.code).toBe(3);
      expect(state.stderr).toContain('cannot create the directory /proc/newdir');
      const ready = await runCli(
        ['mock', 'serve', '--port', '0', '--ready-file', '/proc/newdir/ready.json'],
        { env },
      );
      expect(ready.code).toBe(3);
      expect(ready.stderr).toContain('cannot create the directory /proc/newdir');
    },
  );
});

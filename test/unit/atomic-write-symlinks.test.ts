/**
 * Regression: writing a profile (or an export, or the ready file) to a symbolic link replaced
 * the link with a regular file, so SDK applications reading the real file never saw the new
 * profile. The writer now replaces the file at the end of the link chain and keeps the links.
 */
import {
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  realpath,
  symlink,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { resolveWriteTarget, writeFileAtomic } from '../../src/common/files/atomic-write.js';
import { addProfile, loadProfiles, saveProfiles } from '../../src/client/profiles/index.js';
import type { PersistorSpec } from '../../src/client/profiles/types.js';
import { testProfile } from '../helpers/profiles.js';
import { tempDirs } from '../helpers/temp.js';

const dirs = tempDirs();
let dir: string;

beforeEach(async () => {
  dir = await dirs.make();
  await mkdir(path.join(dir, 'pf'));
  await mkdir(path.join(dir, 'dot'));
});
afterAll(() => dirs.removeAll());

const at = (...parts: string[]) => path.join(dir, ...parts);

async function expectLink(linkPath: string, target: string): Promise<void> {
  expect((await lstat(linkPath)).isSymbolicLink()).toBe(true);
  expect(await readlink(linkPath)).toBe(target);
}

describe('writeFileAtomic through symbolic links', () => {
  it('replaces the file a relative link points to and keeps the link', async () => {
    await writeFile(at('dot', 'real.pt'), 'old');
    await symlink('../dot/real.pt', at('pf', 'sym.pt'));
    await writeFileAtomic(at('pf', 'sym.pt'), 'new');
    await expectLink(at('pf', 'sym.pt'), '../dot/real.pt');
    expect(await readFile(at('dot', 'real.pt'), 'utf8')).toBe('new');
    // The temp file went beside the real file and is gone.
    expect(await readdir(at('dot'))).toEqual(['real.pt']);
    expect(await readdir(at('pf'))).toEqual(['sym.pt']);
  });

  it('follows a chain of links, also one ending at a file not created yet', async () => {
    await symlink(at('dot', 'real.pt'), at('dot', 'second'));
    await symlink('../dot/second', at('pf', 'first'));
    await writeFileAtomic(at('pf', 'first'), 'created');
    await expectLink(at('pf', 'first'), '../dot/second');
    await expectLink(at('dot', 'second'), at('dot', 'real.pt'));
    expect(await readFile(at('dot', 'real.pt'), 'utf8')).toBe('created');
  });

  it('resolves a link relative to where the link really is, through a linked directory', async () => {
    await mkdir(at('dot', 'inner'));
    await symlink(at('dot', 'inner'), at('pf', 'dirlink'));
    // "../real.pt" from dot/inner is dot/real.pt, not pf/real.pt.
    await symlink('../real.pt', at('dot', 'inner', 'sym.pt'));
    expect(await resolveWriteTarget(at('pf', 'dirlink', 'sym.pt'))).toBe(
      path.join(await realpath(at('dot')), 'real.pt'),
    );
  });

  it('writes a plain path as before, and refuses a loop of links', async () => {
    await writeFileAtomic(at('pf', 'plain.pt'), 'x');
    expect((await lstat(at('pf', 'plain.pt'))).isFile()).toBe(true);
    await symlink('b', at('pf', 'a'));
    await symlink('a', at('pf', 'b'));
    await expect(writeFileAtomic(at('pf', 'a'), 'x')).rejects.toMatchObject({
      code: 'E_INPUT',
      message: expect.stringContaining(`cannot write ${at('pf', 'a')}`),
    });
  });
});

describe('profile files behind a link', () => {
  const specOf = (p: string): PersistorSpec => ({ kind: 'plaintext', path: p });

  it('adds a profile to the real file, locked beside it, and keeps the link', async () => {
    await saveProfiles(specOf(at('dot', 'real.pt')), {
      activeDeviceId: testProfile(0).deviceId,
      profiles: [testProfile(0)],
    });
    await symlink('../dot/real.pt', at('pf', 'sym.pt'));
    await addProfile(specOf(at('pf', 'sym.pt')), testProfile(1));
    await expectLink(at('pf', 'sym.pt'), '../dot/real.pt');
    const real = await loadProfiles(specOf(at('dot', 'real.pt')));
    expect(real.profiles.map((p) => p.name)).toEqual(['profile-0', 'profile-1']);
    // No lock file or temp file is left beside the link or the file.
    expect(await readdir(at('pf'))).toEqual(['sym.pt']);
    expect(await readdir(at('dot'))).toEqual(['real.pt']);
  });

  it('takes the same lock through the link as through the file, so no write is lost', async () => {
    await symlink('../dot/real.pt', at('pf', 'sym.pt'));
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        addProfile(specOf(i % 2 === 0 ? at('pf', 'sym.pt') : at('dot', 'real.pt')), testProfile(i)),
      ),
    );
    const real = await loadProfiles(specOf(at('dot', 'real.pt')));
    expect(real.profiles).toHaveLength(8);
    await expectLink(at('pf', 'sym.pt'), '../dot/real.pt');
  });
});

import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/client/config/store.js';
import { InputError } from '../../src/common/errors.js';
import { tempDirs } from '../helpers/temp.js';

const dirs = tempDirs();
afterAll(() => dirs.removeAll());

describe('the configuration store', () => {
  it('reads without writing: a missing file stays missing until something changes', async () => {
    const dir = await dirs.make();
    const store = await ConfigStore.open({ KSCTL_CONFIG_DIR: dir });
    expect(store.names()).toEqual([]);
    expect(store.currentContext).toBeUndefined();
    expect(existsSync(join(dir, 'config.json'))).toBe(false);

    await store.set('dev', { baseUrl: 'http://127.0.0.1:1/v2/t', token: 't' });
    await store.use('dev');
    expect((await stat(join(dir, 'config.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const again = await ConfigStore.open({ KSCTL_CONFIG_DIR: dir });
    expect(again.currentContext).toBe('dev');
    expect(again.get('dev')).toEqual({ baseUrl: 'http://127.0.0.1:1/v2/t', token: 't' });
  });

  it('changes go through the file as it is now, not as it was when opened', async () => {
    const dir = await dirs.make();
    const first = await ConfigStore.open({ KSCTL_CONFIG_DIR: dir });
    const second = await ConfigStore.open({ KSCTL_CONFIG_DIR: dir });
    await first.set('a', { baseUrl: 'http://127.0.0.1:1/v2/a' });
    await second.set('b', { baseUrl: 'http://127.0.0.1:1/v2/b' });
    expect(second.names()).toEqual(['a', 'b']);
    await second.remove('a');
    expect((await ConfigStore.open({ KSCTL_CONFIG_DIR: dir })).names()).toEqual(['b']);
  });

  it.each([
    ['not JSON', '{"contexts": {', /is not valid: .*JSON/],
    ['a list', '[]', /is not valid: it does not hold a JSON object/],
    ['contexts that are not objects', '{"contexts": {"a": 1}}', /"contexts" is not an object/],
    ['a current context that is not a name', '{"currentContext": 7}', /"currentContext"/],
  ])('names a file holding %s, and leaves it as it is', async (_what, text, reason) => {
    const dir = await dirs.make();
    const file = join(dir, 'config.json');
    await writeFile(file, text);
    const opened = ConfigStore.open({ KSCTL_CONFIG_DIR: dir });
    await expect(opened).rejects.toThrow(InputError);
    await expect(opened).rejects.toThrow(reason);
    await expect(opened).rejects.toThrow(file);
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  describe('without KSCTL_CONFIG_DIR', () => {
    const saved = process.env.XDG_CONFIG_HOME;
    afterEach(() => {
      if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = saved;
    });

    it.runIf(process.platform === 'linux')(
      'reads and writes the file where earlier versions (with conf) kept it, in the same form',
      async () => {
        const home = await dirs.make();
        process.env.XDG_CONFIG_HOME = home;
        const file = join(home, 'ksctl', 'config.json');
        await mkdir(dirname(file), { recursive: true });
        // As conf wrote it: tab-indented, without a final newline.
        const written = JSON.stringify(
          {
            contexts: { 'from-conf': { baseUrl: 'http://127.0.0.1:1/v2/c' } },
            currentContext: 'from-conf',
          },
          undefined,
          '\t',
        );
        await writeFile(file, written);
        const store = await ConfigStore.open({});
        expect(store.currentContext).toBe('from-conf');
        expect(store.names()).toEqual(['from-conf']);
        await store.use('from-conf');
        expect(await readFile(file, 'utf8')).toBe(written);
      },
    );
  });
});

describe('a configuration that cannot be written', () => {
  it('is reported with its path, not as a bug', async () => {
    // A file where the directory should be: refused even to root, unlike file modes.
    const dir = join(await dirs.make(), 'ksctl');
    const store = await ConfigStore.open({ KSCTL_CONFIG_DIR: dir });
    await writeFile(dir, 'not a directory');
    const change = store.set('dev', { baseUrl: 'http://127.0.0.1:1/v2/t' });
    await expect(change).rejects.toThrow(InputError);
    await expect(change).rejects.toThrow(
      `cannot create the directory ${dir}: ${dir} is not a directory`,
    );
    expect(await readFile(dir, 'utf8')).toBe('not a directory');
  });
});

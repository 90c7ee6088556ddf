/**
 * `ksctl mock console` with the real binary against a spawned `ksctl mock serve`: a fresh
 * sign-in link from the running mock, opened in the browser where there is one (a stand-in
 * xdg-open here) and printed where there is none; and `mock serve --no-console`. Needs a build.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, mockServeSuite, serveMock } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const suite = mockServeSuite();
const { ksctl } = suite;
const dirs = tempDirs();
afterAll(() => dirs.removeAll());

/** No display, no SSH, no CI: only what a test sets. */
const NO_BROWSER = { DISPLAY: '', WAYLAND_DISPLAY: '', SSH_CONNECTION: '', SSH_TTY: '', CI: '' };

async function signsIn(link: string): Promise<boolean> {
  const answer = await fetch(link, { redirect: 'manual' });
  return answer.status === 303 && answer.headers.get('set-cookie') !== null;
}

/** A directory with an `xdg-open` that writes the link it is given to `opened`, exiting `code`. */
async function standInOpener(code: number): Promise<{ path: string; opened: string }> {
  const dir = await dirs.make();
  const opened = join(dir, 'opened');
  const script = join(dir, 'xdg-open');
  await writeFile(script, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\nexit ${code}\n`);
  await chmod(script, 0o755);
  return { path: `${dir}:${process.env.PATH ?? ''}`, opened };
}

describe('ksctl mock console', () => {
  it('--print prints a fresh one-time sign-in link alone on stdout', async () => {
    const printed = await ksctl(['mock', 'console', '--print'], NO_BROWSER);
    expect(printed.code).toBe(0);
    const link = printed.stdout.trim();
    expect(printed.stdout).toBe(`${link}\n`);
    expect(link).toMatch(
      new RegExp(`^${suite.served.info.url}/_mock/console/login\\?code=[\\w-]{22}$`),
    );
    expect(link).not.toBe(suite.served.info.consoleUrl);
    expect(await signsIn(link)).toBe(true);
    expect(await signsIn(link)).toBe(false);
  });

  it('prints the link where there is no browser: no display, or an SSH session', async () => {
    const opener = await standInOpener(0);
    for (const env of [
      { ...NO_BROWSER, PATH: opener.path },
      {
        ...NO_BROWSER,
        PATH: opener.path,
        DISPLAY: ':0',
        SSH_CONNECTION: '10.0.0.1 22 10.0.0.2 22',
      },
      { ...NO_BROWSER, PATH: opener.path, WAYLAND_DISPLAY: 'wayland-0', CI: 'true' },
    ]) {
      const printed = await ksctl(['mock', 'console'], env);
      expect(printed.code).toBe(0);
      expect(await signsIn(printed.stdout.trim())).toBe(true);
    }
    await expect(readFile(opener.opened, 'utf8')).rejects.toThrow();
  });

  it.skipIf(process.platform !== 'linux')(
    'opens the link with xdg-open where there is a display, and prints it when that fails',
    async () => {
      const opener = await standInOpener(0);
      const opened = await ksctl(['mock', 'console'], {
        ...NO_BROWSER,
        PATH: opener.path,
        DISPLAY: ':0',
      });
      expect(opened.code).toBe(0);
      expect(opened.stdout).toBe('');
      expect(opened.stderr).toContain('opened the console in your browser');
      expect(await signsIn(await readFile(opener.opened, 'utf8'))).toBe(true);

      const broken = await standInOpener(3);
      const printed = await ksctl(['mock', 'console'], {
        ...NO_BROWSER,
        PATH: broken.path,
        DISPLAY: ':0',
      });
      expect(printed.code).toBe(0);
      expect(await signsIn(printed.stdout.trim())).toBe(true);
    },
  );
});

describe('ksctl mock serve --no-console', () => {
  it('gives no console link anywhere, and ksctl mock console says there is no console', async () => {
    const configDir = await dirs.make();
    const env = cleanEnv({ KSCTL_CONFIG_DIR: configDir, ...NO_BROWSER });
    const served = await serveMock(['--no-console'], {
      env,
      readyFile: join(configDir, 'ready.json'),
    });
    try {
      expect('consoleUrl' in served.info).toBe(false);
      // The banner (on stderr) is written before the ready file.
      const banner = served.output().stderr;
      expect(banner).toContain('Dev token');
      expect(banner).not.toContain('/_mock/console');
      expect(banner).not.toContain('Console:');
      const page = await fetch(`${served.info.url}/_mock/console/`);
      expect(page.status).toBe(404);
      const asked = await ksctl(['mock', 'console', '--print'], {
        ...NO_BROWSER,
        KSCTL_CONFIG_DIR: configDir,
      });
      expect(asked.code).toBe(5);
      expect(asked.stdout).toBe('');
      expect(asked.stderr).toContain(`the mock at ${served.info.url} serves no console`);
      expect(asked.stderr).toContain('--no-console');
    } finally {
      await served.stop();
    }
  });
});

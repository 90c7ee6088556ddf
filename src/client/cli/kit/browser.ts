/**
 * Opening a link in the user's browser, where there is one to open it in: always on macOS and
 * Windows, on Linux and others only with a display (DISPLAY or WAYLAND_DISPLAY), never in an SSH
 * session or on CI (the browser would open on another screen, or nowhere).
 */
import { spawn } from 'node:child_process';

/** Whether a browser is there to open links in. */
export function canOpenBrowser(env: NodeJS.ProcessEnv, platform = process.platform): boolean {
  if (env.SSH_CONNECTION || env.SSH_TTY || env.CI) return false;
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/** The command that opens a link on this platform. */
function opener(url: string, platform: NodeJS.Platform): [command: string, args: string[]] {
  if (platform === 'darwin') return ['open', [url]];
  // start's first quoted argument is a window title; the link is passed after it.
  if (platform === 'win32') return ['cmd', ['/d', '/s', '/c', 'start', '""', url]];
  return ['xdg-open', [url]];
}

/** How long the opener may take to say it failed; past it, it is taken to have worked. */
const OPENER_WAIT_MS = 3000;

/**
 * Opens the link; resolves false when the opener is missing or fails (then the caller prints the
 * link instead). The opener runs detached: ksctl does not wait for the browser.
 */
export function openBrowser(
  url: string,
  env: NodeJS.ProcessEnv,
  platform = process.platform,
): Promise<boolean> {
  const [command, args] = opener(url, platform);
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      env,
      stdio: 'ignore',
      detached: platform !== 'win32',
      windowsVerbatimArguments: platform === 'win32',
    });
    const timer = setTimeout(() => {
      child.unref();
      resolve(true);
    }, OPENER_WAIT_MS);
    child.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}

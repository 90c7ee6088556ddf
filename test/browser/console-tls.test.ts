/**
 * Issue 37: the console of `ksctl mock serve --tls` in Debian's Chromium, with the mock's CA
 * trusted as a user trusts it on Linux: in the NSS database of the browser's home (certutil),
 * never by ignoring certificate errors. It signs in with the banner's link over HTTPS, its
 * session cookie is Secure, it lists the requests ksctl made, and its own writes pass the
 * same-origin check (an https Origin). A browser without the CA refuses the page.
 *
 * Needs /usr/bin/chromium and certutil (Debian's libnss3-tools): without either it is skipped
 * with one line saying which, unless CI is set (.ci/run installs both).
 */
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS } from '../../bench/lib/chromium.js';
import { newContext, requireChromium, watchedPage, WIDE } from '../helpers/browser.js';
import { requireProgram } from '../helpers/programs.js';
import { assertBuilt, cleanEnv, ksctl, type ServedMock, serveMock } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

// Skipped, each test naming what is missing and how to get it, unless CI is set (then they fail).
const hasPrograms = [
  requireChromium(),
  requireProgram('certutil', 'apt-get install libnss3-tools'),
].every(Boolean);

const temp = tempDirs();
let served: ServedMock;
let configDir: string;
let browserHome: string;
let trusting: Browser;

function launch(home: string): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS],
    env: { ...process.env, HOME: home },
  });
}

describe('the console over HTTPS in Chromium (issue 37)', () => {
  beforeAll(async () => {
    if (!hasPrograms) return;
    assertBuilt();
    configDir = await temp.make();
    browserHome = await temp.make();
    served = await serveMock(['--tls', '--json'], {
      env: cleanEnv({ KSCTL_CONFIG_DIR: configDir, KSCTL_HOME: configDir }),
      readyFile: join(configDir, 'ready.json'),
      readyTimeoutMs: 60_000,
    });
    // What a Linux user does to trust a CA in Chromium: add it to the NSS database in $HOME.
    const db = join(browserHome, '.pki', 'nssdb');
    await mkdir(db, { recursive: true });
    execFileSync('certutil', ['-N', '-d', `sql:${db}`, '--empty-password']);
    execFileSync('certutil', [
      '-A',
      '-d',
      `sql:${db}`,
      '-n',
      'ksctl mock',
      '-t',
      'C,,',
      '-i',
      served.info.caFile!,
    ]);
    trusting = await launch(browserHome);
  }, 120_000);

  afterAll(async () => {
    await trusting?.close();
    await served?.stop();
    await temp.removeAll();
  });

  it('signs in with the banner link, keeps a Secure cookie, lists requests and writes', async () => {
    const listed = await ksctl(['markings', 'list'], {
      env: cleanEnv({ KSCTL_CONFIG_DIR: configDir, KSCTL_HOME: configDir }),
    });
    expect(listed.code, listed.stderr).toBe(0);
    const context = await newContext(trusting, WIDE);
    const { page, problems } = await watchedPage(context);
    await page.goto(served.info.consoleUrl!);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(new URL(page.url()).protocol).toBe('https:');
    const cookies = await context.cookies();
    expect(cookies).toEqual([expect.objectContaining({ secure: true, httpOnly: true })]);
    await page.evaluate(`location.hash = '#/requests'`);
    await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
    await page.getByRole('row').filter({ hasText: '/v2/dev/markings' }).first().waitFor();
    // A write from the page: its Origin is https://…, which the console takes as its own.
    await page.evaluate(`location.hash = '#/tokens'`);
    await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
    await page.getByLabel('User').fill('tls-tester');
    await page.getByRole('button', { name: 'Mint' }).press('Enter');
    await page.getByRole('button', { name: 'Copy ksctl enroll' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a browser that does not trust the CA refuses the page', async () => {
    const untrusting = await launch(await temp.make());
    try {
      const page = await (await untrusting.newContext()).newPage();
      const error = await page.goto(served.info.consoleUrl!).then(
        () => undefined,
        (e: unknown) => (e as Error).message,
      );
      expect(error).toContain('ERR_CERT_AUTHORITY_INVALID');
    } finally {
      await untrusting.close();
    }
  });
});

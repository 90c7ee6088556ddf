/**
 * Debian's Chromium (never a downloaded one), headless, launched the same way by the console's
 * browser tests (test/helpers/browser.ts) and the console probe (console-probe.js), so that the
 * benchmark measures the browser the tests check.
 */
import { chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium() {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

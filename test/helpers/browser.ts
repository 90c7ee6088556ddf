/**
 * The console's browser tests: Debian's Chromium (never a downloaded one) driven by
 * playwright-core, one browser per test file; without it they are skipped, saying so (or fail,
 * under CI). A page records every console error and uncaught
 * exception, so a test can say there were none; axe-core is run by evaluating its source, which
 * the console's Content-Security-Policy (script-src 'self') would refuse as a script tag.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHROMIUM } from '../../bench/lib/chromium.js';
import { requireProgram } from './programs.js';

export { launchChromium } from '../../bench/lib/chromium.js';

/**
 * Whether Debian's Chromium is there; when it is not, the tests of the enclosing block or file
 * are skipped naming it (or fail, under CI), and a beforeAll that launches it returns early.
 */
export function requireChromium(): boolean {
  return requireProgram('chromium', 'apt-get install chromium', { path: CHROMIUM });
}

/**
 * Waits until `condition`, a JavaScript expression, is true in the page. Playwright evaluates a
 * `waitForFunction` expression with `eval` at every poll after the first, which the console's
 * Content-Security-Policy (no 'unsafe-eval') refuses as soon as the first check is false; the
 * expression is handed over as the source of a function, which is evaluated once, on the
 * first check, and then called.
 */
export async function waitInPage(page: Page, condition: string, timeout = 10_000): Promise<void> {
  // eslint-disable-next-line no-restricted-syntax -- the one place a predicate is handed over
  await page.waitForFunction(`() => (${condition})`, undefined, { timeout });
}

export const WIDE = { width: 1440, height: 900 };
export const NARROW = { width: 390, height: 844 };

/**
 * A page whose console errors, uncaught exceptions and failed loads of its own files (anything
 * but an API answer) are kept in `problems`.
 */
export async function watchedPage(
  context: BrowserContext,
  problems: string[] = [],
): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  page.on('console', (message) => {
    // The browser's own note of an answer >= 400: judged by its URL below, not here.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      problems.push(`console: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  // An API may refuse (the page shows why); the page's own files must always load.
  page.on('response', (response) => {
    if (response.status() >= 400 && !new URL(response.url()).pathname.includes('/api/')) {
      problems.push(`${response.status()} for ${response.url()}`);
    }
  });
  return { page, problems };
}

let axeSource: string | undefined;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } })
      .axe;
    const result = await axe.run();
    return result.violations as {
      id: string;
      impact: string | null;
      help: string;
      nodes: { target: string[] }[];
    }[];
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
}

/** A browser context at this size, whose waits give up after 10 s rather than 30. */
export async function newContext(
  browser: Browser,
  viewport: { width: number; height: number },
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(10_000);
  return context;
}

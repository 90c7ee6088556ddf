/**
 * The mock console in a real browser (Debian's Chromium through playwright-core), against a
 * spawned `ksctl mock serve`: signing in with the banner's link and nothing without it, each
 * page doing what a QA person would do with it, keyboard only where it matters, axe-core on every
 * page at 1440 and 390 pixels wide, and no error in the page's console. It also makes the two
 * screenshots the README shows: into docs/ (console-requests.png, console-devices.png) when run
 * with KSCTL_SCREENSHOTS=1, else into a temporary folder, so that a test run leaves the tree as
 * it was.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockInfo } from '../../src/common/mock/wire.js';
import {
  launchChromium,
  NARROW,
  newContext,
  requireChromium,
  seriousViolations,
  waitInPage,
  watchedPage,
  WIDE,
} from '../helpers/browser.js';
import { mockServeSuite, ROOT } from '../helpers/spawn.js';
import { tempDirs } from '../helpers/temp.js';

const suite = mockServeSuite();
const { ksctl } = suite;

let browser: Browser;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];

const info = () => suite.served.info as MockInfo & { consoleUrl?: string };
const consoleHome = () => `${info().url}/_mock/console/`;

/** A fresh one-time sign-in link, as `ksctl mock console` asks for it. */
async function freshLink(): Promise<string> {
  const answer = await fetch(`${info().url}/_mock/console/links`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${info().token}` },
  });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { consoleUrl: string }).consoleUrl;
}

/** A signed-in page in its own browser context, its problems kept with the others. */
async function signedIn(viewport = WIDE): Promise<{ context: BrowserContext; page: Page }> {
  const ctx = await newContext(browser, viewport);
  const watched = await watchedPage(ctx, problems);
  await watched.page.goto(await freshLink());
  await watched.page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  return { context: ctx, page: watched.page };
}

async function go(p: Page, route: string, heading: string | RegExp): Promise<void> {
  await p.evaluate(`location.hash = ${JSON.stringify(route)}`);
  await p.getByRole('heading', { name: heading, level: 1 }).waitFor();
}

async function expectNoSeriousViolations(p: Page, where: string): Promise<void> {
  const violations = await seriousViolations(p);
  expect(violations, `${where}: ${JSON.stringify(violations, null, 1)}`).toEqual([]);
}

/** KSCTL_SCREENSHOTS=1 writes the README's screenshots in docs/; without it they go to a temp dir. */
const WRITE_DOCS = process.env.KSCTL_SCREENSHOTS === '1';
const DOCS_SHOTS = ['console-devices.png', 'console-requests.png'].map((n) =>
  join(ROOT, 'docs', n),
);
const temp = tempDirs();
let screenshots: string;
/** When each docs/ screenshot was last written, before this run. */
let docsWrittenBefore: number[];
const writtenAt = (files: string[]) =>
  Promise.all(files.map(async (f) => (await stat(f).catch(() => undefined))?.mtimeMs ?? 0));

const hasChromium = requireChromium();

beforeAll(async () => {
  if (!hasChromium) return;
  browser = await launchChromium();
  screenshots = WRITE_DOCS ? join(ROOT, 'docs') : await temp.make();
  docsWrittenBefore = await writtenAt(DOCS_SHOTS);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await temp.removeAll();
});

describe('signing in', () => {
  it('shows the sign-in form and nothing of the tenant without the link; every API call is 401', async () => {
    const ctx = await newContext(browser, WIDE);
    const { page: p, problems: own } = await watchedPage(ctx);
    await p.goto(consoleHome());
    await p.getByRole('heading', { name: 'Sign in to the mock console' }).waitFor();
    const text = await p.locator('body').innerText();
    expect(text).toContain('ksctl mock console');
    for (const secret of [`/v2/${info().tenantId}`, info().keyspace, info().token, info().url]) {
      expect(text).not.toContain(secret);
    }
    expect(await p.getByRole('navigation', { name: 'Console' }).isVisible()).toBe(false);
    const statuses = await p.evaluate(async () => {
      const out: Record<string, number> = {};
      for (const path of ['overview', 'markings', 'devices', 'requests', 'faults', 'outbox']) {
        out[path] = (await fetch(`api/${path}`)).status;
      }
      return out;
    });
    expect(Object.values(statuses).every((s) => s === 401)).toBe(true);
    await expectNoSeriousViolations(p, 'sign-in');
    expect(own).toEqual([]);
    await ctx.close();
  });

  it('signs in with the banner link once; the link used again asks to sign in', async () => {
    const link = info().consoleUrl;
    expect(link).toMatch(/\/_mock\/console\/login\?code=/);
    const first = await newContext(browser, WIDE);
    const p = await first.newPage();
    await p.goto(link!);
    await p.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await p.getByText(info().baseUrl).first().waitFor();
    await first.close();

    const second = await newContext(browser, WIDE);
    const q = await second.newPage();
    await q.goto(link!);
    await q.getByRole('heading', { name: 'Sign in to the mock console' }).waitFor();
    await q.getByText('already used').waitFor();
    await second.close();
  });

  it('signs in from the keyboard with the dev token, and says so when it is wrong', async () => {
    const ctx = await newContext(browser, NARROW);
    const p = await ctx.newPage();
    await p.goto(consoleHome());
    await p.getByLabel('Dev token').focus();
    await p.keyboard.type('not-the-token');
    await p.keyboard.press('Enter');
    await p.getByText('not the mock’s dev token').waitFor();
    await p.getByLabel('Dev token').focus();
    await p.keyboard.type(info().token);
    await p.keyboard.press('Enter');
    await p.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await ctx.close();
  });

  it('signs in with the form posted as a plain HTML form, without its script', async () => {
    const ctx = await newContext(browser, WIDE);
    const p = await ctx.newPage();
    await p.goto(consoleHome());
    await p.getByLabel('Dev token').fill(info().token);
    // form.submit() skips the page's submit handler: the browser posts the form itself.
    const posted = p.waitForResponse((r) => r.url().endsWith('/_mock/console/login'));
    await p.evaluate(`document.querySelector('form').submit()`);
    expect((await posted).status()).toBe(303);
    await p.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await ctx.close();
  });
});

describe('the pages', () => {
  beforeAll(async () => {
    if (!hasChromium) return;
    ({ context, page } = await signedIn());
  }, 30_000);
  afterAll(async () => {
    await context?.close();
  });

  it('walks the navigation with Tab and Enter', async () => {
    const nav = page.getByRole('navigation', { name: 'Console' });
    await nav.getByRole('link', { name: 'Overview' }).focus();
    for (const name of ['Markings', 'Devices', 'Requests', 'Faults', 'Tokens']) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.textContent')).toBe(name);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name, level: 1 }).waitFor();
      await nav.getByRole('link', { name }).focus();
    }
  });

  it('shows markings created through the API; one edited in the console is what markings get returns', async () => {
    for (const name of ['qa-colour', 'qa-shape']) {
      const made = await ksctl(['markings', 'create', name, '--value', 'red', '--value', 'blue']);
      expect(made.code, made.stderr).toBe(0);
    }
    await go(page, '#/markings', 'Markings');
    await page.getByLabel('Filter', { exact: true }).fill('name__startswith=qa-');
    await page.getByLabel('Filter', { exact: true }).press('Enter');
    await page.getByRole('link', { name: 'qa-shape' }).waitFor();
    await page.getByText('1–2 of 2').waitFor();

    // A filter the API refuses shows its message beside the form.
    await page.getByLabel('Filter', { exact: true }).fill('colour__contains=x');
    await page.getByLabel('Filter', { exact: true }).press('Enter');
    await page.getByRole('alert').filter({ hasText: 'colour' }).waitFor();

    await go(page, '#/markings?q=qa-colour', 'Markings');
    await page.getByRole('link', { name: 'qa-colour' }).press('Enter');
    await page.getByRole('heading', { name: 'qa-colour', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Edit marking' }).press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Edit qa-colour' });
    await dialog.waitFor();
    // The API's rule, shown in the dialog: the default value must be one of the values.
    await dialog.getByLabel('Default value').fill('green');
    await dialog.getByLabel('Default value').press('Enter');
    await dialog.getByRole('alert').waitFor();
    expect(await dialog.getByRole('alert').innerText()).toMatch(/green/);
    await dialog.getByLabel('Default value').fill('blue');
    await dialog.getByLabel('Description').fill('Edited in the console');
    await dialog.getByRole('button', { name: 'Save' }).press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('Edited in the console').waitFor();

    const got = await ksctl(['markings', 'get', 'qa-colour', '-o', 'json']);
    expect(got.code, got.stderr).toBe(0);
    const marking = JSON.parse(got.stdout) as {
      defaultValue: string;
      detail: { description: string };
    };
    expect(marking.defaultValue).toBe('blue');
    expect(marking.detail.description).toBe('Edited in the console');

    // A value added, then removed after the dialog asked.
    await page.getByLabel('New value name').fill('green');
    await page.getByLabel('New value name').press('Enter');
    await page.getByRole('button', { name: 'Remove value green' }).waitFor();
    await page.getByRole('button', { name: 'Remove value green' }).press('Enter');
    const ask = page.getByRole('dialog', { name: 'Remove the value green?' });
    await ask.waitFor();
    await expectNoSeriousViolations(page, 'markings, a removal asked');
    await ask.getByRole('button', { name: 'Remove value' }).press('Enter');
    await page.getByRole('button', { name: 'Remove value green' }).waitFor({ state: 'detached' });
    const values = await ksctl(['markings', 'get', 'qa-colour', '-o', 'json']);
    expect(JSON.parse(values.stdout).detail.values.map((v: { name: string }) => v.name)).toEqual([
      'blue',
      'red',
    ]);
  });

  it('shows a device enrolled with ksctl enroll and its key; keys/create opened shows the attributes in clear', async () => {
    const enrolled = await ksctl(['enroll', '--mock-user', 'alice', '--name', 'qa']);
    expect(enrolled.code, enrolled.stderr).toBe(0);
    const created = await ksctl([
      'keys',
      'create',
      '--attr',
      'project=apollo',
      '--protected-attr',
      'codename=blue-falcon',
      '-o',
      'json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const [key] = JSON.parse(created.stdout) as { id: string }[];

    await go(page, '#/devices', 'Devices');
    const row = page.getByRole('row').filter({ hasText: 'alice' });
    await row.waitFor();
    await row.getByRole('link').press('Enter');
    await page.getByRole('heading', { name: /^Device / }).waitFor();
    const keyRow = page.getByRole('row').filter({ hasText: key!.id });
    await keyRow.waitFor();
    expect(await keyRow.innerText()).toContain('apollo');
    await page.screenshot({ path: join(screenshots, 'console-devices.png') });
    await page.setViewportSize(NARROW);
    await expectNoSeriousViolations(page, 'device, 390 px');
    await page.setViewportSize(WIDE);

    await page.getByRole('link', { name: 'Requests of this device' }).press('Enter');
    await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
    const create = page.getByRole('link', { name: /keys\/create/ }).first();
    await create.waitFor();
    await create.press('Enter');
    const opened = page.getByRole('region', { name: 'The request envelope in clear' });
    await opened.waitFor();
    expect(await opened.innerText()).toContain('apollo');
    const decrypted = page.locator('mark.decrypted');
    await decrypted.first().waitFor();
    expect(await decrypted.first().innerText()).toContain('blue-falcon');
    await page.setViewportSize({ width: 1440, height: 1100 });
    await decrypted.first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(screenshots, 'console-requests.png') });
    await page.setViewportSize(WIDE);
    await expectNoSeriousViolations(page, 'requests, a device request opened');
    await page.setViewportSize(NARROW);
    await expectNoSeriousViolations(page, 'requests opened, 390 px');
    await page.keyboard.press('Escape');
    await page.getByRole('region', { name: 'The request envelope in clear' }).waitFor({
      state: 'detached',
    });
    await page.setViewportSize(WIDE);
  });

  it("shows each filter's chosen option whole, at 1440, 1000 and 390 pixels", async () => {
    await go(page, '#/requests', 'Requests');
    await page.getByRole('search', { name: 'Filter requests' }).waitFor();
    // Every option of every select must fit the select's box (its arrow apart): a chosen
    // option's text is cut, not wrapped. A string: it runs in the page, not here.
    const cut = () =>
      page.evaluate<string[]>(`(() => {
        const form = document.querySelector('form[aria-label="Filter requests"]');
        const found = [];
        const measure = document.createElement('canvas').getContext('2d');
        for (const select of form.querySelectorAll('select')) {
          const style = getComputedStyle(select);
          measure.font = style.fontWeight + ' ' + style.fontSize + ' ' + style.fontFamily;
          const room = select.clientWidth - parseFloat(style.paddingLeft) -
            parseFloat(style.paddingRight) - 16;
          for (const option of select.options) {
            if (measure.measureText(option.text).width > room) found.push(option.text);
          }
        }
        return found;
      })()`);
    for (const viewport of [WIDE, { width: 1000, height: 900 }, NARROW]) {
      await page.setViewportSize(viewport);
      expect(await cut(), `at ${viewport.width} px`).toEqual([]);
    }
    await page.setViewportSize(WIDE);
  });

  it('keeps the time, method, path and status of each request in view at 390 pixels', async () => {
    await page.setViewportSize(NARROW);
    await go(page, '#/requests', 'Requests');
    const row = page.getByRole('row').filter({ hasText: 'keys/create' }).first();
    await row.waitFor();
    const cells = await row.getByRole('cell').all();
    const shown: { text: string; right: number }[] = [];
    for (const cell of cells) {
      const box = await cell.boundingBox();
      if (box && box.width > 0)
        shown.push({ text: await cell.innerText(), right: box.x + box.width });
    }
    // Time, method, path, status: side, took and device are in the request's detail.
    expect(shown).toHaveLength(4);
    const [time, method, path, status] = shown;
    expect(time!.text).toMatch(/^\d\d:\d\d:\d\d/);
    expect(method!.text).toBe('POST');
    expect(path!.text).toContain('keys/create');
    expect(status!.text).toMatch(/^\d{3}/);
    expect(status!.right).toBeLessThanOrEqual(NARROW.width);
    const wrap = page.locator('.request-list .table-wrap');
    const scrolls = await wrap.evaluate(
      (el: { scrollWidth: number; clientWidth: number }) => el.scrollWidth > el.clientWidth,
    );
    expect(scrolls).toBe(false);
    await page.setViewportSize(WIDE);
  });

  it('shows a device request failed inside its envelope as failed: its code, the 4xx filter, the whole row', async () => {
    // A fetch of a key no one made: HTTP 200, the failure (4004) sealed in the answer.
    const enrolled = await ksctl(['enroll', '--mock-user', 'alice', '--name', 'qa-fetch']);
    expect(enrolled.code, enrolled.stderr).toBe(0);
    const missing = await ksctl(['keys', 'fetch', 'ABcdnone0000', '--profile', 'qa-fetch']);
    expect(missing.code).not.toBe(0);
    await go(page, '#/requests?status=4xx', 'Requests');
    // The page was already on the Requests list: it reloads it for the filter, and a row clicked
    // as the reloaded rows replace it gets no click. Wait until rows are shown, each a 4xx one.
    const rows = '.requests-table tbody tr';
    await waitInPage(
      page,
      `document.querySelectorAll('${rows}').length > 0 &&
        [...document.querySelectorAll('${rows}')].every((row) =>
          [...row.querySelectorAll('td.status .badge')].some((b) => /^4/.test(b.textContent)))`,
    );
    // The fetch is two requests (the fingerprint's 4001 first): the row of the one that failed.
    const row = page
      .getByRole('row')
      .filter({ hasText: 'keys/fetch' })
      .filter({ has: page.locator('.badge', { hasText: '4004' }) })
      .first();
    await row.waitFor();
    const shown = `${missing.stderr}\nthe list: ${await page.locator(rows).allInnerTexts()}`;
    expect(await row.locator('td.status .badge').allTextContents(), shown).toEqual(['200', '4004']);
    // A click anywhere on the row (here its time) opens the request, not only its path.
    await row.locator('td.time').click();
    await page
      .getByRole('heading', { name: /keys\/fetch/ })
      .first()
      .waitFor();
    expect(await page.evaluate('location.hash')).toMatch(/^#\/requests\/\d+/);
    await page.keyboard.press('Escape');

    // At 390 pixels each row shows its whole time and its whole path: no two look alike.
    await page.setViewportSize(NARROW);
    await go(page, '#/requests', 'Requests');
    await page.getByRole('row').filter({ hasText: 'keys/fetch' }).first().waitFor();
    const cut = await page.evaluate<string[]>(`(() => {
      const found = [];
      for (const row of document.querySelectorAll('.requests-table tbody tr')) {
        for (const cell of [row.cells[0], row.cells[3], row.cells[4]]) {
          const style = getComputedStyle(cell);
          const room = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
          const range = document.createRange();
          range.selectNodeContents(cell);
          if (range.getBoundingClientRect().width > room + 1) found.push(cell.textContent);
        }
      }
      return found;
    })()`);
    expect(cut).toEqual([]);
    await page.screenshot({ path: join(screenshots, 'requests-390.png') });
    await page.setViewportSize(WIDE);
    await page.screenshot({ path: join(screenshots, 'requests-1440.png') });
  });

  it('lists devices newest first, as the page says', async () => {
    for (const name of ['qa-first', 'qa-second']) {
      const enrolled = await ksctl(['enroll', '--mock-user', 'alice', '--name', name]);
      expect(enrolled.code, enrolled.stderr).toBe(0);
    }
    const devices = JSON.parse((await ksctl(['mock', 'devices', '-o', 'json'])).stdout) as {
      deviceId: string;
    }[];
    const [first, second] = devices.slice(-2).map((d) => d.deviceId);
    await go(page, '#/devices', 'Devices');
    await page.getByRole('link', { name: second! }).waitFor();
    const order = await page.locator('table a.mono').allInnerTexts();
    expect(order.indexOf(second!)).toBeLessThan(order.indexOf(first!));
    expect(order[0]).toBe(second);
  });

  it('keeps the outbox and the rule form apart from their neighbours, and --fault whole, at 390 px', async () => {
    await page.setViewportSize(NARROW);
    // The gap between a section and what comes before it, in pixels; -1 until both are drawn
    // (a page's sections come as their data does: polled, not read once).
    const gapBefore = (selector: string) =>
      page.evaluate<number>(`(() => {
        const el = document.querySelector(${JSON.stringify(selector)});
        const before = el && el.previousElementSibling;
        if (!before) return -1;
        return el.getBoundingClientRect().top - before.getBoundingClientRect().bottom;
      })()`);
    await go(page, '#/tokens', 'Tokens');
    await expect
      .poll(() => gapBefore('section[aria-labelledby="outbox-title"]'))
      .toBeGreaterThanOrEqual(16);
    await page.screenshot({ path: join(screenshots, 'tokens-390.png'), fullPage: true });
    await go(page, '#/faults', 'Faults');
    await page.getByRole('heading', { name: 'Add a rule' }).waitFor();
    await expect.poll(() => gapBefore('form.fault-form')).toBeGreaterThanOrEqual(16);
    const flag = page.locator('p code').filter({ hasText: '--fault' });
    const lines = await flag.evaluate(
      (el: { getClientRects(): { length: number } }) => el.getClientRects().length,
    );
    expect(lines).toBe(1);
    await page.screenshot({ path: join(screenshots, 'faults-390.png'), fullPage: true });
    await page.setViewportSize(WIDE);
  });

  it('adds a fault rule from the keyboard that makes the next API call fail as it says', async () => {
    await go(page, '#/faults', 'Faults');
    // The mock's own check, shown beside the form.
    await page.getByLabel('Probability').fill('2');
    await page.getByLabel('Probability').press('Enter');
    await page.getByRole('alert').filter({ hasText: 'probability' }).waitFor();

    await page.getByLabel('Probability').fill('');
    await page.getByLabel('Method').selectOption('GET');
    await page.getByLabel('Path').fill(`/v2/${info().tenantId}/markings`);
    await page.getByLabel('Status').fill('500');
    await page.getByLabel('Times').fill('2');
    await page.getByRole('button', { name: 'Add rule' }).press('Enter');
    await page.getByRole('button', { name: 'Remove rule 1' }).waitFor();

    const failed = await ksctl(['markings', 'list']);
    expect(failed.code).toBe(7);
    expect(failed.stderr).toMatch(/500/);
    // Its hit counted, and one time left of two.
    const rule = page.getByRole('row').filter({ hasText: `/v2/${info().tenantId}/markings` });
    await expect.poll(() => rule.innerText(), { timeout: 8000 }).toMatch(/\b1\s+1\s+Remove/);

    await page.getByRole('button', { name: 'Clear all rules' }).press('Enter');
    const ask = page.getByRole('dialog', { name: 'Clear all fault rules?' });
    await ask.waitFor();
    await ask.getByRole('button', { name: 'Clear all' }).press('Enter');
    await page.getByText('No rules').waitFor();
    const again = await ksctl(['markings', 'list']);
    expect(again.code, again.stderr).toBe(0);
  });

  it('mints a token pair with its enroll line, and shows the outbox', async () => {
    await go(page, '#/tokens', 'Tokens');
    await page.getByLabel('User').fill('bob-the-tester');
    await page.getByRole('button', { name: 'Mint' }).press('Enter');
    await page.getByRole('button', { name: 'Copy ksctl enroll' }).waitFor();
    const line = await page.locator('.code-line pre').last().innerText();
    expect(line).toMatch(/ksctl enroll /);
    await page.getByRole('region', { name: 'Outbox messages' }).waitFor();
  });

  it('names each keyspace and tenant on the overview, with what each tenant holds', async () => {
    const admin = { Authorization: `Bearer ${info().token}`, 'content-type': 'application/json' };
    const put = await fetch(`${info().url}/_mock/keyspaces/WXyz`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({ tenant: 'other', enrollment: false }),
    });
    expect(put.status).toBe(201);
    await go(page, '#/overview', 'Overview');
    const about = page.getByRole('region', { name: 'Tenants and keyspaces' });
    await about.getByText('WXyz (tenant other, enrollment off)').waitFor();
    const text = await about.innerText();
    expect(text).not.toContain('[object Object]');
    expect(text).toContain(`${info().keyspace} (tenant ${info().tenantId})`);
    expect(text).toMatch(new RegExp(`${info().tenantId} \\(\\d+ markings?, \\d+ values?\\)`));
    expect(text).toContain('other (0 markings, 0 values)');
    // The cards count the console's tenant, and say so once there are several.
    await page.getByText(`Markings in ${info().tenantId}`).waitFor();
  });

  it('has no serious accessibility violation on any page, 1440 and 390 pixels wide', async () => {
    for (const viewport of [WIDE, NARROW]) {
      await page.setViewportSize(viewport);
      for (const [route, heading] of [
        ['#/overview', 'Overview'],
        ['#/markings', 'Markings'],
        ['#/devices', 'Devices'],
        ['#/requests', 'Requests'],
        ['#/faults', 'Faults'],
        ['#/tokens', 'Tokens'],
      ] as const) {
        await go(page, route, heading);
        await page.waitForLoadState('networkidle').catch(() => undefined);
        await expectNoSeriousViolations(page, `${heading} at ${viewport.width} px`);
      }
    }
    // 390 pixels: the navigation sits behind a menu button, opened from the keyboard.
    await page.setViewportSize(NARROW);
    const menu = page.getByRole('button', { name: 'Menu' });
    expect(await page.getByRole('link', { name: 'Faults' }).isVisible()).toBe(false);
    await menu.press('Enter');
    await page.getByRole('link', { name: 'Faults' }).press('Enter');
    await page.getByRole('heading', { name: 'Faults', level: 1 }).waitFor();
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await page.setViewportSize(WIDE);
  });

  it('wrote the screenshots, into docs/ only with KSCTL_SCREENSHOTS=1', async () => {
    const made = await writtenAt(
      ['console-devices.png', 'console-requests.png'].map((n) => join(screenshots, n)),
    );
    expect(made.every((t) => t > 0)).toBe(true);
    const docs = await writtenAt(DOCS_SHOTS);
    if (WRITE_DOCS) expect(docs.map((t, i) => t > docsWrittenBefore[i]!)).toEqual([true, true]);
    else expect(docs).toEqual(docsWrittenBefore);
  });

  it('logged no error in the page console', () => {
    expect(problems).toEqual([]);
  });
});

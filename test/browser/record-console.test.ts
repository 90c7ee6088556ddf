/**
 * The console of `ksctl mock record` in a real browser (Debian's Chromium through
 * playwright-core), against a recorder in front of a mock: the link signs in to its Requests page
 * (the only page: a recorder holds no markings, devices, faults or tokens), an exchange sent
 * through the recorder shows in the list as it happens (the event stream), and the page has no
 * serious accessibility violation and no error in its console.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Recorder } from '../../src/mock/server/recorder.js';
import {
  launchChromium,
  newContext,
  requireChromium,
  seriousViolations,
  waitInPage,
  watchedPage,
  WIDE,
} from '../helpers/browser.js';
import { startMock, type TestMock } from '../helpers/mock.js';

const REC_TOKEN = 'ksrec.browser-test-token';
const hasChromium = requireChromium();
let browser: Browser;
let mock: TestMock;
let recorder: Recorder;

beforeAll(async () => {
  if (!hasChromium) return;
  mock = await startMock();
  recorder = await Recorder.start({
    host: '127.0.0.1',
    port: 0,
    target: new URL(mock.info.url).origin,
    tenant: mock.info.tenantId,
    devToken: REC_TOKEN,
    targetAuthorization: `Bearer ${mock.token}`,
    secrets: [mock.token],
  });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await recorder?.close();
  await mock?.close();
});

describe("the recorder's console", () => {
  it('signs in with its link to the Requests page only, and lists an exchange live', async () => {
    const ctx = await newContext(browser, WIDE);
    const { page, problems } = await watchedPage(ctx);
    await page.goto(recorder.consoleUrl()!);
    await page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Console' });
    const links = await nav.getByRole('link').allTextContents();
    expect(links).toEqual(['Requests']);
    await page.getByText(`recording ${new URL(mock.info.url).origin}`).waitFor();

    // A page of a mock's state, asked for by its address, is the Requests page.
    await page.evaluate(`location.hash = '#/devices'`);
    await waitInPage(page, "location.hash === '#/requests'");

    const path = `${new URL(mock.baseUrl).pathname}/markings`;
    const answer = await fetch(`${recorder.url}${path}`, {
      headers: { authorization: `Bearer ${REC_TOKEN}` },
    });
    expect(answer.status).toBe(200);
    await page.getByRole('link', { name: path }).first().click();
    // Opened as `requests show` describes it.
    await page.getByText('Conversation id').waitFor();
    const text = await page.locator('body').innerText();
    expect(text).not.toContain(mock.token);
    expect(text).not.toContain(REC_TOKEN);

    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await ctx.close();
  }, 120_000);
});

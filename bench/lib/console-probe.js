#!/usr/bin/env node
/**
 * The console group's probe (bench/groups/console.js), one run per invocation, printing JSON:
 *
 *   --mode render    sign in, then time the Markings page's first render (the first page of
 *                    markings on screen) in a new tab: { firstRenderMs }
 *   --mode signin    time the sign-in screen's first render, no session: { firstRenderMs }
 *   --mode load      `--rate` requests a second for `--seconds` to the markings API, with the
 *                    Requests page open (--open) or no browser at all; reads the mock's CPU time
 *                    from /proc/PID/stat before and after:
 *                    { answered, seconds, cpuSeconds, cpuPercent, events?, entries?,
 *                      eventSeconds?, longest? }
 *                    eventSeconds: how long the page counted events (the load, which a busy
 *                    machine stretches up to twice --seconds, and the last batch's wait)
 *
 * Chromium is the system's (/usr/bin/chromium), never a downloaded one.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Agent, fetch } from 'undici';
import { launchChromium } from './chromium.js';

const { values: o } = parseArgs({
  options: {
    mode: { type: 'string' },
    url: { type: 'string' },
    'base-url': { type: 'string' },
    token: { type: 'string' },
    pid: { type: 'string' },
    rate: { type: 'string', default: '500' },
    seconds: { type: 'string', default: '10' },
    open: { type: 'boolean', default: false },
  },
});

async function freshLink() {
  const answer = await fetch(`${o.url}/_mock/console/links`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${o.token}` },
  });
  if (answer.status !== 201) throw new Error(`a sign-in link: ${answer.status}`);
  return (await answer.json()).consoleUrl;
}

/** A page signed in to the console. */
async function signedIn(browser, init) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  if (init) await page.addInitScript(init);
  await page.goto(await freshLink());
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  return { context, page };
}

/** From navigation start to `text` on screen, as the page's own clock says. */
async function firstRender(page, url, text) {
  await page.goto(url);
  await page.getByText(text).first().waitFor();
  return page.evaluate('performance.now()');
}

/** The mock's CPU time in seconds, user and system (Linux /proc). */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function load(rate, seconds) {
  const agent = new Agent({ connections: 32 });
  let answered = 0;
  const inFlight = new Set();
  const total = rate * seconds;
  const start = performance.now();
  // A machine too busy to send them all in time sends fewer, within twice the time.
  const deadline = start + 2 * seconds * 1000;
  for (let sent = 0; sent < total && performance.now() < deadline;) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
    for (; sent < due; sent++) {
      const p = fetch(`${o['base-url']}/markings?limit=1&valueLimit=0&skip=${sent % 1000}`, {
        headers: { Authorization: `Bearer ${o.token}` },
        dispatcher: agent,
      })
        .then((r) => r.arrayBuffer())
        .then(() => answered++)
        // A kept-alive socket the mock closed meanwhile: counted as not answered, not fatal.
        .catch(() => undefined)
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await sleep(5);
  }
  await Promise.allSettled(inFlight);
  await agent.close();
  return { answered, ms: performance.now() - start };
}

/** Counts the batches and entries the page's EventSource receives, and its long tasks. */
const INSTRUMENT = `
  window.probe = { events: 0, entries: 0, longest: 0, since: performance.now() };
  const Original = window.EventSource;
  window.EventSource = class extends Original {
    constructor(...args) {
      super(...args);
      this.addEventListener('requests', (e) => {
        probe.events++;
        probe.entries += JSON.parse(e.data).length;
      });
    }
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) probe.longest = Math.max(probe.longest, entry.duration);
  }).observe({ type: 'longtask', buffered: true });
`;

async function main() {
  if (o.mode === 'signin') {
    const browser = await launchChromium();
    const page = await (await browser.newContext()).newPage();
    const ms = await firstRender(page, `${o.url}/_mock/console/`, 'Sign in to the mock console');
    await browser.close();
    return { firstRenderMs: Math.round(ms) };
  }
  if (o.mode === 'render') {
    const browser = await launchChromium();
    const { context } = await signedIn(browser);
    const page = await context.newPage();
    const ms = await firstRender(page, `${o.url}/_mock/console/#/markings`, /^1–50 of /);
    await browser.close();
    return { firstRenderMs: Math.round(ms) };
  }
  if (o.mode === 'load') {
    const rate = Number(o.rate);
    const seconds = Number(o.seconds);
    let browser;
    let page;
    if (o.open) {
      browser = await launchChromium();
      ({ page } = await signedIn(browser, INSTRUMENT));
      await page.evaluate(`location.hash = '#/requests'`);
      await page.getByText('Live', { exact: true }).waitFor();
      await page.evaluate(
        'probe.events = 0; probe.entries = 0; probe.longest = 0; probe.since = performance.now()',
      );
    }
    const before = cpuSeconds(o.pid);
    const { answered, ms } = await load(rate, seconds);
    const cpu = cpuSeconds(o.pid) - before;
    const result = {
      answered,
      seconds: Math.round(ms) / 1000,
      cpuSeconds: Math.round(cpu * 100) / 100,
      cpuPercent: Math.round((cpu / (ms / 1000)) * 100),
    };
    if (page) {
      await sleep(500); // the last batch
      const seen = await page.evaluate(
        '({ ...probe, eventSeconds: (performance.now() - probe.since) / 1000 })',
      );
      delete seen.since;
      Object.assign(result, seen);
      await browser.close();
    }
    return result;
  }
  throw new Error('--mode render|signin|load');
}

main().then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
  (error) => {
    process.stderr.write(`${error.stack ?? error}\n`);
    process.exit(1);
  },
);

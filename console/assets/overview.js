// @ts-check
/**
 * Overview: where the mock answers (URLs, keyspace, tenants), how much it holds, and live charts
 * of the last five minutes from api/stats: requests per second for each side, answer time
 * (median and p95) and errors by status. Refreshed every two seconds while shown. What it shows
 * is shaped in overview-data.js.
 */
import { timeChart } from './charts.js';
import { codeLine, count, errorBox, facts, fill, h } from './dom.js';
import {
  aboutKey,
  countCards,
  errorSeries,
  keyspaceText,
  perSecond,
  readOverview,
  readStats,
  SIDE_SERIES,
  tenantText,
  TIME_SERIES,
} from './overview-data.js';

/** @typedef {import('./overview-data.js').ConsoleOverview} ConsoleOverview */

const REFRESH_MS = 2000;

/** @param {HTMLElement} main */
export function mount(main) {
  const errors = errorBox();
  const about = h('div', { class: 'grid two' });
  const counts = h('div', { class: 'stats' });
  const charts = overviewCharts();
  main.append(
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, 'Overview'),
      h('p', { class: 'muted' }, 'The mock service and what it holds.'),
    ),
    errors.el,
    counts,
    about,
    h('h2', {}, 'Last five minutes'),
    h('div', { class: 'grid charts' }, ...charts.els),
  );

  let aboutShown = '';
  async function refreshOverview() {
    const o = await readOverview();
    fill(
      counts,
      countCards(o).map(([label, n]) => statCard(label, n)),
    );
    // Rebuilt only when it changed, so a focused copy button is not taken from under the user.
    const shown = aboutKey(o);
    if (shown === aboutShown) return;
    aboutShown = shown;
    fill(about, endpointsCard(o), tenantsCard(o));
  }

  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let stopped = false;
  async function tick() {
    try {
      await Promise.all([refreshOverview(), charts.refresh()]);
      errors.clear();
    } catch (error) {
      errors.show(error);
    }
    if (!stopped) timer = setTimeout(tick, REFRESH_MS);
  }
  void tick();
  return {
    unmount() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** The three charts of the last five minutes, and how to draw them from api/stats. */
function overviewCharts() {
  const rate = timeChart('Requests per second', {
    unit: '/s',
    describe: (t) => `Requests per second over the last five minutes; now: ${t}`,
  });
  const times = timeChart('Answer time', {
    unit: ' ms',
    describe: (t) => `Answer time over the last five minutes; now: ${t}`,
  });
  const failures = timeChart('Errors by status', {
    describe: (t) => `Error answers per second over the last five minutes; now: ${t}`,
  });
  return {
    els: [rate.el, times.el, failures.el],
    async refresh() {
      const { seconds = [] } = await readStats();
      const points = perSecond(seconds);
      rate.update(points, SIDE_SERIES);
      times.update(points, TIME_SERIES);
      failures.update(points, errorSeries(points));
    },
  };
}

/** @param {string} label @param {number | undefined} n */
function statCard(label, n) {
  return h(
    'div',
    { class: 'stat card' },
    h('span', { class: 'stat-label' }, label),
    h('span', { class: 'stat-value' }, count(n)),
  );
}

/** @param {ConsoleOverview} o */
function endpointsCard(o) {
  /** @type {[string, string | undefined][]} */
  const urls = [
    ['Mock', o.url],
    ['Markings base URL', o.baseUrl],
    ['API', o.apiUrl],
    ['Enrollment', o.enrollmentUrl],
  ];
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'ov-urls' },
    h('h2', { id: 'ov-urls' }, 'Endpoints'),
    facts(urls.map(([k, v]) => [k, v ? h('code', {}, v) : undefined])),
  );
}

/** @param {ConsoleOverview} o */
function tenantsCard(o) {
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'ov-tenant' },
    h('h2', { id: 'ov-tenant' }, 'Tenants and keyspaces'),
    facts([
      ['Keyspace', o.keyspace],
      ['Keyspaces', (o.keyspaces ?? []).map(keyspaceText).join(', ')],
      ['Tenants', (o.tenants ?? []).map(tenantText).join(', ')],
    ]),
    o.baseUrl ? codeLine('Copy', `export KSCTL_BASE_URL=${o.baseUrl}`) : null,
  );
}

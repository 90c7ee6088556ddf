/**
 * Overview: where the mock answers (URLs, keyspace, tenants), how much it holds, and live charts
 * of the last five minutes from api/stats: requests per second for each side, answer time
 * (median and p95) and errors by status. Refreshed every two seconds while shown.
 */
import { get } from './api.js';
import { timeChart } from './charts.js';
import { codeLine, count, errorBox, facts, fill, h } from './dom.js';

const WINDOW_S = 300;
const REFRESH_MS = 2000;
const SIDES = [
  { key: 'markings', label: 'Markings', colour: 'c1' },
  { key: 'enrollment', label: 'Enrollment', colour: 'c2' },
  { key: 'device', label: 'Device', colour: 'c3' },
  { key: 'admin', label: 'Admin', colour: 'c4' },
];
const TIMES = [
  { key: 'p50', label: 'Median', colour: 'c1' },
  { key: 'p95', label: 'p95', colour: 'c5' },
];

/**
 * One point per second for the window ending with the last whole second (the current one is
 * still counting), the seconds without requests as zeros.
 */
export function perSecond(seconds, nowS = Math.floor(Date.now() / 1000) - 1) {
  const byT = new Map(seconds.map((s) => [s.t, s]));
  const points = [];
  for (let t = nowS - WINDOW_S + 1; t <= nowS; t += 1) {
    const s = byT.get(t);
    const point = { t, markings: 0, enrollment: 0, device: 0, admin: 0, p50: 0, p95: 0 };
    if (s) {
      Object.assign(point, {
        markings: s.markings ?? 0,
        enrollment: s.enrollment ?? 0,
        device: s.device ?? 0,
        admin: s.admin ?? 0,
        p50: s.p50 ?? 0,
        p95: s.p95 ?? 0,
      });
      for (const [status, n] of Object.entries(s.errors ?? {})) point[`err${status}`] = n;
    }
    points.push(point);
  }
  return points;
}

/** A keyspace as the overview lists it: `WXyz (tenant other, enrollment off, offline)`. */
export function keyspaceText(k) {
  if (typeof k !== 'object' || k === null) return String(k);
  const notes = [`tenant ${k.tenant}`];
  if (k.enrollment === false) notes.push('enrollment off');
  if (k.online === false) notes.push('offline');
  return `${k.id} (${notes.join(', ')})`;
}

/** A tenant with what it holds: `other (1 marking, 2 values)`. */
export function tenantText(t) {
  if (typeof t !== 'object' || t === null) return String(t);
  const plural = (n, word) => `${count(n)} ${word}${n === 1 ? '' : 's'}`;
  return `${t.id} (${plural(t.markings, 'marking')}, ${plural(t.values, 'value')})`;
}

export function mount(main) {
  const errors = errorBox();
  const about = h('div', { class: 'grid two' });
  const counts = h('div', { class: 'stats' });
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
    h('div', { class: 'grid charts' }, rate.el, times.el, failures.el),
  );

  let aboutShown = '';
  async function refreshOverview() {
    const o = await get('overview');
    const c = o.counts ?? {};
    // With several tenants, the cards say whose markings they count (the console's tenant).
    const whose = (o.tenants ?? []).length > 1 ? ` in ${o.tenant}` : '';
    fill(
      counts,
      [
        [`Markings${whose}`, c.markings],
        [`Values${whose}`, c.values],
        ['Devices', c.devices],
        ['Keys', c.keys],
        ['Requests', c.requests],
      ].map(([label, n]) =>
        h(
          'div',
          { class: 'stat card' },
          h('span', { class: 'stat-label' }, label),
          h('span', { class: 'stat-value' }, count(n)),
        ),
      ),
    );
    const shown = JSON.stringify([
      o.url,
      o.baseUrl,
      o.apiUrl,
      o.enrollmentUrl,
      o.keyspace,
      o.keyspaces,
      o.tenants,
    ]);
    // Rebuilt only when it changed, so a focused copy button is not taken from under the user.
    if (shown === aboutShown) return;
    aboutShown = shown;
    fill(
      about,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'ov-urls' },
        h('h2', { id: 'ov-urls' }, 'Endpoints'),
        facts(
          [
            ['Mock', o.url],
            ['Markings base URL', o.baseUrl],
            ['API', o.apiUrl],
            ['Enrollment', o.enrollmentUrl],
          ].map(([k, v]) => [k, v ? h('code', {}, v) : undefined]),
        ),
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'ov-tenant' },
        h('h2', { id: 'ov-tenant' }, 'Tenants and keyspaces'),
        facts([
          ['Keyspace', o.keyspace],
          ['Keyspaces', (o.keyspaces ?? []).map(keyspaceText).join(', ')],
          ['Tenants', (o.tenants ?? []).map(tenantText).join(', ')],
        ]),
        o.baseUrl ? codeLine('Copy', `export KSCTL_BASE_URL=${o.baseUrl}`) : null,
      ),
    );
  }

  async function refreshStats() {
    const { seconds = [] } = await get('stats');
    const points = perSecond(seconds);
    rate.update(
      points,
      SIDES.map((s) => ({ ...s, kind: 'line' })),
    );
    times.update(
      points,
      TIMES.map((s) => ({ ...s, kind: 'line' })),
    );
    const statuses = [
      ...new Set(points.flatMap((p) => Object.keys(p).filter((k) => k.startsWith('err')))),
    ].sort();
    failures.update(
      points,
      statuses.length
        ? statuses.map((k, i) => ({
            key: k,
            label: k.slice(3),
            colour: k.startsWith('err5') ? `e5 v${i % 3}` : `e4 v${i % 3}`,
            kind: 'bar',
          }))
        : [{ key: 'none', label: 'Errors', colour: 'e4 v0', kind: 'bar' }],
    );
  }

  let timer;
  let stopped = false;
  async function tick() {
    try {
      await Promise.all([refreshOverview(), refreshStats()]);
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

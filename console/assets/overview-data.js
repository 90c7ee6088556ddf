// @ts-check
/**
 * The Overview's data: the seconds of api/stats as one point a second, the chart series, and
 * the texts of keyspaces, tenants and counts. Touches no page (unit-tested in node).
 */
import { get } from './api.js';
import { plural } from './format.js';

/** @typedef {import('../../src/common/mock/wire.js').ConsoleOverview} ConsoleOverview */
/** @typedef {import('../../src/common/mock/wire.js').ConsoleStats} ConsoleStats */
/** @typedef {import('../../src/common/mock/wire.js').ConsoleSecond} ConsoleSecond */
/** @typedef {import('../../src/common/mock/wire.js').ConsoleKeyspace} ConsoleKeyspace */
/** @typedef {import('../../src/common/mock/wire.js').ConsoleTenant} ConsoleTenant */
/**
 * One second of a chart: its time (epoch seconds) and a number for each series' key
 * (markings, …, p50, p95, and err<status> for each error status).
 * @typedef {{ t: number } & Record<string, number>} Point
 */
/**
 * A series of a chart: the point's key it draws, its label, its colour classes, line or bar.
 * @typedef {{ key: string, label: string, colour: string, kind: 'line' | 'bar' }} Series
 */

export const WINDOW_S = 300;

/** @type {Series[]} */
export const SIDE_SERIES = [
  { key: 'markings', label: 'Markings', colour: 'c1', kind: 'line' },
  { key: 'enrollment', label: 'Enrollment', colour: 'c2', kind: 'line' },
  { key: 'device', label: 'Device', colour: 'c3', kind: 'line' },
  { key: 'admin', label: 'Admin', colour: 'c4', kind: 'line' },
];
/** @type {Series[]} */
export const TIME_SERIES = [
  { key: 'p50', label: 'Median', colour: 'c1', kind: 'line' },
  { key: 'p95', label: 'p95', colour: 'c5', kind: 'line' },
];

export const readOverview = async () => /** @type {ConsoleOverview} */ (await get('overview'));
export const readStats = async () => /** @type {ConsoleStats} */ (await get('stats'));

/**
 * One point per second for the window ending with the last whole second (the current one is
 * still counting), the seconds without requests as zeros.
 * @param {ConsoleSecond[]} seconds
 * @param {number} [nowS]
 * @returns {Point[]}
 */
export function perSecond(seconds, nowS = Math.floor(Date.now() / 1000) - 1) {
  const byT = new Map(seconds.map((s) => [s.t, s]));
  const points = [];
  for (let t = nowS - WINDOW_S + 1; t <= nowS; t += 1) {
    const s = byT.get(t);
    /** @type {Point} */
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

/**
 * The error chart's series: one bar a status that the points hold (err404, err503, …), sorted;
 * one empty series when there is none.
 * @param {Point[]} points
 * @returns {Series[]}
 */
export function errorSeries(points) {
  const statuses = [
    ...new Set(points.flatMap((p) => Object.keys(p).filter((k) => k.startsWith('err')))),
  ].sort();
  if (statuses.length === 0)
    return [{ key: 'none', label: 'Errors', colour: 'e4 v0', kind: 'bar' }];
  return statuses.map((k, i) => ({
    key: k,
    label: k.slice(3),
    colour: k.startsWith('err5') ? `e5 v${i % 3}` : `e4 v${i % 3}`,
    kind: 'bar',
  }));
}

/**
 * A keyspace as the overview lists it: `WXyz (tenant other, enrollment off, offline)`.
 * @param {ConsoleKeyspace | string} k
 */
export function keyspaceText(k) {
  if (typeof k !== 'object' || k === null) return String(k);
  const notes = [`tenant ${k.tenant}`];
  if (k.enrollment === false) notes.push('enrollment off');
  if (k.online === false) notes.push('offline');
  return `${k.id} (${notes.join(', ')})`;
}

/**
 * A tenant with what it holds: `other (1 marking, 2 values)`.
 * @param {ConsoleTenant | string} t
 */
export function tenantText(t) {
  if (typeof t !== 'object' || t === null) return String(t);
  return `${t.id} (${plural(t.markings, 'marking')}, ${plural(t.values, 'value')})`;
}

/**
 * The count cards: [label, number]; with several tenants, the cards say whose markings they
 * count (the console's tenant).
 * @param {ConsoleOverview} o
 * @returns {[string, number | undefined][]}
 */
export function countCards(o) {
  const c = o.counts ?? {};
  const whose = (o.tenants ?? []).length > 1 ? ` in ${o.tenant}` : '';
  return [
    [`Markings${whose}`, c.markings],
    [`Values${whose}`, c.values],
    ['Devices', c.devices],
    ['Keys', c.keys],
    ['Requests', c.requests],
  ];
}

/**
 * What the Endpoints and Tenants cards show, as one text: they are drawn again only when it
 * changes, so a focused copy button is not taken from under the user.
 * @param {ConsoleOverview} o
 */
export const aboutKey = (o) =>
  JSON.stringify([o.url, o.baseUrl, o.apiUrl, o.enrollmentUrl, o.keyspace, o.keyspaces, o.tenants]);

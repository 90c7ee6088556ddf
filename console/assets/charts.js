// @ts-check
/**
 * Small SVG charts for the Overview, drawn here rather than with a chart library: three charts
 * of at most a few hundred points each need lines, stacked bars, a scale and a legend, about
 * 150 lines, where a library would add tens of kilobytes and a vendored file to serve.
 * Each chart is a <figure> with a caption, an SVG (role=img, its label says the latest figures)
 * and a legend in text, so nothing is told by colour alone.
 */
import { h } from './dom.js';

/** @typedef {import('./overview-data.js').Point} Point */
/** @typedef {import('./overview-data.js').Series} Series */
/**
 * Where a chart's values go: x of a point's index, y of a value.
 * @typedef {{ x: (i: number) => number, y: (v: number) => number, max: number, plotW: number }} Scale
 */

const NS = 'http://www.w3.org/2000/svg';
const W = 600;
const H = 160;
const PAD = { left: 44, right: 8, top: 10, bottom: 22 };

/**
 * @param {string} tag
 * @param {Record<string, string | number>} [attrs]
 */
function svg(tag, attrs = {}) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/**
 * A round top for the scale: 1, 2, 5 × 10^n.
 * @param {number} max
 */
export function niceMax(max) {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((m) => m * p).find((n) => n >= max) ?? max;
}

/** @param {number} v */
const fmt = (v) => (Number.isInteger(v) ? String(v) : v.toFixed(1));

/**
 * A chart that is redrawn in place: chart.update(points, series) where points are
 * [{t, …values}] one per second, and series [{key, label, colour class, kind: 'line'|'bar'}].
 * @param {string} title
 * @param {{ unit?: string, describe: (latest: string) => string }} options
 */
export function timeChart(title, { unit, describe }) {
  const root = svg('svg', {
    viewBox: `0 0 ${W} ${H}`,
    role: 'img',
    class: 'chart',
    // Until the first figures come, the picture still says what it is.
    'aria-label': `${title}: no figures yet`,
  });
  const legend = h('ul', { class: 'legend' });
  const captionId = `chart-${title.replace(/\W+/g, '-').toLowerCase()}`;
  const figure = h(
    'figure',
    { class: 'chart-card card', 'aria-labelledby': captionId },
    h('figcaption', { id: captionId }, title),
    root,
    legend,
  );

  /** @param {Point[]} points @param {Series[]} series */
  function update(points, series) {
    root.replaceChildren();
    const bars = series.filter((s) => s.kind === 'bar');
    const lines = series.filter((s) => s.kind !== 'bar');
    const scale = scaleOf(points, bars, lines);
    drawScale(root, scale, points.length);
    drawBars(root, scale, points, bars);
    drawLines(root, scale, points, lines);
    const latest = points.at(-1);
    /** @param {Series} s */
    const figure = (s) => `${fmt(latest?.[s.key] ?? 0)}${unit ?? ''}`;
    legend.replaceChildren(
      ...series.map((s) =>
        h(
          'li',
          {},
          h('span', { class: `swatch ${s.colour}`, 'aria-hidden': 'true' }),
          `${s.label} `,
          h('strong', {}, figure(s)),
        ),
      ),
    );
    root.setAttribute(
      'aria-label',
      describe(series.map((s) => `${s.label} ${figure(s)}`).join(', ')),
    );
  }

  return { el: figure, update };
}

/**
 * The scale that holds the stacked bars and the lines of these points.
 * @param {Point[]} points
 * @param {Series[]} bars
 * @param {Series[]} lines
 * @returns {Scale}
 */
function scaleOf(points, bars, lines) {
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  /** @param {Point} p */
  const stackTop = (p) => bars.reduce((sum, s) => sum + (p[s.key] ?? 0), 0);
  const max = niceMax(
    Math.max(0, ...points.map((p) => Math.max(stackTop(p), ...lines.map((s) => p[s.key] ?? 0)))),
  );
  return {
    max,
    plotW,
    x: (i) => PAD.left + (points.length <= 1 ? 0 : (i / (points.length - 1)) * plotW),
    y: (v) => PAD.top + plotH - (v / max) * plotH,
  };
}

/**
 * Grid lines at 0, half and the top, their values, and the time at each end.
 * @param {SVGElement} root
 * @param {Scale} scale
 * @param {number} length how many points
 */
function drawScale(root, { max, y }, length) {
  for (const frac of [0, 0.5, 1]) {
    const v = max * frac;
    root.append(
      svg('line', { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: 'grid' }),
    );
    const label = svg('text', {
      x: PAD.left - 6,
      y: y(v) + 4,
      class: 'axis',
      'text-anchor': 'end',
    });
    label.textContent = `${Number.isInteger(v) ? v : v.toFixed(1)}`;
    root.append(label);
  }
  const first = svg('text', { x: PAD.left, y: H - 6, class: 'axis' });
  first.textContent = length ? `${Math.round(length / 60)} min ago` : '';
  const now = svg('text', { x: W - PAD.right, y: H - 6, class: 'axis', 'text-anchor': 'end' });
  now.textContent = 'now';
  root.append(first, now);
}

/**
 * The bar series stacked, one bar a point.
 * @param {SVGElement} root
 * @param {Scale} scale
 * @param {Point[]} points
 * @param {Series[]} bars
 */
function drawBars(root, { x, y, plotW }, points, bars) {
  if (!bars.length) return;
  const bw = Math.max(1, plotW / Math.max(points.length, 1));
  points.forEach((p, i) => {
    let base = 0;
    for (const s of bars) {
      const v = p[s.key] ?? 0;
      if (v <= 0) continue;
      root.append(
        svg('rect', {
          x: x(i) - bw / 2,
          width: bw,
          y: y(base + v),
          height: y(base) - y(base + v),
          class: `fill ${s.colour}`,
        }),
      );
      base += v;
    }
  });
}

/**
 * Each line series as one path.
 * @param {SVGElement} root
 * @param {Scale} scale
 * @param {Point[]} points
 * @param {Series[]} lines
 */
function drawLines(root, { x, y }, points, lines) {
  for (const s of lines) {
    const d = points
      .map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)} ${y(p[s.key] ?? 0).toFixed(1)}`)
      .join('');
    if (d) root.append(svg('path', { d, class: `line ${s.colour}` }));
  }
}

/**
 * Small SVG charts for the Overview, drawn here rather than with a chart library: three charts
 * of at most a few hundred points each need lines, stacked bars, a scale and a legend, about
 * 150 lines, where a library would add tens of kilobytes and a vendored file to serve.
 * Each chart is a <figure> with a caption, an SVG (role=img, its label says the latest figures)
 * and a legend in text, so nothing is told by colour alone.
 */
import { h } from './dom.js';

const NS = 'http://www.w3.org/2000/svg';
const W = 600;
const H = 160;
const PAD = { left: 44, right: 8, top: 10, bottom: 22 };

function svg(tag, attrs = {}) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** A round top for the scale: 1, 2, 5 × 10^n. */
function niceMax(max) {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((m) => m * p).find((n) => n >= max);
}

/**
 * A chart that is redrawn in place: chart.update(points, series) where points are
 * [{t, …values}] one per second, and series [{key, label, colour class, kind: 'line'|'bar'}].
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

  function update(points, series) {
    root.replaceChildren();
    const plotW = W - PAD.left - PAD.right;
    const plotH = H - PAD.top - PAD.bottom;
    const bars = series.filter((s) => s.kind === 'bar');
    const lines = series.filter((s) => s.kind !== 'bar');
    const stackTop = (p) => bars.reduce((sum, s) => sum + (p[s.key] ?? 0), 0);
    const max = niceMax(
      Math.max(0, ...points.map((p) => Math.max(stackTop(p), ...lines.map((s) => p[s.key] ?? 0)))),
    );
    const x = (i) => PAD.left + (points.length <= 1 ? 0 : (i / (points.length - 1)) * plotW);
    const y = (v) => PAD.top + plotH - (v / max) * plotH;

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
    first.textContent = points.length ? `${Math.round(points.length / 60)} min ago` : '';
    const now = svg('text', { x: W - PAD.right, y: H - 6, class: 'axis', 'text-anchor': 'end' });
    now.textContent = 'now';
    root.append(first, now);

    if (bars.length) {
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
    for (const s of lines) {
      const d = points
        .map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)} ${y(p[s.key] ?? 0).toFixed(1)}`)
        .join('');
      if (d) root.append(svg('path', { d, class: `line ${s.colour}` }));
    }

    const latest = points.at(-1) ?? {};
    legend.replaceChildren(
      ...series.map((s) =>
        h(
          'li',
          {},
          h('span', { class: `swatch ${s.colour}`, 'aria-hidden': 'true' }),
          `${s.label} `,
          h('strong', {}, `${fmt(latest[s.key] ?? 0)}${unit ?? ''}`),
        ),
      ),
    );
    root.setAttribute(
      'aria-label',
      describe(series.map((s) => `${s.label} ${fmt(latest[s.key] ?? 0)}${unit ?? ''}`).join(', ')),
    );
  }

  return { el: figure, update };
}

function fmt(v) {
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}

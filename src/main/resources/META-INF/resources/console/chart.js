// Line charts drawn as inline SVG: a fixed viewBox scaled to the container's width, so the space a chart takes
// is known before its data arrives (no layout jump). Series: [{name, cls, points: [[timeMs, value], ...]}].
import { h } from './ui.js';

const NARROW = 600, H = 170, L = 52, R = 8, T = 10, B = 24;

function niceMax(v) {
  if (v <= 0) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function label(v) {
  if (v >= 1e6) return (v / 1e6).toFixed(v % 1e6 ? 1 : 0) + 'M';
  if (v >= 1e3) return (v / 1e3).toFixed(v % 1e3 ? 1 : 0) + 'k';
  return Number.isInteger(v) ? String(v) : v.toFixed(2);
}

/** A tick's UTC time; over a span longer than a day, with its date (MM-DD), so 08:48 and 08:48 are told apart. */
function tick(t, span) {
  const d = new Date(t);
  const two = n => String(n).padStart(2, '0');
  return (span > 86400e3 * 0.9 ? two(d.getUTCMonth() + 1) + '-' + two(d.getUTCDate()) + ' ' : '')
    + two(d.getUTCHours()) + ':' + two(d.getUTCMinutes());
}

/**
 * range [fromMs, toMs]: the window the chart covers (the x axis spans it, even with no point); integer: the values
 * are counts (no fractional axis label); wide: the chart spans the page, so its drawing is as wide as the window
 * (600 to 1,400 units) and its labels keep the size of the narrow charts' instead of growing with it. Each line
 * carries its points as data-points ([[timeMs, value], ...]).
 */
export function lineChart({ title, series, unit = '', key, range, integer = false, wide = false }) {
  const W = wide ? Math.max(NARROW, Math.min(1400, Math.round(document.documentElement.clientWidth - 80))) : NARROW;
  const all = series.flatMap(s => s.points);
  const xs = all.map(p => p[0]).concat(range || []);
  const x0 = xs.length ? Math.min(...xs) : 0, x1 = xs.length ? Math.max(...xs) : 1;
  const yMax = niceMax(Math.max(integer ? 2 : 0, ...all.map(p => p[1])));
  const x = t => L + (x1 === x0 ? 0 : (t - x0) / (x1 - x0)) * (W - L - R);
  const y = v => T + (1 - v / yMax) * (H - T - B);
  const s = (tag, a, ...c) => h(tag, { ...a, svg: true }, ...c);
  // without a point there is no scale to label: only the zero line; a count has no half
  const grid = (all.length ? [0, 0.5, 1] : [0]).filter(f => !integer || Number.isInteger(yMax * f)).map(f => [
    s('line', { x1: L, x2: W - R, y1: y(yMax * f), y2: y(yMax * f), class: 'grid' }),
    s('text', { x: L - 6, y: y(yMax * f) + 5, class: 'axis', 'text-anchor': 'end' }, label(yMax * f))]);
  const ticks = xs.length ? [x0, (x0 + x1) / 2, x1].map((t, i) =>
    s('text', { x: x(t), y: H - 6, class: 'axis', 'text-anchor': ['start', 'middle', 'end'][i] }, tick(t, x1 - x0))) : [];
  const lines = series.map(se => se.points.length
    ? s('polyline', { class: 'line ' + (se.cls || ''), 'data-points': JSON.stringify(se.points),
      points: se.points.map(p => x(p[0]).toFixed(1) + ',' + y(p[1]).toFixed(1)).join(' ') },
      s('title', null, se.name))
    : null);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': title, preserveAspectRatio: 'none' },
    grid, ticks, lines, all.length ? null : s('text', { x: W / 2, y: H / 2, class: 'axis', 'text-anchor': 'middle' }, 'no data in this window'));
  svg.style.aspectRatio = W + ' / ' + H;  // the space is known before the data arrives (CSSOM: allowed by the CSP)
  const legend = h('ul', { class: 'legend' }, series.map(se => {
    const last = se.points.length ? se.points[se.points.length - 1][1] : null;
    return h('li', { class: se.cls }, h('i'), se.name + (last === null ? '' : ': ' + label(last) + unit));
  }));
  return h('figure', { class: 'chart-box', 'data-chart': key }, h('figcaption', null, title), svg, legend);
}

/** A placeholder of the same size while the data loads. */
export function chartSlot(title) {
  return h('figure', { class: 'chart-box' }, h('figcaption', null, title),
    h('svg', { viewBox: `0 0 ${NARROW} ${H}`, class: 'chart', svg: true }), h('ul', { class: 'legend' }));
}

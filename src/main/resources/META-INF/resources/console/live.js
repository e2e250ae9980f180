// The live figures: GET /api/v1/live polled on the console's refresh interval, with a short history kept in the
// tab (the last HISTORY answers) for sparklines. The per-minute series (status, metrics) stay for the long charts.
import { get } from './api.js';
import { h } from './ui.js';

const HISTORY = 60;
const history = [];
let pending = null;

/** Polls once (concurrent callers share the request) and returns the newest answer. */
export async function poll() {
  if (!pending) {
    pending = get('/api/v1/live').then(r => {
      r.receivedAt = Date.now();
      history.push(r);
      if (history.length > HISTORY) history.shift();
      return r;
    }).finally(() => { pending = null; });
  }
  return pending;
}

/** The newest answer, polling if none yet or if it is older than maxAgeMs. */
export async function latest(maxAgeMs = 1000) {
  const last = history[history.length - 1];
  if (last && Date.now() - last.receivedAt < maxAgeMs) return last;
  return poll();
}

export const queueOf = (live, name) => live.queues.find(q => q.queue === name)
  || { queue: name, push: 0, pop: 0, ack: 0, pushed: 0, popped: 0, acked: 0 };

/** The history of one figure: f(answer) -> number, oldest first. */
export function series(f) {
  return history.map(f);
}

const W = 120, H = 28;

/** An inline SVG sparkline of values (oldest first); a fixed size so it never moves the layout. */
export function sparkline(values, cls = 's1', label = '') {
  const max = Math.max(1e-9, ...values);
  const n = values.length;
  const pts = values.map((v, i) => ((n <= 1 ? W : (i / (n - 1)) * W).toFixed(1) + ',' + (H - 2 - (v / max) * (H - 4)).toFixed(1)));
  return h('svg', { svg: true, viewBox: `0 0 ${W} ${H}`, class: 'spark', role: 'img', 'aria-label': label || 'recent values',
    preserveAspectRatio: 'none' },
  n ? h('polyline', { svg: true, class: 'line ' + cls, points: pts.join(' ') }) : null);
}

/** Live figure cards: push/pop/ack per second now, each with its sparkline; pick(answer) -> {push, pop, ack}. */
export function liveFigures(current, pick, keyPrefix = 'live') {
  const fmt = v => (v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(2));
  return h('dl', { class: 'figures live', 'aria-label': 'Live rates' }, [['push', 'Push / s', 's1'], ['pop', 'Pop / s', 's2'], ['ack', 'Ack / s', 's3']]
    .map(([k, label, cls]) => h('div', { class: 'figure' }, h('dt', null, label, ' ', h('span', { class: 'muted' }, 'live')),
      h('dd', { 'data-k': keyPrefix + '-' + k }, fmt(pick(current)[k] || 0)),
      sparkline(series(a => pick(a)[k] || 0), cls, label + ', last ' + history.length + ' refreshes'))));
}

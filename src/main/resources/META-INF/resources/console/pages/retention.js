// Retention activity: what retention removed (messages per rule, partitions deleted) over a window, per queue
// and type, from GET /api/v1/analytics/retention.
import { get, qs } from '../api.js';
import { h, num, time, figures, section, table } from '../ui.js';
import { lineChart } from '../chart.js';

const WINDOWS = { '1h': 3600e3, '24h': 86400e3, '7d': 7 * 86400e3 };

export async function render(_params, query) {
  const win = WINDOWS[query.window] ? query.window : '24h';
  const to = new Date();
  const from = new Date(to.getTime() - WINDOWS[win]);
  const r = await get('/api/v1/analytics/retention' + qs({ from: from.toISOString(), to: to.toISOString(), queue: query.queue }));
  const t = r.totals;
  const pts = k => r.series.map(s => [Date.parse(s.bucket), s[k]]);
  return h('div', { class: 'page', 'data-title': 'Retention' },
    h('div', { class: 'page-head' }, h('h1', null, 'Retention activity'),
      h('span', { class: 'chips' }, Object.keys(WINDOWS).map(w =>
        h('a', { class: 'chip' + (w === win ? ' on' : ''), href: '#/retention' + qs({ window: w, queue: query.queue }) }, w)))),
    figures([
      ['Removed messages', num(t.totalMsgs), 'totalMsgs'],
      ['By retention', num(t.retentionMsgs), 'retentionMsgs'],
      ['Completed retention', num(t.completedRetentionMsgs), 'completedRetentionMsgs'],
      ['Max-wait eviction', num(t.evictionMsgs), 'evictionMsgs'],
      ['Partitions deleted', num(t.partitionsDeleted), 'partitionsDeleted'],
      ['Deletion events', num(t.eventCount), 'eventCount'],
    ]),
    h('div', { class: 'charts one' }, lineChart({ title: 'Messages removed per ' + r.bucketMinutes + ' min', key: 'retention',
      range: [Date.parse(r.timeRange.from), Date.parse(r.timeRange.to)], integer: true, wide: true, series: [
      { name: 'retention', cls: 's1', points: pts('retentionMsgs') },
      { name: 'completed', cls: 's3', points: pts('completedRetentionMsgs') },
      { name: 'eviction', cls: 's4', points: pts('evictionMsgs') },
    ] })),
    section('What was deleted, when', table([
      { label: 'Queue', key: 'queue', value: x => h('a', { href: '#/queues/' + encodeURIComponent(x.queue) }, x.queue) },
      { label: 'Rule', key: 'type', value: x => x.type === '__partition_deleted__' ? 'empty partition deleted' : x.type.replace(/_/g, ' ') },
      { label: 'Messages', key: 'messages', value: x => num(x.messages), num: true },
      { label: 'Events', key: 'events', value: x => num(x.events), num: true },
      { label: 'First', key: 'firstAt', value: x => time(x.firstAt) },
      { label: 'Last', key: 'lastAt', value: x => time(x.lastAt) },
    ], r.byType, { empty: 'Retention removed nothing in this window.', rowAttrs: x => ({ 'data-queue': x.queue, 'data-type': x.type }) })),
    h('p', { class: 'muted' }, 'From ', time(r.timeRange.from), ' to ', time(r.timeRange.to),
      '. Each queue\'s rules are on its page (retentionSeconds, completedRetentionSeconds, maxWaitTimeSeconds).'));
}

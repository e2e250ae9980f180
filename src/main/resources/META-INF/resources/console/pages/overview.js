// Overview: the tenant's figures, rates/depth/dead letters over the last hour (SVG charts), the brokers seen in
// the per-minute metrics and the two maintenance switches.
import { get, post, isAdmin, seesCluster } from '../api.js';
import { h, num, rate, ago, time, figures, section, table, errorBox, confirmAction, act } from '../ui.js';
import { lineChart } from '../chart.js';
import { latest, liveFigures } from '../live.js';

const soft = p => p.catch(e => ({ failed: e }));

export async function render(_params, _query, { refresh }) {
  const [live, ov, st, wm, sm, mt, health] = await Promise.all([
    latest(),
    get('/api/v1/resources/overview'),
    get('/api/v1/status'),
    seesCluster() ? soft(get('/api/v1/analytics/worker-metrics')) : null,
    seesCluster() ? soft(get('/api/v1/analytics/system-metrics')) : null,
    isAdmin() ? soft(get('/api/v1/system/maintenance')) : null,
    soft(get('/health')),
  ]);
  const m = ov.messages;
  return h('div', { class: 'page', 'data-title': 'Overview' },
    h('div', { class: 'page-head' }, h('h1', null, 'Overview'),
      h('span', { class: 'muted' }, 'figures age ', ov.statsAge < 0 ? '–' : ov.statsAge + ' s'),
      h('button', { type: 'button', onclick: refresh }, 'Refresh')),
    liveFigures(live, a => a.totals),
    figures([
      ['Queues', num(ov.queues), 'queues'],
      ['Partitions', num(ov.partitions), 'partitions'],
      ['Messages', num(m.total), 'total'],
      ['Pending', num(m.pending), 'pending'],
      ['Processing', num(m.processing), 'processing'],
      ['Completed', num(m.completed), 'completed'],
      ['Failed', num(m.failed), 'failed'],
      ['Dead letters', num(m.deadLetter), 'deadLetter'],
      ['Max offset lag', num(ov.lag.offset.max), 'maxOffsetLag'],
      ['Max time lag', ago(ov.lag.time.max), 'maxTimeLag'],
      ['In / s (5 min avg)', rate(ov.throughput.ingestedPerSecond), 'inRate'],
      ['Acked / s (5 min avg)', rate(ov.throughput.processedPerSecond), 'ackRate'],
    ]),
    h('div', { class: 'charts' }, charts(st)),
    section('Brokers', liveBrokers(live), brokers(wm, sm, health)),
    section('Maintenance', maintenance(mt, refresh)));
}

function charts(st) {
  const tp = st.throughput || [];
  const t = p => Date.parse(p.timestamp);
  const range = [Date.parse(st.timeRange.from), Date.parse(st.timeRange.to)];
  // the running bucket is left out: its counts reach the database when its minute is flushed, so it would read 0
  const done = tp.filter(p => p.complete !== false);
  const rates = lineChart({
    title: 'Messages per second (complete minutes)', key: 'rates', unit: '/s', range, series: [
      { name: 'push', cls: 's1', points: done.map(p => [t(p), p.ingestedPerSecond]) },
      { name: 'pop', cls: 's2', points: done.map(p => [t(p), p.popPerSecond]) },
      { name: 'ack', cls: 's3', points: done.map(p => [t(p), p.processedPerSecond]) },
    ],
  });
  // what the queues held as each bucket began, as recorded then (a bucket nobody sampled is a gap), and now
  const held = (k, now) => tp.filter(p => p[k] !== null && p[k] !== undefined).map(p => [t(p), p[k]]).concat([[range[1], now]]);
  const depthChart = lineChart({ title: 'Pending messages', key: 'depth', range, integer: true,
    series: [{ name: 'pending', cls: 's1', points: held('pending', st.messages.pending) }] });
  const dlqChart = lineChart({ title: 'Dead letters', key: 'dlq', range, integer: true,
    series: [{ name: 'dead letters', cls: 's4', points: held('deadLetters', st.deadLetterQueue.totalMessages) }] });
  return [rates, depthChart, dlqChart];
}

function liveBrokers(live) {
  return [h('h3', null, 'Live (last ' + Math.round(live.windowMs / 1000) + ' s)'), h('div', { class: 'brokers-live' }, table([
    { label: 'Host', key: 'hostname', value: b => b.hostname },
    { label: 'Port', key: 'port', value: b => String(b.port), num: true },
    { label: 'Push / s', key: 'push', value: b => rate(b.push), num: true },
    { label: 'Pop / s', key: 'pop', value: b => rate(b.pop), num: true },
    { label: 'Ack / s', key: 'ack', value: b => rate(b.ack), num: true },
    { label: 'Up since', key: 'startedAt', value: b => time(b.startedAt) },
    { label: 'Published', key: 'ageMs', value: b => ago(b.ageMs / 1000) + ' ago' },
  ], live.brokers, { empty: 'No broker published live figures in the last seconds.', rowAttrs: b => ({ 'data-broker': b.hostname + ':' + b.port }) })),
  h('h3', null, 'Per minute (last hour)')];
}

function brokers(wm, sm, health) {
  const rows = [];
  const seen = new Map();
  if (sm && !sm.failed) {
    for (const r of sm.replicas || []) {
      const last = r.timeSeries[r.timeSeries.length - 1];
      seen.set(r.hostname + '#' + r.workerId, last && last.metrics);
    }
  }
  if (wm && !wm.failed) {
    for (const w of wm.workers || []) {
      const silent = (Date.now() - Date.parse(w.lastSeen)) / 1000;
      rows.push({ ...w, silent, metrics: seen.get(w.hostname + '#' + w.workerId) });
    }
  }
  const here = health && !health.failed ? h('p', { 'data-k': 'health' }, 'This broker (worker ', String(health.worker_id),
    ' on ', health.hostname + ':' + health.port, '): ', h('b', null, health.status), ', database ', health.database, ', version ', health.version) : null;
  if (wm && wm.failed) return [here, errorBox(wm.failed)];
  if (!wm) return [here, h('p', { class: 'muted' }, 'Broker-wide metrics are shown to the default tenant only.')];
  return [here, h('div', { class: 'brokers-minute' }, table([
    { label: 'Host', key: 'hostname', value: r => r.hostname },
    { label: 'Worker', key: 'workerId', value: r => String(r.workerId), num: true },
    { label: 'Port', key: 'port', value: r => r.port == null ? '–' : String(r.port), num: true },
    { label: 'State', key: 'state', value: r => r.silent < 180
      ? h('span', { class: 'ok' }, 'reporting') : h('span', { class: 'warn' }, 'silent ' + ago(r.silent)) },
    { label: 'Pushed (1 h)', key: 'pushMessages', value: r => num(r.pushMessages), num: true },
    { label: 'Popped (1 h)', key: 'popMessages', value: r => num(r.popMessages), num: true },
    { label: 'Acked (1 h)', key: 'ackSuccess', value: r => num(r.ackSuccess), num: true },
    { label: 'CPU %', key: 'cpu', value: r => r.metrics ? rate((r.metrics.cpu.userPercent || 0) + (r.metrics.cpu.systemPercent || 0)) : '–', num: true },
    { label: 'Heap', key: 'heap', value: r => r.metrics ? mb(r.metrics.memory.heapUsedBytes) : '–', num: true },
    { label: 'Last report', key: 'lastSeen', value: r => time(r.lastSeen) },
  ], rows, { empty: 'No broker has written per-minute metrics in the last hour yet.' }))];
}

const mb = b => (b == null ? '–' : (b / 1048576).toFixed(0) + ' MB');

function maintenance(mt, refresh) {
  if (!mt) return h('p', { class: 'muted' }, 'The maintenance switches are read and set by admins.');
  if (mt.failed) return errorBox(mt.failed);
  const row = (label, on, path, what) => h('div', { class: 'switch-row' },
    h('span', null, label), h('b', { 'data-k': path.endsWith('pop') ? 'popMaintenance' : 'pushMaintenance' }, on ? 'on' : 'off'),
    h('button', {
      type: 'button', class: on ? 'primary' : 'danger', 'data-write': 'maintenance',
      onclick: async e => {
        if (!(await confirmAction((on ? 'Turn off ' : 'Turn on ') + label.toLowerCase() + '? ' + what, on ? 'Turn off' : 'Turn on'))) return;
        if (await act(e.target, () => post(path, { enabled: !on }), label + (on ? ' off' : ' on'))) refresh();
      },
    }, on ? 'Turn off' : 'Turn on'));
  return h('div', null,
    row('Push maintenance', mt.maintenanceMode, '/api/v1/system/maintenance',
      'While on, pushes are kept in each broker\'s disk spool and reach the log when it ends.'),
    row('Pop maintenance', mt.popMaintenanceMode, '/api/v1/system/maintenance/pop',
      'While on, consumers receive nothing.'),
    h('p', { class: 'muted' }, 'Spooled messages: ', h('span', { 'data-k': 'buffered' }, num(mt.bufferedMessages)),
      mt.bufferHealthy ? '' : ' (spool unhealthy)'));
}

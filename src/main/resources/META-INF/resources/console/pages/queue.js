// One queue: live rates, totals, partitions with their watermarks and figures, consumer groups' lag, for a
// compacted queue its cleanup policy, settings and what compaction removed, and the effective configuration (editable with a write role, saved through POST /api/v1/configure). Actions: publish
// (read-write), purge and delete (admin).
import { get, post, canWrite, isAdmin } from '../api.js';
import { h, num, time, ago, figures, section, table, act, groupName, guard } from '../ui.js';
import { latest, liveFigures, queueOf } from '../live.js';
import { publish, purge, deleteQueue } from '../actions.js';

export async function render([name], _query, { refresh, go }) {
  const [q, groups, live] = await Promise.all([
    get('/api/v1/resources/queues/' + encodeURIComponent(name)),
    get('/api/v1/consumer-groups'),
    latest(),
  ]);
  const t = q.totals;
  const mine = groups.filter(g => g.queueName === q.name);
  const base = '#/queues/' + encodeURIComponent(q.name) + '/partitions/';
  const c = q.compaction;
  const compacted = c && c.cleanupPolicy !== 'delete';
  const cp = p => p.compaction || {};
  return h('div', { class: 'page', 'data-title': q.name },
    h('div', { class: 'page-head' }, h('h1', null, h('a', { href: '#/queues' }, 'Queues'), ' / ', q.name),
      h('span', { class: 'muted' }, [q.namespace, q.task].filter(Boolean).join(' / ') || 'no namespace or task'),
      h('button', { type: 'button', onclick: refresh }, 'Refresh')),
    h('div', { class: 'toolbar' },
      h('a', { href: '#/queues/' + encodeURIComponent(q.name) + '/messages', 'data-nav-messages': '' }, 'Browse messages'),
      canWrite() ? h('button', { type: 'button', class: 'primary', 'data-write': 'publish', onclick: async () => {
        if (await publish(q.name, q.partitions.map(p => p.name))) refresh();
      } }, 'Publish message') : null,
      isAdmin() ? h('button', { type: 'button', class: 'danger', 'data-write': 'purge', onclick: async e => {
        if (await purge(e.target, q.name, t.total)) refresh();
      } }, 'Purge') : null,
      isAdmin() ? h('button', { type: 'button', class: 'danger', 'data-write': 'delete-queue', onclick: async () => {
        if (await deleteQueue(q.name)) go('/queues');
      } }, 'Delete queue') : null),
    liveFigures(live, a => queueOf(a, q.name)),
    figures([
      ['Messages', num(t.total), 'total'], ['Pending', num(t.pending), 'pending'],
      ['Processing', num(t.processing), 'processing'], ['Completed', num(t.completed), 'completed'],
      ['Failed', num(t.failed), 'failed'], ['Dead letters', num(t.deadLetter), 'deadLetter'],
    ]),
    // the figures are those of one moment: pushes answered since then are not in them
    h('p', { class: 'muted', 'data-k': 'asOf' }, 'Figures as of ', time(q.asOf), q.statsAge ? ' (' + q.statsAge + ' s old)' : ''),
    section('Partitions', table([
      { label: 'Partition', key: 'name', value: p => h('a', { href: base + encodeURIComponent(p.name) }, p.name) },
      { label: 'Log start', key: 'logStart', value: p => num(p.logStart), num: true },
      { label: 'Last offset', key: 'lastOffset', value: p => num(p.lastOffset), num: true },
      { label: 'Messages', key: 'total', value: p => num(p.stats.total), num: true },
      { label: 'Pending', key: 'pending', value: p => num(p.stats.pending), num: true },
      { label: 'Processing', key: 'processing', value: p => num(p.stats.processing), num: true },
      { label: 'Completed', key: 'completed', value: p => num(p.stats.completed), num: true },
      { label: 'Failed', key: 'failed', value: p => num(p.stats.failed), num: true },
      { label: 'Dead letters', key: 'deadLetter', value: p => num(p.stats.deadLetter), num: true },
      { label: 'Oldest', key: 'oldest', value: p => time(p.oldestMessage) },
      { label: 'Newest', key: 'newest', value: p => time(p.newestMessage) },
      ...(compacted ? [
        { label: 'Compacted to', key: 'cleanedTo', value: p => num(cp(p).cleanedTo), num: true,
          title: 'offsets up to this one are compacted: the latest record of each key stays' },
        { label: 'Removed', key: 'recordsRemoved', value: p => num(cp(p).recordsRemoved), num: true },
        { label: 'Dirty', key: 'dirtyRatio', num: true,
          title: 'records after the compaction point over those plus the records it kept; due from min. dirty ratio',
          value: p => (cp(p).dirtyRatio === undefined ? '–' : cp(p).dirtyRatio.toFixed(2) + (cp(p).due ? ' (due)' : '')) },
      ] : []),
    ], q.partitions, { empty: 'No partitions.', rowAttrs: p => ({ 'data-partition': p.name }) })),
    section('Consumer groups', table([
      { label: 'Group', key: 'group', value: g => h('a', { href: '#/groups/' + encodeURIComponent(g.name) }, groupName(g.name)) },
      { label: 'Partitions', key: 'members', value: g => num(g.members), num: true },
      { label: 'Lagging', key: 'partitionsWithLag', value: g => num(g.partitionsWithLag), num: true },
      { label: 'Offset lag', key: 'totalLag', value: g => num(g.totalLag), num: true },
      { label: 'Time lag', key: 'maxTimeLag', value: g => ago(g.maxTimeLag), num: true },
      { label: 'State', key: 'state', value: g => g.state },
    ], mine, { empty: 'No consumer has read this queue yet.', rowAttrs: g => ({ 'data-group': g.name }) })),
    compacted ? section('Compaction', figures([
      ['Cleanup policy', c.cleanupPolicy, 'cleanupPolicy'],
      ['Records removed', num(c.recordsRemoved), 'compactionRecordsRemoved'],
      ['Bytes freed', num(c.bytesRemoved), 'compactionBytesRemoved'],
      ['Min. compaction lag', num(c.minCompactionLagMs) + ' ms', 'minCompactionLagMs'],
      ['Tombstones kept', num(c.deleteRetentionMs) + ' ms', 'deleteRetentionMs'],
      ['Min. dirty ratio', String(c.minCleanableDirtyRatio), 'minCleanableDirtyRatio'],
    ]), h('p', { class: 'muted' }, 'Change these with the Kafka topic configs or the compaction object of POST /api/v1/configure.'))
      : null,
    section('Configuration', config(q, refresh)));
}

function config(q, refresh) {
  const write = canWrite();
  const inputs = {};
  const fields = Object.entries(q.config || {}).map(([k, v]) => {
    const input = typeof v === 'boolean'
      ? h('input', { type: 'checkbox', name: k, checked: v, disabled: !write })
      : typeof v === 'number' || v === null
        ? h('input', { type: 'number', name: k, value: v === null ? '' : String(v), min: '0', step: '1', disabled: !write })
        : h('input', { type: 'text', name: k, value: v == null ? '' : String(v), readonly: true, title: 'fixed' });
    inputs[k] = [input, v];
    return h('label', { class: 'field' }, h('span', null, k), input);
  });
  const save = write ? h('button', { type: 'submit', class: 'primary', 'data-write': 'configure' }, 'Save configuration') : null;
  return guard(h('form', {
    class: 'config', 'data-k': 'config',
    onsubmit: async e => {
      e.preventDefault();
      const options = {};
      for (const [k, [input, v]] of Object.entries(inputs)) {
        if (typeof v === 'boolean') options[k] = input.checked;
        else if (input.value === '') continue;
        else if (input.type === 'number') options[k] = Number(input.value);
        else options[k] = input.value;
      }
      const ok = await act(save, () => post('/api/v1/configure', { queue: q.name, namespace: q.namespace, task: q.task, options }),
        'Configuration saved');
      if (ok) refresh();
    },
  }, h('div', { class: 'fields' }, fields), save,
  write ? null : h('p', { class: 'muted' }, 'Read-only: a read-write or admin token may change the configuration.')));
}

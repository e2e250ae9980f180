// One message in the detail drawer (the same drawer shows dead letters): its addresses, payload, status for each
// consumer group of its queue (pending, leased, acked, dead-lettered), traces, and "publish a copy".
import { get, qs, canWrite } from './api.js';
import { h, time, table, pretty, errorBox, drawer, groupName } from './ui.js';
import { publish } from './actions.js';

/**
 * The status of the message at (queue, partition, offset, transactionId) for every group reading the queue:
 * dead-lettered when the group filed it, acked at or below the group's committed offset, leased inside the group's
 * live lease span, else pending. Read from the group views, their members and the partition's dead letters.
 */
export async function groupStatuses(queue, partition, offset, transactionId) {
  const enc = encodeURIComponent;
  const [groups, dlq] = await Promise.all([
    get('/api/v1/consumer-groups'),
    get('/api/v1/dlq' + qs({ queue, partition, limit: 1000 })),
  ]);
  const names = [...new Set(groups.filter(g => g.queueName === queue).map(g => g.name))].sort();
  return Promise.all(names.map(async g => {
    const [view, members] = await Promise.all([get('/api/v1/consumer-groups/' + enc(g)), get('/api/v1/consumer-groups/' + enc(g) + '/members')]);
    const cursor = (view[queue]?.partitions || []).find(p => p.partition === partition);
    const lease = members.leases.find(l => l.queue === queue && l.partition === partition);
    const dead = dlq.messages.some(d => d.consumerGroup === g && (d.transactionId === transactionId || d.offset === offset));
    const status = dead ? 'dead-lettered'
      : cursor && offset <= cursor.committedOffset ? 'acked'
      : lease && lease.batchEnd !== null && offset <= lease.batchEnd ? 'leased'
      : 'pending';
    return { group: g, status, committed: cursor ? cursor.committedOffset : null, lease };
  }));
}

/** Opens the drawer on a message: r = {queue, partition, partitionId, offset, transactionId, payload, ts, ...}. */
export async function showMessage(r, { onPublished } = {}) {
  const body = h('div', { class: 'detail', id: 'record-detail' }, h('p', { class: 'muted' }, 'Loading…'));
  drawer('Message ' + r.queue + '/' + r.partition + ' @ ' + r.offset, body);
  const [traces, statuses] = await Promise.all([
    get('/api/v1/traces/' + encodeURIComponent(r.partitionId) + '/' + encodeURIComponent(r.transactionId)).then(x => x.traces, e => e),
    groupStatuses(r.queue, r.partition, r.offset, r.transactionId).catch(e => e),
  ]);
  body.replaceChildren(
    h('dl', { class: 'kv' },
      h('dt', null, 'Queue'), h('dd', null, r.queue + ' / ' + r.partition),
      h('dt', null, 'Offset'), h('dd', { 'data-k': 'offset' }, String(r.offset)),
      h('dt', null, 'Transaction'), h('dd', { 'data-k': 'transactionId' }, r.transactionId),
      h('dt', null, 'Message id'), h('dd', null, r.messageId || r.id || '–'),
      h('dt', null, 'Trace id'), h('dd', null, r.traceId || '–'),
      h('dt', null, 'Written'), h('dd', null, time(r.ts || r.createdAt))),
    canWrite() ? h('div', { class: 'actions' }, h('button', { type: 'button', 'data-write': 'publish-copy', onclick: async () => {
      const v = await publish(r.queue, [r.partition], { partition: r.partition, payload: r.payload });
      if (v && onPublished) onPublished(v);
    } }, 'Publish a copy')) : null,
    h('h3', null, 'Status per consumer group'),
    statuses instanceof Error ? errorBox(statuses) : table([
      { label: 'Group', key: 'group', value: s => groupName(s.group) },
      { label: 'Status', key: 'status', value: s => h('span', { class: 'status-' + s.status }, s.status) },
      { label: 'Committed', key: 'committed', value: s => (s.committed === null ? '–' : String(s.committed)), num: true },
    ], statuses, { empty: 'No consumer group reads this queue yet: pending for the first one.', rowAttrs: s => ({ 'data-group': s.group }) }),
    h('h3', null, 'Payload'), h('pre', { class: 'payload', 'data-k': 'payload' }, pretty(r.payload)),
    h('h3', null, 'Traces'),
    traces instanceof Error ? errorBox(traces) : table([
      { label: 'When', key: 'created_at', value: t => time(t.created_at) },
      { label: 'Event', key: 'event_type', value: t => t.event_type },
      { label: 'Group', key: 'consumer_group', value: t => t.consumer_group },
      { label: 'Names', key: 'trace_names', value: t => (t.trace_names || []).join(', ') },
      { label: 'Data', key: 'data', value: t => h('code', null, JSON.stringify(t.data)) },
    ], traces, { empty: 'No traces for this message.' }));
}

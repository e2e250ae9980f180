// One message in the detail drawer (the same drawer shows dead letters): its addresses, payload, status for each
// consumer group of its queue (pending, leased, acked, dead-lettered), traces, and "publish a copy".
import { get, canWrite } from './api.js';
import { h, time, table, pretty, errorBox, drawer, groupName } from './ui.js';
import { publish } from './actions.js';

/** Opens the drawer on a message: r = {queue, partition, partitionId, offset, transactionId, payload, ts, ...}. */
export async function showMessage(r, { onPublished } = {}) {
  const body = h('div', { class: 'detail', id: 'record-detail' }, h('p', { class: 'muted' }, 'Loading…'));
  drawer('Message ' + r.queue + '/' + r.partition + ' @ ' + r.offset, body);
  const [traces, statuses] = await Promise.all([
    get('/api/v1/traces/' + encodeURIComponent(r.partitionId) + '/' + encodeURIComponent(r.transactionId)).then(x => x.traces, e => e),
    // the broker reads every group's cursor, lease and dead letter of this message at once
    get('/api/v1/messages/' + encodeURIComponent(r.partitionId) + '/' + encodeURIComponent(r.transactionId) + '/groups').then(x => x.groups, e => e),
  ]);
  body.replaceChildren(
    h('dl', { class: 'kv' },
      h('dt', null, 'Queue'), h('dd', null, r.queue + ' / ' + r.partition),
      h('dt', null, 'Offset'), h('dd', { 'data-k': 'offset' }, String(r.offset)),
      h('dt', null, 'Transaction'), h('dd', { 'data-k': 'transactionId' }, r.transactionId),
      h('dt', null, 'Message id'), h('dd', null, r.messageId || r.id || '–'),
      h('dt', null, 'Trace id'), h('dd', null, r.traceId || '–'),
      h('dt', null, 'Producer span'), h('dd', null, r.traceparent || '–'),
      h('dt', null, 'Key'), h('dd', { 'data-k': 'key' }, keyText(r.key)),
      h('dt', null, 'Written'), h('dd', null, time(r.ts || r.createdAt))),
    canWrite() ? h('div', { class: 'actions' }, h('button', { type: 'button', 'data-write': 'publish-copy', onclick: async () => {
      const v = await publish(r.queue, [r.partition], { partition: r.partition, payload: r.payload });
      if (v && onPublished) onPublished(v);
    } }, 'Publish a copy')) : null,
    h('h3', null, 'Status per consumer group'),
    statuses instanceof Error ? errorBox(statuses) : table([
      { label: 'Group', key: 'group', value: s => groupName(s.group) },
      { label: 'Status', key: 'status', value: s => h('span', { class: 'status-' + s.status }, s.status) },
      { label: 'Committed', key: 'committed', value: s => (s.committedOffset === null ? '–' : String(s.committedOffset)), num: true },
      { label: 'Detail', key: 'detail', value: s => (s.lease ? h('span', { title: s.lease.userAgent || 'user agent unknown' }, 'by ' + (s.lease.address || 'an unknown client')
        + ' until ' + time(s.lease.expiresAt).slice(11)) : s.deadLetter ? h('span', { title: time(s.deadLetter.failedAt) }, s.deadLetter.errorMessage) : '–') },
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

/** A message's key for log compaction: a string, {base64} for a Kafka key that is not UTF-8, or none. */
function keyText(key) {
  if (key === null || key === undefined) return '–';
  return typeof key === 'string' ? key : 'base64:' + key.base64;
}

// A queue's messages across its partitions, newest first (GET /api/v1/messages: no lease, no cursor), with their
// derived status; jump to a time (the newest at or before it, within the segments the browse route reads per
// partition), search a transaction id in every partition. A message opens in the detail drawer with its status
// per group. Kafka records show their key and headers as columns.
import { get, qs } from '../api.js';
import { h, num, time, section, table, guard, timeInput, timeOf } from '../ui.js';
import { showMessage } from '../message.js';

const PAGE = 50;
const EPOCH = '1970-01-01T00:00:00Z';

export async function render([queue], query, { go, refresh }) {
  const enc = encodeURIComponent;
  const q = await get('/api/v1/resources/queues/' + enc(queue));
  const skip = Math.max(0, Number(query.skip) || 0);
  const txn = query.txn || '';
  let rows;
  let total = null;
  if (txn) {
    // the broker probes each partition's transaction hashes
    rows = (await get('/api/v1/messages' + qs({ queue, transactionId: txn }))).messages;
  } else {
    const page = await get('/api/v1/messages' + qs({ queue, from: query.at ? EPOCH : undefined, to: query.at, limit: PAGE, offset: skip }));
    rows = page.messages;
    total = page.pagination?.total ?? null;
  }
  const here = '/queues/' + enc(queue) + '/messages';
  const atInput = timeInput('at', 'At or before', query.at);
  const txnInput = h('input', { type: 'search', name: 'txn', value: txn, placeholder: 'Transaction id', 'aria-label': 'Transaction id' });
  const open = async m => {
    const full = await get('/api/v1/messages/' + enc(m.partitionId) + '/' + enc(m.transactionId));
    showMessage({ ...full, queue, partition: m.partition, partitionId: m.partitionId, offset: m.offset, payload: full.data, ts: full.createdAt },
      { onPublished: refresh });
  };
  const pname = new Map(q.partitions.map(p => [p.id, p.name]));
  return h('div', { class: 'page', 'data-title': queue + ' messages' },
    h('div', { class: 'page-head' }, h('h1', null, h('a', { href: '#/queues' }, 'Queues'), ' / ',
      h('a', { href: '#/queues/' + enc(queue) }, queue), ' / messages'),
      h('span', { class: 'muted' }, 'every partition, newest first' + (query.at ? ', at or before ' + time(query.at) : ''))),
    guard(h('form', { class: 'filters', onsubmit: e => { e.preventDefault(); go(here, { txn: txnInput.value.trim() }); } },
      txnInput, h('button', { type: 'submit', 'data-k': 'search-txn' }, 'Find'),
      h('label', null, 'at or before (UTC) ', atInput),
      h('button', { type: 'button', 'data-k': 'jump-time', onclick: () => {
        if (!atInput.value) return atInput.focus();
        const at = timeOf(atInput);
        if (at) go(here, { at });
      } }, 'Jump to time'),
      txn || query.at || skip ? h('button', { type: 'button', onclick: () => go(here, {}) }, 'Newest') : null,
      !txn && rows.length === PAGE ? h('button', { type: 'button', 'data-k': 'older', onclick: () => go(here, { at: query.at, skip: skip + PAGE }) }, 'Older') : null)),
    section(txn ? 'Transaction ' + txn : 'Messages', table([
      { label: 'Written', key: 'createdAt', value: m => time(m.createdAt) },
      { label: 'Partition', key: 'partition', value: m => h('a', { href: '#/queues/' + enc(queue) + '/partitions/' + enc(m.partition || pname.get(m.partitionId)) + '?offset=' + m.offset }, m.partition || pname.get(m.partitionId)) },
      { label: 'Offset', key: 'offset', value: m => num(m.offset), num: true },
      { label: 'Transaction', key: 'transactionId', value: m => h('button', { type: 'button', class: 'link', onclick: () => open({ ...m, partition: m.partition || pname.get(m.partitionId) }) }, m.transactionId) },
      { label: 'Status', key: 'status', value: m => h('span', { class: 'status-' + (m.status === 'dead_letter' ? 'dead-lettered' : m.status) }, m.status.replace('_', ' ')) },
      // a Kafka record's key and headers, when the page holds one
      ...(rows.some(m => m.kafka) ? [
        { label: 'Key', key: 'kafkaKey', value: m => (m.kafka ? h('code', null, bytes(m.kafka.key) ?? '–') : '') },
        { label: 'Headers', key: 'kafkaHeaders', value: m => (m.kafka ? h('code', null, m.kafka.headers.map(x =>
          x.value === null ? x.key : x.key + '=' + bytes(x.value)).join(', ') || '–') : '') },
      ] : []),
    ], rows, { empty: txn ? 'No partition of ' + queue + ' holds transaction ' + txn + '.' : 'No messages.',
      rowAttrs: m => ({ 'data-transaction': m.transactionId, 'data-partition': m.partition || pname.get(m.partitionId), class: m.status === 'dead_letter' ? 'dead' : null }) })),
    total === null ? null : h('p', { class: 'muted' }, num(total) + ' in all'));
}

/** A Kafka bytes field as the envelope keeps it: text, or {base64} for bytes that are not UTF-8; null stays null. */
function bytes(v) {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? v : 'base64:' + v.base64;
}

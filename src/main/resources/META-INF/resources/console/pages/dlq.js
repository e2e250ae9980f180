// Dead letters: filter by queue, group, partition, error text and failure time (all applied by the broker); a
// letter opens in the detail drawer (error, payload, addresses) where it can be replayed into its partition or into
// another queue, or deleted; with a write role every letter matching the filter can be replayed or deleted at once
// by the broker, in batches (POST /api/v1/dlq/replay|delete), after a confirmation telling how many
// (GET /api/v1/dlq/count), with the progress told batch by batch. A replayed message is a new message of its
// queue: every group reading that queue receives it, not only the group that dead-lettered it.
import { get, post, del, qs, canWrite } from '../api.js';
import { h, num, time, table, pretty, confirmAction, act, groupName, guard, drawer, formDialog, toast, timeInput, timeOf } from '../ui.js';

const fanOut = queue => 'Every consumer group reading ' + queue + ' receives the replayed message (it is appended as a new '
  + 'message), not only the group that dead-lettered it.';

/** The broker's filter fields of the page's filter (empty ones left out). */
const filterOf = f => ({ queue: f.queue, consumerGroup: f.consumerGroup, partition: f.partition, error: f.error, from: f.from, to: f.to });

export async function render(_params, query, { go, refresh }) {
  const filter = { queue: query.queue || '', consumerGroup: query.consumerGroup || '', partition: query.partition || '',
    error: query.error || '', from: query.from || '', to: query.to || '' };
  const page = await get('/api/v1/dlq' + qs({ ...filterOf(filter), limit: 100 }));
  const inputs = Object.fromEntries(Object.entries({ queue: 'Queue', consumerGroup: 'Group', partition: 'Partition', error: 'Error text' })
    .map(([k, label]) => [k, h('input', { type: 'text', name: k, value: filter[k], placeholder: label, 'aria-label': label })]));
  inputs.from = timeInput('from', 'Failed from', filter.from, 'Failed from (UTC)');
  inputs.to = timeInput('to', 'Failed until', filter.to, 'Failed until (UTC)');
  const filtered = Object.values(filter).some(Boolean);
  return h('div', { class: 'page', 'data-title': 'Dead letters' },
    h('div', { class: 'page-head' }, h('h1', null, 'Dead letters'),
      h('span', { class: 'muted', 'data-k': 'total' }, num(page.total) + (page.total === 1 ? ' dead letter' : ' dead letters'))),
    guard(h('form', { class: 'filters', onsubmit: e => {
      e.preventDefault();
      const v = Object.fromEntries(Object.entries(inputs).map(([k, i]) => [k, i.value.trim()]));
      for (const k of ['from', 'to']) {
        if (v[k] && !(v[k] = timeOf(inputs[k]))) return;
      }
      go('/dlq', v);
    } }, Object.values(inputs), h('button', { type: 'submit' }, 'Filter'), h('button', { type: 'button', onclick: refresh }, 'Refresh'))),
    canWrite() && page.total ? h('div', { class: 'toolbar' },
      h('button', { type: 'button', 'data-write': 'bulk-replay', onclick: () => bulkReplay(filter, refresh) },
        'Replay ' + (filtered ? 'matching' : 'all') + '…'),
      h('button', { type: 'button', class: 'danger', 'data-write': 'bulk-delete', onclick: () => bulkDelete(filter, refresh) },
        'Delete ' + (filtered ? 'matching' : 'all') + '…')) : null,
    h('section', { class: 'card' }, table([
      { label: 'Error', key: 'errorMessage', value: d => h('button', { type: 'button', class: 'link', onclick: () => show(d, refresh) }, d.errorMessage), head: true },
      { label: 'Failed', key: 'failedAt', value: d => time(d.failedAt) },
      { label: 'Queue', key: 'queue', value: d => d.queue },
      { label: 'Partition', key: 'partition', value: d => h('a', { href: '#/queues/' + encodeURIComponent(d.queue) + '/partitions/' + encodeURIComponent(d.partition) + '?offset=' + d.offset }, d.partition) },
      { label: 'Group', key: 'consumerGroup', value: d => groupName(d.consumerGroup) },
      { label: 'Offset', key: 'offset', value: d => String(d.offset), num: true },
    ], page.messages, { stack: true, empty: 'No dead letters' + (filtered ? ' match the filter.' : '.'),
      rowAttrs: d => ({ 'data-dlq': d.id, 'data-transaction': d.transactionId }) })));
}

async function replayInto(d, target) {
  return post('/api/v1/dlq/' + encodeURIComponent(d.id) + '/replay', target || {});
}

function show(d, refresh) {
  const write = canWrite();
  const body = h('div', { class: 'detail', id: 'dlq-detail' },
    h('dl', { class: 'kv' },
      h('dt', null, 'Queue'), h('dd', null, d.queue + ' / ' + d.partition),
      h('dt', null, 'Group'), h('dd', null, groupName(d.consumerGroup)),
      h('dt', null, 'Offset'), h('dd', null, String(d.offset)),
      h('dt', null, 'Transaction'), h('dd', { 'data-k': 'transactionId' }, d.transactionId),
      h('dt', null, 'Retries'), h('dd', null, String(d.retryCount)),
      h('dt', null, 'Written'), h('dd', null, time(d.createdAt)),
      h('dt', null, 'Failed'), h('dd', null, time(d.failedAt)),
      h('dt', null, 'Producer'), h('dd', null, d.producerSub || '–')),
    h('h3', null, 'Error'), h('pre', { class: 'payload error-text', 'data-k': 'error' }, d.errorMessage),
    h('h3', null, 'Payload'), h('pre', { class: 'payload', 'data-k': 'payload' }, pretty(d.data)),
    write ? h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'primary', 'data-write': 'replay', onclick: async e => {
        if (!(await confirmAction('Replay this message into ' + d.queue + '/' + d.partition
          + '? It is appended at the end of the partition and this dead letter is removed. ' + fanOut(d.queue), 'Replay'))) return;
        const r = await act(e.target, () => replayInto(d),
          r => r.result === 'moved' ? 'Replayed at offset ' + r.replayedAs.offset : 'Already replayed (duplicate): kept');
        if (r) done(refresh);
      } }, 'Replay'),
      h('button', { type: 'button', 'data-write': 'replay-into', onclick: async () => {
        const v = await formDialog({ title: 'Replay into another queue', okLabel: 'Replay', id: 'replay-dialog', text: fanOut('the target queue'),
          fields: [{ name: 'queue', label: 'Queue', value: d.queue, required: true }, { name: 'partition', label: 'Partition', value: d.partition }] });
        if (!v) return;
        try {
          const r = await replayInto(d, { queue: v.queue.trim(), partition: v.partition.trim() || undefined });
          toast(r.result === 'moved' ? 'Replayed into ' + v.queue.trim() + ' at offset ' + r.replayedAs.offset : 'Already replayed (duplicate): kept');
          done(refresh);
        } catch (err) {
          toast(err.message, true);
        }
      } }, 'Replay into…'),
      h('button', { type: 'button', class: 'danger', 'data-write': 'delete', onclick: async e => {
        if (!(await confirmAction('Delete the dead letter of ' + d.queue + '/' + d.partition + ' offset ' + d.offset
          + ' (every group\'s)? The message cannot be replayed afterwards.', 'Delete'))) return;
        const r = await act(e.target, () => del('/api/v1/messages/' + encodeURIComponent(d.partitionId) + '/'
          + encodeURIComponent(d.transactionId)), 'Dead letter deleted');
        if (r) done(refresh);
      } }, 'Delete')) : null);
  drawer('Dead letter', body);
}

function done(refresh) {
  document.getElementById('drawer')?.classList.remove('open');
  refresh();
}

const describe = f => Object.entries({ queue: 'queue', consumerGroup: 'group', partition: 'partition', error: 'error containing', from: 'failed from', to: 'failed until' })
  .filter(([k]) => f[k]).map(([k, label]) => label + ' ' + (k === 'consumerGroup' ? groupName(f[k]) : f[k])).join(', ') || 'no filter';

/**
 * Runs a bulk action batch after batch (each call answers its counts, what is left and where to go on), telling the
 * progress; resolves to the summed counts, or to the error that stopped it with the counts so far.
 */
async function inBatches(path, body, total, verb, add) {
  const sum = {};
  let after;
  for (;;) {
    let r;
    try {
      r = await post(path, { ...body, after });
    } catch (err) {
      return { ...sum, error: err };
    }
    add(sum, r);
    if (r.next === null || r.visited === 0) return sum;
    after = r.next;
    toast(verb + ' ' + num(sum.done) + ' of ' + num(total) + '…');
  }
}

const counted = (sum, k, n) => (sum[k] = (sum[k] || 0) + n);

// A bulk action sends back the count's `until` (its newest letter): the broker acts on the letters the operator was
// told about, not on letters filed after the count.
async function bulkReplay(filter, refresh) {
  const { count, until } = await get('/api/v1/dlq/count' + qs(filterOf(filter)));
  const v = await formDialog({
    title: 'Replay ' + num(count) + ' dead letter(s)', okLabel: 'Replay ' + num(count), id: 'bulk-replay-dialog',
    text: 'Matching: ' + describe(filter) + '. Each is appended as a new message and its dead letter removed, by the broker, '
      + 'oldest first; letters filed after this count stay. Leave the queue empty to replay each into its own partition. ' + fanOut('the queue'),
    fields: [{ name: 'queue', label: 'Into queue (optional)', value: '' }, { name: 'partition', label: 'Partition (optional)', value: '' }],
  });
  if (!v) return;
  const into = v.queue.trim() ? { intoQueue: v.queue.trim(), intoPartition: v.partition.trim() || undefined } : {};
  if (!until) return;
  const s = await inBatches('/api/v1/dlq/replay', { ...filterOf(filter), ...into, until }, count, 'Replayed', (sum, r) => {
    counted(sum, 'done', r.replayed);
    counted(sum, 'dup', r.duplicates);
    counted(sum, 'gone', r.gone);
  });
  toast('Replayed ' + num(s.done || 0) + (s.dup ? ', ' + num(s.dup) + ' duplicate(s) kept' : '')
    + (s.gone ? ', ' + num(s.gone) + ' already gone' : '') + (s.error ? '; stopped: ' + s.error.message : ''), !!s.error);
  refresh();
}

async function bulkDelete(filter, refresh) {
  const { count, until } = await get('/api/v1/dlq/count' + qs(filterOf(filter)));
  if (!(await confirmAction('Delete ' + num(count) + ' dead letter(s) matching ' + describe(filter)
    + '? They cannot be replayed afterwards. Letters filed after this count stay.', 'Delete ' + num(count))) || !until) return;
  const s = await inBatches('/api/v1/dlq/delete', { ...filterOf(filter), until }, count, 'Deleted', (sum, r) => counted(sum, 'done', r.deleted));
  toast('Deleted ' + num(s.done || 0) + ' dead letter(s)' + (s.error ? '; stopped: ' + s.error.message : ''), !!s.error);
  refresh();
}

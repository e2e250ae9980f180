// Dead letters: filter by queue, group and partition; a letter's error and payload; replay it into its
// partition or delete it (each after a confirmation).
import { get, post, del, qs, canWrite } from '../api.js';
import { h, num, time, table, pretty, confirmAction, act, groupName } from '../ui.js';

export async function render(_params, query, { go, refresh }) {
  const filter = { queue: query.queue || '', consumerGroup: query.consumerGroup || '', partition: query.partition || '' };
  const page = await get('/api/v1/dlq' + qs({ ...filter, limit: 100 }));
  const inputs = Object.fromEntries(Object.entries({ queue: 'Queue', consumerGroup: 'Group', partition: 'Partition' }).map(([k, label]) =>
    [k, h('input', { type: 'text', name: k, value: filter[k], placeholder: label, 'aria-label': label })]));
  const detail = h('div', { class: 'detail', id: 'dlq-detail' }, h('p', { class: 'muted' }, 'Select a dead letter to inspect it.'));
  return h('div', { class: 'page', 'data-title': 'Dead letters' },
    h('div', { class: 'page-head' }, h('h1', null, 'Dead letters'),
      h('span', { class: 'muted', 'data-k': 'total' }, num(page.total) + (page.total === 1 ? ' dead letter' : ' dead letters'))),
    h('form', { class: 'filters', onsubmit: e => {
      e.preventDefault();
      go('/dlq', Object.fromEntries(Object.entries(inputs).map(([k, i]) => [k, i.value.trim()])));
    } }, Object.values(inputs), h('button', { type: 'submit' }, 'Filter'), h('button', { type: 'button', onclick: refresh }, 'Refresh')),
    h('div', { class: 'split' },
      h('section', { class: 'card' }, table([
        { label: 'Failed', key: 'failedAt', value: d => time(d.failedAt) },
        { label: 'Queue', key: 'queue', value: d => d.queue },
        { label: 'Partition', key: 'partition', value: d => d.partition },
        { label: 'Group', key: 'consumerGroup', value: d => groupName(d.consumerGroup) },
        { label: 'Offset', key: 'offset', value: d => String(d.offset), num: true },
        { label: 'Error', key: 'errorMessage', value: d => h('button', { type: 'button', class: 'link', onclick: () => show(detail, d, refresh) }, d.errorMessage) },
      ], page.messages, { empty: 'No dead letters' + (Object.values(filter).some(Boolean) ? ' match the filter.' : '.'),
        rowAttrs: d => ({ 'data-dlq': d.id, 'data-transaction': d.transactionId }) })),
      h('section', { class: 'card' }, h('h2', null, 'Dead letter'), detail)));
}

function show(detail, d, refresh) {
  const write = canWrite();
  detail.replaceChildren(
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
          + '? It is appended at the end of the partition and this dead letter is removed.', 'Replay'))) return;
        const r = await act(e.target, () => post('/api/v1/dlq/' + encodeURIComponent(d.id) + '/replay', {}),
          r => r.result === 'moved' ? 'Replayed at offset ' + r.replayedAs.offset : 'Already replayed (duplicate): kept');
        if (r) refresh();
      } }, 'Replay'),
      h('button', { type: 'button', class: 'danger', 'data-write': 'delete', onclick: async e => {
        if (!(await confirmAction('Delete the dead letter of ' + d.queue + '/' + d.partition + ' offset ' + d.offset
          + ' (every group\'s)? The message cannot be replayed afterwards.', 'Delete'))) return;
        const r = await act(e.target, () => del('/api/v1/messages/' + encodeURIComponent(d.partitionId) + '/'
          + encodeURIComponent(d.transactionId)), 'Dead letter deleted');
        if (r) refresh();
      } }, 'Delete')) : null);
}

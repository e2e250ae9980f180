// Queues: the list with a name search; figures first (pending, live rates with their sparklines, dead letters,
// each consumer group's offset lag), names of namespace and task last. "New queue" with a write role.
import { get, qs, canWrite } from '../api.js';
import { h, num, rate, table, groupName, guard } from '../ui.js';
import { latest, queueOf, series, sparkline } from '../live.js';
import { createQueue } from '../actions.js';

export async function render(_params, query, { go, refresh }) {
  const search = query.search || '';
  const [list, groups, live] = await Promise.all([
    get('/api/v1/resources/queues' + qs({ search, limit: 500 })),
    get('/api/v1/consumer-groups'),
    latest(),
  ]);
  const lagByQueue = new Map();
  for (const g of groups) {
    if (!lagByQueue.has(g.queueName)) lagByQueue.set(g.queueName, []);
    lagByQueue.get(g.queueName).push(g);
  }
  const input = h('input', { type: 'search', name: 'search', value: search, placeholder: 'Search queue names', 'aria-label': 'Search queues' });
  const form = guard(h('form', { class: 'filters', onsubmit: e => { e.preventDefault(); go('/queues', { search: input.value.trim() }); } },
    input, h('button', { type: 'submit' }, 'Search'), h('button', { type: 'button', onclick: refresh }, 'Refresh')));
  const r = q => queueOf(live, q.name);
  return h('div', { class: 'page', 'data-title': 'Queues' },
    h('div', { class: 'page-head' }, h('h1', null, 'Queues'),
      h('span', { class: 'muted', 'data-k': 'count' }, list.total + (list.total === 1 ? ' queue' : ' queues')),
      canWrite() ? h('button', { type: 'button', class: 'primary', 'data-write': 'create', onclick: async () => {
        const name = await createQueue();
        if (name) go('/queues/' + encodeURIComponent(name));
      } }, 'New queue') : null),
    form,
    h('section', { class: 'card' }, table([
      { label: 'Queue', key: 'name', value: q => h('a', { href: '#/queues/' + encodeURIComponent(q.name) }, q.name), head: true },
      { label: 'Pending', key: 'pending', value: q => num(q.messages.pending), num: true },
      { label: 'Push / s', key: 'push', value: q => rate(r(q).push), num: true },
      { label: 'Pop / s', key: 'pop', value: q => rate(r(q).pop), num: true },
      { label: 'Ack / s', key: 'ack', value: q => rate(r(q).ack), num: true },
      { label: 'Recent push', key: 'spark', value: q => sparkline(series(a => queueOf(a, q.name).push), 's1', 'push per second, recent'), wide: true },
      { label: 'Processing', key: 'processing', value: q => num(q.messages.processing), num: true },
      { label: 'Dead letters', key: 'deadLetter', value: q => num(q.messages.deadLetter), num: true },
      { label: 'Messages', key: 'total', value: q => num(q.messages.total), num: true },
      { label: 'Partitions', key: 'partitions', value: q => num(q.partitions), num: true },
      { label: 'Lag by group', key: 'lag', value: q => h('span', { class: 'chips' }, (lagByQueue.get(q.name) || []).map(g =>
        h('a', { class: 'chip', href: '#/groups/' + encodeURIComponent(g.name), 'data-group': g.name }, groupName(g.name) + ' ', h('b', null, num(g.totalLag))))), full: true },
      { label: 'Namespace', key: 'namespace', value: q => q.namespace || '–', wide: true },
      { label: 'Task', key: 'task', value: q => q.task || '–', wide: true },
    ], list.queues, { stack: true, empty: search ? 'No queue name contains "' + search + '".' : 'No queues yet.', rowAttrs: q => ({ 'data-queue': q.name }) })));
}

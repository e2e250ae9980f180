// Queues: the list with a name search, message figures and each consumer group's offset lag.
import { get, qs } from '../api.js';
import { h, num, table, groupName } from '../ui.js';

export async function render(_params, query, { go, refresh }) {
  const search = query.search || '';
  const [list, groups] = await Promise.all([
    get('/api/v1/resources/queues' + qs({ search, limit: 500 })),
    get('/api/v1/consumer-groups'),
  ]);
  const lagByQueue = new Map();
  for (const g of groups) {
    if (!lagByQueue.has(g.queueName)) lagByQueue.set(g.queueName, []);
    lagByQueue.get(g.queueName).push(g);
  }
  const input = h('input', { type: 'search', name: 'search', value: search, placeholder: 'Search queue names', 'aria-label': 'Search queues' });
  const form = h('form', { class: 'filters', onsubmit: e => { e.preventDefault(); go('/queues', { search: input.value.trim() }); } },
    input, h('button', { type: 'submit' }, 'Search'), h('button', { type: 'button', onclick: refresh }, 'Refresh'));
  return h('div', { class: 'page', 'data-title': 'Queues' },
    h('div', { class: 'page-head' }, h('h1', null, 'Queues'),
      h('span', { class: 'muted', 'data-k': 'count' }, list.total + (list.total === 1 ? ' queue' : ' queues'))),
    form,
    h('section', { class: 'card' }, table([
      { label: 'Queue', key: 'name', value: q => h('a', { href: '#/queues/' + encodeURIComponent(q.name) }, q.name) },
      { label: 'Namespace', key: 'namespace', value: q => q.namespace || '–' },
      { label: 'Task', key: 'task', value: q => q.task || '–' },
      { label: 'Partitions', key: 'partitions', value: q => num(q.partitions), num: true },
      { label: 'Messages', key: 'total', value: q => num(q.messages.total), num: true },
      { label: 'Pending', key: 'pending', value: q => num(q.messages.pending), num: true },
      { label: 'Processing', key: 'processing', value: q => num(q.messages.processing), num: true },
      { label: 'Dead letters', key: 'deadLetter', value: q => num(q.messages.deadLetter), num: true },
      { label: 'Lag by group', key: 'lag', value: q => h('span', { class: 'chips' }, (lagByQueue.get(q.name) || []).map(g =>
        h('a', { class: 'chip', href: '#/groups/' + encodeURIComponent(g.name), 'data-group': g.name }, groupName(g.name) + ' ', h('b', null, num(g.totalLag))))) },
    ], list.queues, { empty: search ? 'No queue name contains "' + search + '".' : 'No queues yet.', rowAttrs: q => ({ 'data-queue': q.name }) })));
}

// Consumer groups: one row per (group, queue) with its lag and state.
import { get } from '../api.js';
import { h, num, ago, time, table, groupName } from '../ui.js';

export async function render(_params, _query, { refresh }) {
  const groups = await get('/api/v1/consumer-groups');
  return h('div', { class: 'page', 'data-title': 'Consumer groups' },
    h('div', { class: 'page-head' }, h('h1', null, 'Consumer groups'),
      h('span', { class: 'muted' }, '"queue mode" is the cursor of consumers that name no group'),
      h('button', { type: 'button', onclick: refresh }, 'Refresh')),
    h('section', { class: 'card' }, table([
      { label: 'Group', key: 'group', value: g => h('a', { href: '#/groups/' + encodeURIComponent(g.name) }, groupName(g.name)) },
      { label: 'Queue', key: 'queue', value: g => h('a', { href: '#/queues/' + encodeURIComponent(g.queueName) }, g.queueName) },
      { label: 'Partitions', key: 'members', value: g => num(g.members), num: true },
      { label: 'Lagging', key: 'partitionsWithLag', value: g => num(g.partitionsWithLag), num: true },
      { label: 'Offset lag', key: 'totalLag', value: g => num(g.totalLag), num: true },
      { label: 'Time lag', key: 'maxTimeLag', value: g => ago(g.maxTimeLag), num: true },
      { label: 'Leases', key: 'activeLeases', value: g => num(g.activeLeases), num: true },
      { label: 'State', key: 'state', value: g => h('span', { class: g.state === 'Stable' ? 'ok' : 'warn' }, g.state) },
      { label: 'Subscription', key: 'subscription', value: g => (g.subscriptionMode || '–') + (g.subscriptionTimestamp ? ' ' + time(g.subscriptionTimestamp) : '') },
    ], groups, { empty: 'No consumer group has read anything yet.', rowAttrs: g => ({ 'data-group': g.name, 'data-queue': g.queueName }) })));
}

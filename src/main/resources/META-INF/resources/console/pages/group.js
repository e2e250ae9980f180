// One consumer group: lag per partition of each queue it reads; with a write role, seek a queue to its end or
// to a time, or one partition to its end (each after a confirmation).
import { get, post, canWrite } from '../api.js';
import { h, num, ago, table, confirmAction, act, groupName } from '../ui.js';

export async function render([group], _query, { refresh }) {
  const byQueue = await get('/api/v1/consumer-groups/' + encodeURIComponent(group));
  const queues = Object.keys(byQueue).sort();
  const enc = encodeURIComponent;
  const seek = (queue, body, what, button) => act(button,
    () => post('/api/v1/consumer-groups/' + enc(group) + '/queues/' + enc(queue) + '/seek', body),
    r => 'Moved ' + r.partitionsUpdated + ' partition cursor(s) ' + what).then(r => r && refresh());
  return h('div', { class: 'page', 'data-title': groupName(group) },
    h('div', { class: 'page-head' }, h('h1', null, h('a', { href: '#/groups' }, 'Consumer groups'), ' / ', groupName(group)),
      h('button', { type: 'button', onclick: refresh }, 'Refresh')),
    queues.length ? null : h('p', { class: 'muted' }, 'This group has no cursor.'),
    queues.map(queue => {
      const when = h('input', { type: 'datetime-local', step: '1', 'aria-label': 'Seek time (UTC)', name: 'seek-time' });
      const tools = canWrite() ? h('div', { class: 'filters' },
        h('button', { type: 'button', 'data-write': 'seek-end', onclick: async e => {
          if (await confirmAction('Move every cursor of ' + groupName(group) + ' on ' + queue
            + ' to the end? Everything not yet consumed will be skipped.', 'Seek to end')) await seek(queue, { toEnd: true }, 'to the end', e.target);
        } }, 'Seek to end'),
        h('label', null, 'or to (UTC) ', when),
        h('button', { type: 'button', 'data-write': 'seek-time', onclick: async e => {
          if (!when.value) return when.focus();
          const ts = new Date(when.value + 'Z').toISOString();
          if (await confirmAction('Move every cursor of ' + groupName(group) + ' on ' + queue + ' to ' + ts
            + '? Messages after it are delivered (again), earlier ones are skipped.', 'Seek')) await seek(queue, { timestamp: ts }, 'to ' + ts, e.target);
        } }, 'Seek to time')) : null;
      return h('section', { class: 'card', 'data-queue': queue }, h('h2', null, queue), tools, table([
        { label: 'Partition', key: 'partition', value: p => h('a', { href: '#/queues/' + enc(queue) + '/partitions/' + enc(p.partition) }, p.partition) },
        { label: 'Committed', key: 'committedOffset', value: p => num(p.committedOffset), num: true },
        { label: 'Offset lag', key: 'offsetLag', value: p => num(p.offsetLag), num: true },
        { label: 'Time lag', key: 'timeLagSeconds', value: p => ago(p.timeLagSeconds), num: true },
        { label: 'Consumed', key: 'totalConsumed', value: p => num(p.totalConsumed), num: true },
        { label: 'Lease', key: 'leaseActive', value: p => (p.leaseActive ? 'active' : '–') },
        canWrite() ? { label: '', key: 'actions', value: p => h('button', { type: 'button', class: 'small', 'data-write': 'seek-partition',
          onclick: async e => {
            if (!(await confirmAction('Move the cursor of ' + groupName(group) + ' on ' + queue + '/' + p.partition + ' to the end?', 'Seek to end'))) return;
            if (await act(e.target, () => post('/api/v1/consumer-groups/' + enc(group) + '/queues/' + enc(queue) + '/partitions/'
              + enc(p.partition) + '/seek', {}), 'Cursor moved to the end')) refresh();
          } }, 'To end') } : null,
      ].filter(Boolean), byQueue[queue].partitions, { rowAttrs: p => ({ 'data-partition': p.partition }) }));
    }));
}

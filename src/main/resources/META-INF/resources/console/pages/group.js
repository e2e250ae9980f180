// One consumer group: its members (Kafka members this broker coordinates, live leases with the client that took
// each, recent poppers), lag per partition
// of each queue it reads; with a write role, seek a queue to the earliest or latest message or to a time, one
// partition to its end or to an offset; as admin, delete the group (each after a confirmation).
import { get, post, del, canWrite, isAdmin } from '../api.js';
import { h, num, ago, time, table, section, confirmAction, act, groupName, guard, formDialog, toast, timeInput, timeOf, parseTime } from '../ui.js';

const EARLIEST = '1970-01-01T00:00:00.000Z';

export async function render([group], _query, { refresh, go }) {
  const enc = encodeURIComponent;
  const [byQueue, members] = await Promise.all([
    get('/api/v1/consumer-groups/' + enc(group)),
    get('/api/v1/consumer-groups/' + enc(group) + '/members'),
  ]);
  const queues = Object.keys(byQueue).sort();
  const seek = (queue, body, what, button) => act(button,
    () => post('/api/v1/consumer-groups/' + enc(group) + '/queues/' + enc(queue) + '/seek', body),
    r => 'Moved ' + r.partitionsUpdated + ' partition cursor(s) ' + what).then(r => r && refresh());
  const leaseOf = (queue, partition) => members.leases.find(l => l.queue === queue && l.partition === partition);
  return h('div', { class: 'page', 'data-title': groupName(group) },
    h('div', { class: 'page-head' }, h('h1', null, h('a', { href: '#/groups' }, 'Consumer groups'), ' / ', groupName(group)),
      isAdmin() && queues.length ? h('button', { type: 'button', class: 'danger', 'data-write': 'delete-group', onclick: async e => {
        if (!(await confirmAction('Delete consumer group ' + groupName(group) + ' on every queue (' + queues.join(', ')
          + ')? Its cursors and subscriptions go; a consumer using the name again starts as a new group. Dead letters stay.', 'Delete group'))) return;
        if (await act(e.target, () => del('/api/v1/consumer-groups/' + enc(group)), r => 'Deleted ' + r.deletedPartitions + ' cursor(s)')) go('/groups');
      } }, 'Delete group') : null,
      h('button', { type: 'button', onclick: refresh }, 'Refresh')),
    section('Members', membersView(members)),
    queues.length ? null : h('p', { class: 'muted' }, 'This group has no cursor.'),
    queues.map(queue => {
      const when = timeInput('seek-time', 'Seek time');
      const tools = canWrite() ? guard(h('form', { class: 'filters', onsubmit: e => e.preventDefault() },
        h('button', { type: 'button', 'data-write': 'seek-earliest', onclick: async e => {
          if (await confirmAction('Move every cursor of ' + groupName(group) + ' on ' + queue
            + ' to the earliest live message? Everything still in the queue is delivered (again).', 'Seek to earliest')) await seek(queue, { timestamp: EARLIEST }, 'to the earliest', e.target);
        } }, 'Seek to earliest'),
        h('button', { type: 'button', 'data-write': 'seek-end', onclick: async e => {
          if (await confirmAction('Move every cursor of ' + groupName(group) + ' on ' + queue
            + ' to the end? Everything not yet consumed will be skipped.', 'Seek to end')) await seek(queue, { toEnd: true }, 'to the end', e.target);
        } }, 'Seek to end'),
        h('label', null, 'or to (UTC) ', when),
        h('button', { type: 'button', 'data-write': 'seek-time', onclick: async e => {
          if (!when.value) return when.focus();
          const ts = timeOf(when);
          if (!ts) return;
          if (await confirmAction('Move every cursor of ' + groupName(group) + ' on ' + queue + ' to ' + ts
            + '? Messages after it are delivered (again), earlier ones are skipped.', 'Seek')) await seek(queue, { timestamp: ts }, 'to ' + ts, e.target);
        } }, 'Seek to time'),
        isAdmin() ? h('button', { type: 'button', class: 'danger', 'data-write': 'delete-group-queue', onclick: async e => {
          if (!(await confirmAction('Delete the cursors of ' + groupName(group) + ' on ' + queue + '?', 'Delete'))) return;
          if (await act(e.target, () => del('/api/v1/consumer-groups/' + enc(group) + '/queues/' + enc(queue)), 'Group removed from ' + queue)) refresh();
        } }, 'Remove from queue') : null)) : null;
      return h('section', { class: 'card', 'data-queue': queue }, h('h2', null, h('a', { href: '#/queues/' + enc(queue) }, queue)), tools, table([
        { label: 'Partition', key: 'partition', value: p => h('a', { href: '#/queues/' + enc(queue) + '/partitions/' + enc(p.partition) }, p.partition), head: true },
        // Kafka's convention, as its tools show it: the next offset to read (the cursor holds the last one consumed)
        { label: 'Committed', key: 'committedOffset', value: p => num(p.committedOffset + 1), num: true,
          title: 'the next offset to deliver, as Kafka\'s tools show a committed offset (the cursor is one below)' },
        { label: 'Offset lag', key: 'offsetLag', value: p => num(p.offsetLag), num: true },
        { label: 'Time lag', key: 'timeLagSeconds', value: p => ago(p.timeLagSeconds), num: true },
        { label: 'Consumed', key: 'totalConsumed', value: p => num(p.totalConsumed), num: true },
        { label: 'Lease', key: 'leaseActive', value: p => {
          const l = leaseOf(queue, p.partition);
          return l ? 'active, ' + l.expiresInSeconds + ' s left' : p.leaseActive ? 'active' : '–';
        } },
        canWrite() ? { label: 'Seek', key: 'actions', full: true, value: p => {
          const path = '/api/v1/consumer-groups/' + enc(group) + '/queues/' + enc(queue) + '/partitions/' + enc(p.partition) + '/seek';
          const moved = r => (r.updated ? 'Cursor of ' + p.partition + ' moved: next offset ' + (r.cursorMovedTo + 1) : 'No cursor of this group on ' + p.partition + ' yet: nothing moved');
          return h('span', { class: 'chips' },
            h('button', { type: 'button', class: 'small', 'data-write': 'seek-partition',
              onclick: async e => {
                if (!(await confirmAction('Move the cursor of ' + groupName(group) + ' on ' + queue + '/' + p.partition + ' to the end?', 'Seek to end'))) return;
                if (await act(e.target, () => post(path, {}), 'Cursor moved to the end')) refresh();
              } }, 'To end'),
            h('button', { type: 'button', class: 'small', 'data-write': 'seek-partition-to', onclick: async () => {
              const v = await formDialog({
                title: 'Seek ' + groupName(group) + ' on ' + queue + '/' + p.partition, okLabel: 'Seek', id: 'seek-dialog',
                text: 'Give the next offset to deliver (0 = the earliest live message) or a time (UTC): the first message written after it is delivered next.',
                fields: [{ name: 'offset', label: 'Next offset', type: 'number', min: 0, value: '' },
                  { name: 'at', label: 'or time (UTC)', value: '', placeholder: 'YYYY-MM-DD HH:MM:SSZ' }],
                validate: x => (!x.offset === !x.at ? 'Give an offset or a time.'
                  : x.at && !parseTime(x.at) ? 'Write the time in UTC, such as 2026-12-05 08:00:00Z.' : null),
              });
              if (!v) return;
              try {
                const body = v.offset !== '' ? { offset: Number(v.offset) } : { timestamp: parseTime(v.at) };
                toast(moved(await post(path, body)));
                refresh();
              } catch (err) {
                toast(err.message, true);
              }
            } }, 'To offset or time…'));
        } } : null,
      ].filter(Boolean), byQueue[queue].partitions, { stack: true, rowAttrs: p => ({ 'data-partition': p.partition }) }));
    }));
}

function membersView(m) {
  return [
    m.kafka ? [
      h('h3', null, 'Kafka members (', h('span', { 'data-k': 'kafka-state' }, m.kafka.state), m.kafka.protocol ? ', ' + m.kafka.protocol : '', ')'),
      table([
        { label: 'Member', key: 'memberId', value: k => k.memberId, head: true },
        { label: 'Client id', key: 'clientId', value: k => k.clientId },
        { label: 'Host', key: 'clientHost', value: k => k.clientHost },
        { label: 'Partitions', key: 'assignments', value: k => k.assignments.map(a => a.topic + '/' + a.partition).join(', ') || '–' },
        { label: 'Since', key: 'joinedAt', value: k => time(k.joinedAt) },
      ], m.kafka.members, { stack: true, empty: 'No Kafka member now.', rowAttrs: k => ({ 'data-kafka-member': k.memberId }) }),
    ] : null,
    h('h3', null, 'Leases now'),
    table([
      { label: 'Queue', key: 'queue', value: l => l.queue },
      { label: 'Partition', key: 'partition', value: l => l.partition },
      { label: 'Client', key: 'address', value: l => l.address || 'unknown' },
      { label: 'User agent', key: 'userAgent', value: l => l.userAgent || '–' },
      { label: 'Since', key: 'acquiredAt', value: l => time(l.acquiredAt) },
      { label: 'Expires in', key: 'expiresInSeconds', value: l => l.expiresInSeconds + ' s', num: true },
      { label: 'Span', key: 'span', value: l => (l.committed + 1) + '–' + (l.batchEnd ?? '?'), num: true },
      { label: 'Broker', key: 'broker', value: l => l.broker || '–' },
    ], m.leases, { stack: true, empty: 'No live lease: nobody is processing for this group right now.', rowAttrs: l => ({ 'data-lease': l.leaseId, 'data-partition': l.partition }) }),
    h('h3', null, 'Recent poppers (5 min)'),
    table([
      { label: 'Client', key: 'address', value: p => p.address || 'unknown' },
      { label: 'User agent', key: 'userAgent', value: p => p.userAgent || '–' },
      { label: 'Queue', key: 'queue', value: p => p.queue || '–' },
      { label: 'Pops', key: 'pops', value: p => num(p.pops), num: true },
      { label: 'Last pop', key: 'lastPopAt', value: p => time(p.lastPopAt) },
      { label: 'Broker', key: 'broker', value: p => p.broker },
    ], m.poppers, { stack: true, empty: 'No pop delivered to this group in the last 5 minutes.', rowAttrs: p => ({ 'data-popper': p.address }) }),
  ];
}

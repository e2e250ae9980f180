// Queue actions shared by the queue list and the queue page: create (with options), publish (and publish a copy),
// purge, delete with the name typed. Each goes through the HTTP API as the tab's token; the broker enforces roles.
import { post, del } from './api.js';
import { formDialog, toast, confirmAction, act } from './ui.js';

const OPTIONS = [
  ['leaseTime', 'number', 300, 'seconds a popped batch stays leased'],
  ['retryLimit', 'number', 3, 'failures before a message is dead-lettered'],
  ['dedupWindowSeconds', 'number', 3600, '0 turns the duplicate check off'],
  ['retentionEnabled', 'checkbox', false, ''],
  ['retentionSeconds', 'number', 0, 'delete messages older than this (with retention on)'],
  ['completedRetentionSeconds', 'number', 0, 'delete consumed messages older than this'],
  ['maxWaitTimeSeconds', 'number', 0, 'evict unconsumed messages older than this'],
  ['deadLetterQueue', 'checkbox', true, ''],
  ['encryptionEnabled', 'checkbox', false, ''],
  ['priority', 'number', 0, ''],
];

/** Asks for a name, namespace, task and options, then creates the queue (POST /api/v1/configure). */
export async function createQueue() {
  const v = await formDialog({
    title: 'New queue', okLabel: 'Create', id: 'create-dialog',
    fields: [
      { name: 'queue', label: 'Name', required: true },
      { name: 'namespace', label: 'Namespace' },
      { name: 'task', label: 'Task' },
      ...OPTIONS.map(([name, type, value, help]) => ({ name, label: name, type, value, min: 0, help })),
    ],
    validate: x => (x.queue.trim() ? null : 'A name is required.'),
  });
  if (!v) return null;
  const options = {};
  for (const [name, type] of OPTIONS) options[name] = type === 'checkbox' ? v[name] : Number(v[name] || 0);
  try {
    const r = await post('/api/v1/configure', { queue: v.queue.trim(), namespace: v.namespace.trim() || undefined,
      task: v.task.trim() || undefined, options });
    toast('Queue ' + r.queue + ' created');
    return r.queue;
  } catch (e) {
    toast(e.message, true);
    return null;
  }
}

/** The payload as the operator typed it: JSON when it parses, else the text itself. */
function payloadOf(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Publishes one message into queue (POST /api/v1/push), prefilled from a message for "publish a copy"; tells the
 * broker's verdict for the item (queued, duplicate, buffered, failed). Resolves to the verdict or null.
 */
export async function publish(queue, partitions, from) {
  const v = await formDialog({
    title: (from ? 'Publish a copy into ' : 'Publish to ') + queue, okLabel: 'Publish', id: 'publish-dialog',
    fields: [
      { name: 'partition', label: 'Partition', value: from?.partition || (partitions && partitions[0]) || 'Default',
        help: 'an existing or new partition name' },
      { name: 'transactionId', label: 'Transaction id', value: '', placeholder: 'generated when empty',
        help: 'a repeat inside the dedup window answers duplicate' },
      { name: 'payload', label: 'Payload (JSON, or text)', type: 'textarea', value: from ? pretty(from.payload) : '{\n  \n}' },
    ],
  });
  if (!v) return null;
  const item = { queue, partition: v.partition.trim() || 'Default', payload: payloadOf(v.payload) };
  if (v.transactionId.trim()) item.transactionId = v.transactionId.trim();
  try {
    const [r] = await post('/api/v1/push', { items: [item] });
    const where = r.offset !== undefined && r.offset !== null ? ' at offset ' + r.offset : '';
    const text = r.status === 'queued' ? 'Queued in ' + item.partition + where + ' (' + r.transactionId + ')'
      : r.status === 'duplicate' ? 'Duplicate: ' + r.transactionId + ' is already in ' + item.partition + ', nothing written'
      : r.status === 'buffered' ? 'Buffered: push maintenance is on; it reaches the queue when maintenance ends'
      : 'Failed: ' + (r.error || r.status);
    toast(text, r.status === 'failed');
    return r;
  } catch (e) {
    toast(e.message, true);
    return null;
  }
}

function pretty(v) {
  return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
}

/** Purges the queue after a confirmation telling how many messages go. */
export async function purge(button, queue, total) {
  if (!(await confirmAction('Remove all ' + total.toLocaleString('en-US') + ' message(s) of ' + queue
    + '? The queue, its configuration, consumer groups and dead letters stay. This cannot be undone.', 'Purge'))) return null;
  return act(button, () => post('/api/v1/resources/queues/' + encodeURIComponent(queue) + '/purge', {}),
    r => 'Purged ' + r.messages.toLocaleString('en-US') + ' message(s) from ' + queue);
}

/** Deletes the queue once its name is typed. */
export async function deleteQueue(queue) {
  const v = await formDialog({
    title: 'Delete ' + queue, okLabel: 'Delete queue', danger: true, id: 'delete-dialog',
    text: 'This deletes the queue with its partitions, messages, consumer groups\' cursors and dead letters. '
      + 'Type the queue name to confirm.',
    fields: [{ name: 'confirmName', label: 'Queue name', required: true, placeholder: queue }],
    validate: x => (x.confirmName === queue ? null : 'The name does not match.'),
  });
  if (!v) return false;
  try {
    await del('/api/v1/resources/queues/' + encodeURIComponent(queue));
    toast('Queue ' + queue + ' deleted');
    return true;
  } catch (e) {
    toast(e.message, true);
    return false;
  }
}

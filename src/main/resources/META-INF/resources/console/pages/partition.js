// A partition's log: records from an offset (or from a time) through the non-destructive fetch (no lease, no
// cursor moved), dead letters marked; a record opens in the detail drawer with its status per group and traces.
import { get, post, qs } from '../api.js';
import { h, num, time, section, table, guard, timeInput, timeOf } from '../ui.js';
import { showMessage } from '../message.js';

const PAGE = 20;

export async function render([queue, partition], query, { go, refresh }) {
  const q = await get('/api/v1/resources/queues/' + encodeURIComponent(queue));
  const p = q.partitions.find(x => x.name === partition);
  if (!p) throw new Error('partition ' + partition + ' not found in ' + queue);
  let wanted = query.offset !== undefined && Number.isFinite(Number(query.offset)) ? Number(query.offset) : null;
  if (query.at) wanted = await offsetAt(queue, partition, p.logStart, p.lastOffset, Date.parse(query.at));
  const start = Math.max(p.logStart, wanted === null ? p.logStart : wanted);
  const [res, dlq] = await Promise.all([
    post('/api/v1/fetch', { entries: [{ queue, partition, offset: start, maxBytes: 262144 }] }),
    get('/api/v1/dlq' + qs({ queue, partition, limit: 1000 })),
  ]);
  const entry = res.entries[0];
  const records = (entry.records || []).filter(r => r.offset >= start).slice(0, PAGE);
  const dead = new Map();
  for (const d of dlq.messages) {
    if (!dead.has(d.offset)) dead.set(d.offset, []);
    dead.get(d.offset).push(d.consumerGroup);
  }
  const here = '/queues/' + encodeURIComponent(queue) + '/partitions/' + encodeURIComponent(partition);
  const offsetInput = h('input', { type: 'number', name: 'offset', value: String(start), min: String(p.logStart), 'aria-label': 'Offset' });
  const atInput = timeInput('at', 'Time', query.at);
  const prev = Math.max(p.logStart, start - PAGE);
  const next = records.length ? records[records.length - 1].offset + 1 : start;
  const open = r => showMessage({ ...r, queue, partition, partitionId: p.id }, { onPublished: refresh });
  return h('div', { class: 'page', 'data-title': queue + '/' + partition },
    h('div', { class: 'page-head' }, h('h1', null, h('a', { href: '#/queues' }, 'Queues'), ' / ',
      h('a', { href: '#/queues/' + encodeURIComponent(queue) }, queue), ' / ', partition),
      h('a', { href: '#/queues/' + encodeURIComponent(queue) + '/messages' }, 'All partitions, newest first')),
    h('p', { class: 'muted' }, 'Offsets ', h('b', { 'data-k': 'logStart' }, num(p.logStart)), ' to ',
      h('b', { 'data-k': 'lastOffset' }, num(p.lastOffset)), ' are live; high watermark ',
      h('b', { 'data-k': 'highWatermark' }, num(entry.highWatermark)), '. Reading moves no cursor.'),
    guard(h('form', { class: 'filters', onsubmit: e => { e.preventDefault(); go(here, { offset: offsetInput.value }); } },
      h('label', null, 'From offset ', offsetInput), h('button', { type: 'submit' }, 'Go'),
      h('button', { type: 'button', disabled: start <= p.logStart, onclick: () => go(here, { offset: prev }) }, 'Older'),
      h('button', { type: 'button', disabled: next > p.lastOffset, onclick: () => go(here, { offset: next }) }, 'Newer'),
      h('label', null, 'or at (UTC) ', atInput),
      h('button', { type: 'button', 'data-k': 'jump-time', onclick: () => {
        if (!atInput.value) return atInput.focus();
        const at = timeOf(atInput);
        if (at) go(here, { at });
      } }, 'Jump to time'))),
    entry.error ? h('p', { class: 'error' }, entry.error) : null,
    section('Records', table([
      { label: 'Offset', key: 'offset', value: r => String(r.offset), num: true },
      { label: 'Transaction', key: 'transactionId', value: r => h('button', { type: 'button', class: 'link', onclick: () => open(r) }, r.transactionId) },
      { label: 'Written', key: 'ts', value: r => time(r.ts) },
      { label: 'Dead letter', key: 'dead', value: r => dead.has(r.offset)
        ? h('span', { class: 'tag dead', title: 'dead-lettered by ' + dead.get(r.offset).join(', ') }, 'dead letter: ' + dead.get(r.offset).map(g => g === '__QUEUE_MODE__' ? 'queue mode' : g).join(', ')) : '' },
      { label: 'Payload', key: 'preview', value: r => h('code', { class: 'preview' }, short(r.payload)) },
    ], records, { empty: 'No records from offset ' + start + '.', rowAttrs: r => ({ 'data-offset': String(r.offset), class: dead.has(r.offset) ? 'dead' : null }) })));
}

/**
 * The newest offset written at or before atMs (logStart when none is): a binary search over the live range with
 * small fetches, each answering the segment that covers an offset with its write time (monotone per partition).
 */
async function offsetAt(queue, partition, lo, hi, atMs) {
  let found = lo;
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const r = await post('/api/v1/fetch', { entries: [{ queue, partition, offset: mid, maxBytes: 1024 }] });
    const rec = (r.entries[0].records || []).find(x => x.offset >= mid);
    if (rec && Date.parse(rec.ts) <= atMs) {
      const last = r.entries[0].records.filter(x => Date.parse(x.ts) <= atMs).pop();
      found = last.offset;
      lo = last.offset + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

function short(v) {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s && s.length > 60 ? s.slice(0, 57) + '…' : s;
}

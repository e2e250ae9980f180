// A partition's log: records from an offset through the non-destructive fetch (no lease, no cursor moved),
// a record's payload, and its traces.
import { get, post } from '../api.js';
import { h, num, time, section, table, pretty, errorBox } from '../ui.js';

const PAGE = 20;

export async function render([queue, partition], query, { go }) {
  const q = await get('/api/v1/resources/queues/' + encodeURIComponent(queue));
  const p = q.partitions.find(x => x.name === partition);
  if (!p) throw new Error('partition ' + partition + ' not found in ' + queue);
  const start = Math.max(p.logStart, Number.isFinite(Number(query.offset)) && query.offset !== undefined
    ? Number(query.offset) : p.logStart);
  const res = await post('/api/v1/fetch', { entries: [{ queue, partition, offset: start, maxBytes: 262144 }] });
  const entry = res.entries[0];
  const records = (entry.records || []).filter(r => r.offset >= start).slice(0, PAGE);
  const here = '/queues/' + encodeURIComponent(queue) + '/partitions/' + encodeURIComponent(partition);
  const detail = h('div', { class: 'detail', id: 'record-detail' }, h('p', { class: 'muted' }, 'Select a record to see its payload and traces.'));
  const offsetInput = h('input', { type: 'number', name: 'offset', value: String(start), min: String(p.logStart), 'aria-label': 'Offset' });
  const prev = Math.max(p.logStart, start - PAGE);
  const next = records.length ? records[records.length - 1].offset + 1 : start;
  return h('div', { class: 'page', 'data-title': queue + '/' + partition },
    h('div', { class: 'page-head' }, h('h1', null, h('a', { href: '#/queues' }, 'Queues'), ' / ',
      h('a', { href: '#/queues/' + encodeURIComponent(queue) }, queue), ' / ', partition)),
    h('p', { class: 'muted' }, 'Offsets ', h('b', { 'data-k': 'logStart' }, num(p.logStart)), ' to ',
      h('b', { 'data-k': 'lastOffset' }, num(p.lastOffset)), ' are live; high watermark ',
      h('b', { 'data-k': 'highWatermark' }, num(entry.highWatermark)), '. Reading moves no cursor.'),
    h('form', { class: 'filters', onsubmit: e => { e.preventDefault(); go(here, { offset: offsetInput.value }); } },
      h('label', null, 'From offset ', offsetInput), h('button', { type: 'submit' }, 'Go'),
      h('button', { type: 'button', disabled: start <= p.logStart, onclick: () => go(here, { offset: prev }) }, 'Older'),
      h('button', { type: 'button', disabled: next > p.lastOffset, onclick: () => go(here, { offset: next }) }, 'Newer')),
    entry.error ? h('p', { class: 'error' }, entry.error) : null,
    h('div', { class: 'split' },
      section('Records', table([
        { label: 'Offset', key: 'offset', value: r => String(r.offset), num: true },
        { label: 'Transaction', key: 'transactionId', value: r => h('button', {
          type: 'button', class: 'link', onclick: () => show(detail, p, r) }, r.transactionId) },
        { label: 'Written', key: 'ts', value: r => time(r.ts) },
        { label: 'Payload', key: 'preview', value: r => h('code', { class: 'preview' }, short(r.payload)) },
      ], records, { empty: 'No records from offset ' + start + '.', rowAttrs: r => ({ 'data-offset': String(r.offset) }) })),
      section('Record', detail)));
}

function short(v) {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s && s.length > 60 ? s.slice(0, 57) + '…' : s;
}

async function show(detail, p, r) {
  detail.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
  let traces;
  try {
    traces = (await get('/api/v1/traces/' + encodeURIComponent(p.id) + '/' + encodeURIComponent(r.transactionId))).traces;
  } catch (e) {
    traces = e;
  }
  detail.replaceChildren(
    h('dl', { class: 'kv' },
      h('dt', null, 'Offset'), h('dd', { 'data-k': 'offset' }, String(r.offset)),
      h('dt', null, 'Transaction'), h('dd', { 'data-k': 'transactionId' }, r.transactionId),
      h('dt', null, 'Message id'), h('dd', null, r.messageId || '–'),
      h('dt', null, 'Trace id'), h('dd', null, r.traceId || '–'),
      h('dt', null, 'Written'), h('dd', null, time(r.ts))),
    h('h3', null, 'Payload'), h('pre', { class: 'payload', 'data-k': 'payload' }, pretty(r.payload)),
    h('h3', null, 'Traces'),
    traces instanceof Error ? errorBox(traces) : table([
      { label: 'When', key: 'created_at', value: t => time(t.created_at) },
      { label: 'Event', key: 'event_type', value: t => t.event_type },
      { label: 'Group', key: 'consumer_group', value: t => t.consumer_group },
      { label: 'Names', key: 'trace_names', value: t => (t.trace_names || []).join(', ') },
      { label: 'Data', key: 'data', value: t => h('code', null, JSON.stringify(t.data)) },
    ], traces, { empty: 'No traces for this message.' }));
}

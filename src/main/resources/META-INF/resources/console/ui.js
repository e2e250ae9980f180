// Small DOM helpers shared by the pages: an element builder, number and time formats, tables, figures and a
// confirmation dialog. Text is always set as text (never parsed as HTML).

export function h(tag, attrs, ...children) {
  const el = tag === 'svg' || attrs?.svg ? document.createElementNS('http://www.w3.org/2000/svg', tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false || k === 'svg') continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.setAttribute('class', v);
    else if (k in el && !(el instanceof SVGElement) && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

const nf = new Intl.NumberFormat('en-US');
export const num = n => (n === null || n === undefined || Number.isNaN(n) ? '–' : nf.format(n));
export const rate = n => (n === null || n === undefined ? '–' : n >= 100 ? nf.format(Math.round(n)) : n.toFixed(2));

export function time(t) {
  if (!t) return '–';
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? String(t) : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function ago(seconds) {
  if (seconds === null || seconds === undefined) return '–';
  const s = Math.floor(seconds);
  if (s < 60) return s + ' s';
  if (s < 3600) return Math.floor(s / 60) + ' min';
  if (s < 86400) return (s / 3600).toFixed(1) + ' h';
  return (s / 86400).toFixed(1) + ' d';
}

export const groupName = g => (g === '__QUEUE_MODE__' ? 'queue mode' : g);

/** A table; columns: [{label, key (data-k of each cell), value(row) -> node|text, num (right aligned)}]. */
export function table(columns, rows, { empty = 'Nothing here.', rowAttrs } = {}) {
  if (!rows.length) return h('p', { class: 'muted empty' }, empty);
  return h('div', { class: 'scroll' }, h('table', null,
    h('thead', null, h('tr', null, columns.map(c => h('th', { class: c.num ? 'n' : null }, c.label)))),
    h('tbody', null, rows.map(r => h('tr', rowAttrs ? rowAttrs(r) : null,
      columns.map(c => h('td', { class: c.num ? 'n' : null, 'data-k': c.key, 'data-label': c.label }, c.value(r))))))));
}

/** Figure cards: [[label, value, key]]. */
export function figures(list) {
  return h('dl', { class: 'figures' }, list.map(([label, value, key]) =>
    h('div', { class: 'figure' }, h('dt', null, label), h('dd', { 'data-k': key }, value))));
}

export function section(title, ...children) {
  return h('section', { class: 'card' }, h('h2', null, title), children);
}

export function errorBox(e) {
  const text = e && e.status === 403 ? 'Not allowed for this token (' + e.message + ').'
    : e && e.status === 401 ? 'Authentication required: enter a token.'
    : 'Could not load: ' + (e && e.message ? e.message : e);
  return h('p', { class: 'error', role: 'alert' }, text);
}

/** Resolves true when the operator confirms the action described by text. */
export function confirmAction(text, okLabel = 'Confirm') {
  const d = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-ok').textContent = okLabel;
  d.returnValue = '';
  d.showModal();
  return new Promise(resolve => d.addEventListener('close', () => resolve(d.returnValue === 'ok'), { once: true }));
}

let toastTimer;
export function toast(text, bad = false) {
  let t = document.getElementById('toast');
  if (!t) {
    t = h('div', { id: 'toast', role: 'status' });
    document.body.append(t);
  }
  t.textContent = text;
  t.className = bad ? 'show bad' : 'show';
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.className = ''), 4000);
}

/** Runs an action behind a button: disabled while it runs, result or error told in a toast. */
export async function act(button, f, okText) {
  button.disabled = true;
  try {
    const r = await f();
    if (okText) toast(typeof okText === 'function' ? okText(r) : okText);
    return r;
  } catch (e) {
    toast(e.message || String(e), true);
    return undefined;
  } finally {
    button.disabled = false;
  }
}

/** The payload as indented JSON text (strings shown as they are). */
export function pretty(v) {
  if (v === undefined) return '';
  if (typeof v === 'string') return v;
  return JSON.stringify(v, null, 2);
}

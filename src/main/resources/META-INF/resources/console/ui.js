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

/**
 * A text field for a UTC time, written as the page writes times ("2026-12-05 08:00:00Z"; ISO-8601 with a T, without
 * seconds or without the Z is read the same way): the browser's own date picker would show local time in the local
 * format beside UTC figures. The placeholder shows the format unless a field has no label of its own to show.
 */
export function timeInput(name, label, iso, placeholder = 'YYYY-MM-DD HH:MM:SSZ') {
  return h('input', { type: 'text', name, 'aria-label': label + ' (UTC)', title: label + ' (UTC), e.g. 2026-12-05 08:00:00Z',
    placeholder, value: iso ? time(iso) : '', autocomplete: 'off', spellcheck: 'false', class: 'time' });
}

/** The ISO instant of a UTC time typed as the page shows them (a date alone is its midnight), or null. */
export function parseTime(text) {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?)?\s*(?:Z|UTC|\+00:?00)?$/i.exec(String(text).trim());
  if (!m) return null;
  const [, y, mo, d, hh = '0', mi = '0', ss = '0', frac] = m;
  if (+hh > 23 || +mi > 59 || +ss > 59) return null;
  const t = new Date(Date.UTC(+y, +mo - 1, +d, +hh, +mi, +ss, frac ? Math.round(parseFloat(frac) * 1000) : 0));
  return t.getUTCFullYear() === +y && t.getUTCMonth() === +mo - 1 && t.getUTCDate() === +d ? t.toISOString() : null;
}

/** The time in a timeInput as ISO, or null with the field marked invalid and told why. */
export function timeOf(input) {
  const iso = parseTime(input.value);
  input.setCustomValidity(iso ? '' : 'A UTC time such as 2026-12-05 08:00:00Z');
  if (!iso) input.reportValidity();
  return iso;
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

/**
 * A table; columns: [{label, key (data-k of each cell), value(row) -> node|text, num (right aligned), head (the
 * row's title when stacked), full (a whole line when stacked), wide (hidden when stacked), title (the header's
 * tooltip)}]. With stack, below
 * 600 px each row becomes a card: its title, then the figures in a grid (no sideways scrolling).
 */
export function table(columns, rows, { empty = 'Nothing here.', rowAttrs, stack = false } = {}) {
  if (!rows.length) return h('p', { class: 'muted empty' }, empty);
  const cls = c => [c.num ? 'n' : '', c.head ? 'head' : '', c.full ? 'full' : '', c.wide ? 'wide' : ''].filter(Boolean).join(' ') || null;
  return h('div', { class: 'scroll' }, h('table', { class: stack ? 'stack' : null },
    h('thead', null, h('tr', null, columns.map(c => h('th', { class: cls(c), scope: 'col', title: c.title }, c.label)))),
    h('tbody', null, rows.map(r => h('tr', rowAttrs ? rowAttrs(r) : null,
      columns.map(c => h('td', { class: cls(c), 'data-k': c.key, 'data-label': c.label }, c.value(r))))))));
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

/** Marks a form dirty on input, so the periodic refresh does not redraw what the operator is typing into. */
export function guard(form) {
  form.addEventListener('input', () => form.setAttribute('data-dirty', ''));
  return form;
}

/**
 * A modal form: fields [{name, label, type (text|number|textarea|checkbox|select), value, options, required,
 * placeholder, help}], resolves to the values (strings, booleans for checkboxes) or null when cancelled.
 * validate(values) may return an error text that keeps the dialog open. The dialog is removed when closed.
 */
export function formDialog({ title, text, fields, okLabel = 'OK', danger = false, validate, id }) {
  const inputs = {};
  const error = h('p', { class: 'error', role: 'alert' });
  const rows = fields.map(f => {
    const attrs = { name: f.name, id: 'f-' + f.name, required: f.required, placeholder: f.placeholder, 'aria-describedby': f.help ? 'h-' + f.name : null };
    let input;
    if (f.type === 'textarea') input = h('textarea', { ...attrs, rows: f.rows || 6, spellcheck: 'false' });
    else if (f.type === 'select') input = h('select', attrs, f.options.map(o => h('option', { value: o }, o)));
    else if (f.type === 'checkbox') input = h('input', { ...attrs, type: 'checkbox', checked: !!f.value });
    else input = h('input', { ...attrs, type: f.type || 'text', step: f.type === 'number' ? '1' : null, min: f.min, autocomplete: 'off' });
    if (f.type !== 'checkbox' && f.value !== undefined && f.value !== null) input.value = String(f.value);
    inputs[f.name] = input;
    return h('div', { class: 'form-row' + (f.type === 'checkbox' ? ' check' : '') },
      h('label', { for: 'f-' + f.name }, f.label), input,
      f.help ? h('small', { class: 'muted', id: 'h-' + f.name }, f.help) : null);
  });
  const ok = h('button', { type: 'submit', value: 'ok', class: danger ? 'danger' : 'primary', 'data-ok': '' }, okLabel);
  const cancel = h('button', { type: 'button', 'data-cancel': '' }, 'Cancel');
  const form = h('form', { method: 'dialog', class: 'form-dialog' }, h('h2', null, title), text ? h('p', null, text) : null,
    rows, error, h('div', { class: 'actions' }, cancel, ok));
  const d = h('dialog', { id: id || null, class: 'form' }, form);
  document.body.append(d);
  const values = () => Object.fromEntries(Object.entries(inputs).map(([k, i]) => [k, i.type === 'checkbox' ? i.checked : i.value]));
  return new Promise(resolve => {
    cancel.addEventListener('click', () => d.close('cancel'));
    form.addEventListener('submit', e => {
      const v = values();
      const problem = validate ? validate(v) : null;
      if (problem) {
        e.preventDefault();
        error.textContent = problem;
        return;
      }
      d.returnValue = 'ok';
    });
    d.addEventListener('close', () => {
      const v = d.returnValue === 'ok' ? values() : null;
      d.remove();
      resolve(v);
    }, { once: true });
    d.showModal();
    (fields.length ? inputs[fields[0].name] : ok).focus();
  });
}

/** Shows content in the one detail drawer (message, dead letter, trace); Escape or Close hides it. */
export function drawer(title, ...content) {
  let d = document.getElementById('drawer');
  if (!d) {
    d = h('aside', { id: 'drawer', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': 'drawer-title', tabindex: '-1' });
    document.body.append(d);
    document.addEventListener('keydown', e => { if (e.key === 'Escape' && d.classList.contains('open')) closeDrawer(); });
  }
  d.replaceChildren(h('div', { class: 'drawer-head' }, h('h2', { id: 'drawer-title' }, title),
    h('button', { type: 'button', class: 'small', 'data-close': '', onclick: closeDrawer, 'aria-label': 'Close' }, 'Close')),
  h('div', { class: 'drawer-body' }, content));
  d.classList.add('open');
  d.focus();
  return d;
}

export function closeDrawer() {
  const d = document.getElementById('drawer');
  if (d) {
    d.classList.remove('open');
    d.replaceChildren();
  }
}

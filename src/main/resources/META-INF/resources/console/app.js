// The console's shell: hash routes (#/queues/orders ...), the token dialog and the role badge. Each page is a
// module whose render function resolves to the page's element; the previous page stays until the next one is
// complete, so nothing moves while data loads. #view gets data-ready="<page>" when a page is drawn.
// Live: every REFRESH seconds (5 by default; ?refresh=N in the address, 0 = paused) the live figures are polled
// and the page is redrawn, unless paused (header button), a dialog is open, the tab is hidden or a form on the
// page holds unsent input.
import { setToken, token, role, whenAuthNeeded } from './api.js';
import { h, errorBox } from './ui.js';
import { poll } from './live.js';

const routes = [
  [/^\/?$/, 'overview', () => import('./pages/overview.js')],
  [/^\/queues\/?$/, 'queues', () => import('./pages/queues.js')],
  [/^\/queues\/([^/]+)\/?$/, 'queue', () => import('./pages/queue.js')],
  [/^\/queues\/([^/]+)\/partitions\/([^/]+)\/?$/, 'partition', () => import('./pages/partition.js')],
  [/^\/queues\/([^/]+)\/messages\/?$/, 'messages', () => import('./pages/messages.js')],
  [/^\/groups\/?$/, 'groups', () => import('./pages/groups.js')],
  [/^\/groups\/([^/]+)\/?$/, 'group', () => import('./pages/group.js')],
  [/^\/dlq\/?$/, 'dlq', () => import('./pages/dlq.js')],
  [/^\/retention\/?$/, 'retention', () => import('./pages/retention.js')],
];

const view = document.getElementById('view');
let generation = 0;

function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/';
  const [path, query = ''] = raw.split('?');
  return { path, query: Object.fromEntries(new URLSearchParams(query)) };
}

export function go(path, query) {
  const q = new URLSearchParams(Object.entries(query || {}).filter(([, v]) => v !== '' && v != null)).toString();
  location.hash = '#' + path + (q ? '?' + q : '');
}

export async function render() {
  const mine = ++generation;
  const { path, query } = parseHash();
  const found = routes.find(([re]) => re.test(path));
  const name = found ? found[1] : 'missing';
  for (const a of document.querySelectorAll('#nav a')) {
    const section = { queue: 'queues', partition: 'queues', messages: 'queues', group: 'groups' }[name] || name;
    a.classList.toggle('active', a.dataset.nav === section);
    if (a.dataset.nav === section) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  view.setAttribute('aria-busy', 'true');
  let page;
  try {
    if (!found) {
      page = h('section', { class: 'card' }, h('h1', null, 'Not found'), h('p', null, 'No console page at ' + path + '.'));
    } else {
      const params = path.match(found[0]).slice(1).map(decodeURIComponent);
      const mod = await found[2]();
      page = await mod.render(params, query, { go, refresh: render });
    }
  } catch (e) {
    page = h('section', { class: 'card' }, errorBox(e));
  }
  if (mine !== generation) return;
  view.replaceChildren(page);
  view.removeAttribute('aria-busy');
  view.dataset.ready = name;
  view.dataset.seq = String(mine);
  if (!view.dataset.drawnMs) view.dataset.drawnMs = String(Math.round(performance.now()));
  document.title = (page.dataset?.title ? page.dataset.title + ' · ' : '') + 'Queen console';
}

function showRole() {
  const r = role();
  const badge = document.getElementById('role');
  badge.textContent = token() ? r : 'no token';
  badge.dataset.role = r;
  document.body.dataset.role = r;
}

const dialog = document.getElementById('token-dialog');
document.getElementById('token-button').addEventListener('click', () => {
  document.getElementById('token-input').value = token();
  dialog.showModal();
});
dialog.addEventListener('close', () => {
  if (dialog.returnValue === 'save') setToken(document.getElementById('token-input').value);
  else if (dialog.returnValue === 'clear') setToken('');
  else return;
  showRole();
  render();
});
whenAuthNeeded(() => {
  if (!dialog.open) {
    document.getElementById('token-input').value = token();
    dialog.showModal();
  }
});

const PAUSED = 'queen.paused';
const param = new URLSearchParams(location.search).get('refresh');
const every = param !== null && /^\d+$/.test(param) ? Number(param) : 5;
const liveButton = document.getElementById('live-toggle');
let paused = every === 0 || sessionStorage.getItem(PAUSED) === '1';

function showLive() {
  liveButton.textContent = paused ? 'Paused' : 'Live ' + every + ' s';
  liveButton.setAttribute('aria-pressed', String(!paused));
  liveButton.classList.toggle('on', !paused);
  document.body.dataset.live = paused ? 'paused' : 'on';
}
liveButton.addEventListener('click', () => {
  if (every === 0) return;
  paused = !paused;
  sessionStorage.setItem(PAUSED, paused ? '1' : '0');
  showLive();
});

function held() {
  return paused || document.hidden || document.querySelector('dialog[open]')
    || view.querySelector('[data-dirty]') || view.getAttribute('aria-busy') === 'true';
}

async function tick() {
  if (held()) return;
  try {
    await poll();
  } catch {
    // the page's own requests show the error
  }
  if (!held()) render();
}
if (every > 0) setInterval(tick, every * 1000);

window.addEventListener('hashchange', render);
showRole();
showLive();
render();

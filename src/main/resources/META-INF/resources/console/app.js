// The console's shell: hash routes (#/queues/orders ...), the token dialog and the role badge. Each page is a
// module whose render function resolves to the page's element; the previous page stays until the next one is
// complete, so nothing moves while data loads. #view gets data-ready="<page>" when a page is drawn.
import { setToken, token, role, whenAuthNeeded } from './api.js';
import { h, errorBox } from './ui.js';

const routes = [
  [/^\/?$/, 'overview', () => import('./pages/overview.js')],
  [/^\/queues\/?$/, 'queues', () => import('./pages/queues.js')],
  [/^\/queues\/([^/]+)\/?$/, 'queue', () => import('./pages/queue.js')],
  [/^\/queues\/([^/]+)\/partitions\/([^/]+)\/?$/, 'partition', () => import('./pages/partition.js')],
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
    const section = { queue: 'queues', partition: 'queues', group: 'groups' }[name] || name;
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

window.addEventListener('hashchange', render);
showRole();
render();

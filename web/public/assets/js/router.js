// Client-side routing on real paths (/forks/{name}/files/{path}, /patterns/{id}, …): the daemon
// answers index.html for every such path, so a reload or a shared link lands on the same page.
// A page is a function (main, params) -> optional cleanup, called again on language change.
import { clear, h, notice } from './dom.js';
import { t } from './i18n.js';

const routes = [];
let current = null;  // {cleanup, path}

// pattern: '/forks/:name/files/*path'
export function addRoute(pattern, nav, page) {
  const names = [];
  const source = pattern
    .split('/')
    .map((part) => {
      if (part.startsWith(':')) {
        names.push(part.slice(1));
        return '([^/]+)';
      }
      if (part.startsWith('*')) {
        names.push(part.slice(1));
        return '(.+)';
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  routes.push({ regex: new RegExp(`^${source || '/'}/?$`), names, nav, page });
}

function match(pathname) {
  for (const route of routes) {
    const m = route.regex.exec(pathname);
    if (!m) continue;
    const params = {};
    route.names.forEach((name, i) => {
      params[name] = decodeURIComponent(m[i + 1]);
    });
    return { route, params };
  }
  return null;
}

export function navigate(href, { replace = false } = {}) {
  const url = new URL(href, location.href);
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  render();
}

export async function render() {
  const main = document.getElementById('main');
  if (current && current.cleanup) current.cleanup();
  current = null;
  const found = match(location.pathname);
  for (const link of document.querySelectorAll('nav a[data-nav]')) {
    if (found && link.dataset.nav === found.route.nav) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  clear(main);
  main.setAttribute('aria-busy', 'true');
  const state = { cleanup: null };
  current = state;
  if (!found) {
    main.append(h('h1', {}, t('notfound.title')), notice('error', t('notfound.text', { path: location.pathname })));
    main.setAttribute('aria-busy', 'false');
    return;
  }
  try {
    const cleanup = await found.route.page(main, found.params, new URLSearchParams(location.search));
    if (current === state) state.cleanup = cleanup || null;
    else if (cleanup) cleanup();  // the user moved on while the page loaded
  } catch (err) {
    if (current !== state) return;
    clear(main);
    main.append(h('h1', {}, t('error.title')), notice('error', err.message || String(err)));
  }
  if (current !== state) return;
  main.setAttribute('aria-busy', 'false');
  if (location.hash) {
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target) {
      target.scrollIntoView({ block: 'start' });
      target.focus({ preventScroll: true });
    }
  }
}

// Same-origin links to dashboard pages are followed without a reload; API links and downloads are not.
function onClick(event) {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return;
  const a = event.target.closest('a[href]');
  if (!a || a.target || a.hasAttribute('download')) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
  if (url.pathname === location.pathname && url.search === location.search && url.hash) return;  // in-page
  event.preventDefault();
  navigate(url.href);
}

export function startRouter() {
  document.addEventListener('click', onClick);
  window.addEventListener('popstate', () => render());
  return render();
}

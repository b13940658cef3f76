// Integration (docs/integration.md): the integrators that ship the forks as git submodules (PaddleFleet).
// /integration shows the one integrator (or lists several); /integration/{name} one of them: its head
// and when it was read, a Sync button, a table of its libraries × pin state and the six integration
// steps with the loader's guard and scope beside the needed scope, and the text to paste for each
// missing step (shown, never applied). The table fits 1280 px: the path and pin sit under the
// library's name, and the steps are narrow ✓/✗ columns.
import { ApiError, getJson, postJson } from '../api.js';
import { formatAgo, formatNumber, formatTime, forkHref, h, notice, shortSha } from '../dom.js';
import { t } from '../i18n.js';
import { navigate } from '../router.js';
import { createTable } from '../table.js';
import { requireToken, setToken } from '../token.js';
import { errorNotice, optionalJson, pageHeader, unavailableNotice } from './common.js';

const POLL_MS = 1500;
export const STEPS = ['submodule', 'get_libs', 'submodule_check', 'gitignore', 'loader', 'import_test'];
const STATES = ['current', 'behind', 'off-branch', 'orphaned', 'unmatched', 'unreachable', 'not-integrated'];
// Worst first when sorted by state.
const STATE_RANK = { orphaned: 0, unreachable: 1, unmatched: 2, behind: 3, 'off-branch': 4, 'not-integrated': 5, current: 6 };

export function integrationHref(name) {
  return `/integration/${encodeURIComponent(name)}`;
}

function pasteId(lib) {
  return `paste-${lib.path.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

function pinBadge(state) {
  return h('span', { class: `badge pin-state pin-${state}`, 'data-state': state, title: t(`pin.help.${state}`, {}, '') },
    state === 'orphaned' ? '⚠ ' : null, t(`pin.${state}`, {}, state));
}

// Packages of the needed scope the loader's scope lacks (only when there is a loader to fix).
function lacks(lib) {
  if (!lib.loader || lib.loader.guard === 'none') return [];
  const scope = new Set(lib.loader.scope || []);
  return (lib.needed_scope || []).filter((p) => !scope.has(p));
}

function libraryCell(lib) {
  return h('div', { class: 'lib-cell' },
    h('strong', { class: 'lib-name' }, lib.name),
    h('div', { class: 'lib-path muted' }, h('code', {}, lib.path)),
    lib.pinned_sha ? h('div', { class: 'lib-pin muted' }, `${t('icol.pin')} `, h('code', { title: lib.pinned_sha }, shortSha(lib.pinned_sha))) : null);
}

function forkCell(lib) {
  if (!lib.fork) return h('span', { class: 'muted', title: lib.url || '' }, '—');
  return h('div', {},
    h('a', { href: forkHref(lib.fork), class: 'fork-link' }, lib.fork),
    lib.branch ? h('div', { class: 'muted lib-branch' }, h('code', {}, lib.branch)) : null);
}

function behindCell(lib) {
  const n = (v) => (v === null || v === undefined ? '—' : formatNumber(v));
  return h('span', { class: 'behind-upstream' }, `${n(lib.behind)} / ${n(lib.upstream_behind)}`);
}

function stepCell(lib, step) {
  const ok = Boolean(lib.steps?.[step]);
  const label = t(ok ? 'step.present' : 'step.absent', { step: t(`step.${step}`) });
  return h('span', { class: `step ${ok ? 'step-ok' : 'step-missing'}`, 'data-step': step, 'data-ok': String(ok), title: label, role: 'img', 'aria-label': label }, ok ? '✓' : '✗');
}

function loaderCell(lib) {
  const guard = lib.loader?.guard || 'none';
  return h('div', { class: 'loader-cell' },
    h('span', { class: `badge guard guard-${guard}`, 'data-guard': guard }, t(`guard.${guard}`, {}, guard)),
    (lib.loader?.scope || []).length ? h('div', { class: 'scope' }, lib.loader.scope.map((p) => h('code', { class: 'pkg' }, p))) : null);
}

function neededCell(lib) {
  const needed = lib.needed_scope || [];
  if (!needed.length) return h('span', { class: 'muted', title: t('scope.unknown') }, '—');
  const lacking = new Set(lacks(lib));
  return h('div', { class: 'scope' }, needed.map((p) => (lacking.has(p)
    ? h('code', { class: 'pkg pkg-lacks', 'data-lacks': p, title: t('scope.lacks', { pkg: p }) }, `✗ ${p}`)
    : h('code', { class: 'pkg' }, p))));
}

function missingCell(lib) {
  const n = (lib.missing || []).length;
  if (!n) return '—';
  return h('a', { href: `#${pasteId(lib)}`, class: 'missing-link', 'aria-label': t('missing.link_label', { lib: lib.name }) }, t('missing.count', { n }));
}

function libraryColumns() {
  return [
    { key: 'library', label: () => t('icol.library'), value: (l) => l.name.toLowerCase(), class: 'lib', render: libraryCell },
    { key: 'fork', label: () => t('icol.fork'), value: (l) => l.fork, render: forkCell },
    { key: 'state', label: () => t('icol.state'), value: (l) => STATE_RANK[l.state] ?? 9, render: (l) => pinBadge(l.state) },
    { key: 'behind', label: () => t('icol.behind'), numeric: true, value: (l) => l.behind ?? null, render: behindCell },
    // Not sortable: the header is the step's name with its meaning as a tooltip.
    ...STEPS.map((s) => ({ key: `step-${s}`, label: () => h('span', { title: t(`step.help.${s}`) }, t(`step.${s}`)), class: 'step-col', render: (l) => stepCell(l, s) })),
    { key: 'loader', label: () => t('icol.loader'), value: (l) => l.loader?.guard, render: loaderCell },
    { key: 'needed', label: () => t('icol.needed'), value: (l) => lacks(l).length, render: neededCell },
    { key: 'missing', label: () => t('icol.missing'), numeric: true, value: (l) => (l.missing || []).length, render: missingCell },
  ];
}

async function copyText(pre, text, status) {
  try {
    await navigator.clipboard.writeText(text);
    status.replaceChildren(notice('info', t('paste.copied')));
  } catch {
    const range = document.createRange();
    range.selectNodeContents(pre);
    const selection = getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    status.replaceChildren(notice('unavailable', t('paste.copy_failed')));
  }
}

// Each missing step's text under its file's name (the text's first line, "# <file>…").
function pasteBlock(lib, text, status) {
  const first = text.split('\n', 1)[0];
  const file = first.startsWith('# ') ? first.slice(2) : lib.name;
  const pre = h('pre', { class: 'paste', tabindex: '0' }, text);
  return h('figure', { class: 'paste-block' },
    h('figcaption', {}, h('code', {}, file),
      h('button', { type: 'button', class: 'copy-button', 'aria-label': t('paste.copy_label', { file, lib: lib.name }), onclick: () => copyText(pre, text, status) }, t('paste.copy'))),
    pre);
}

function pasteSection(libraries) {
  const status = h('div', { class: 'status-line', role: 'status' });
  const withMissing = libraries.filter((l) => (l.missing || []).length);
  return h('section', { id: 'paste', class: 'paste-section' },
    h('h2', {}, t('paste.title')),
    h('p', { class: 'muted' }, t('paste.help')),
    status,
    withMissing.length
      ? withMissing.map((lib) => h('article', { id: pasteId(lib), class: 'paste-lib', tabindex: '-1', 'data-library': lib.name },
        h('h3', {}, lib.name, ' ', pinBadge(lib.state)),
        lib.missing.map((text) => pasteBlock(lib, text, status))))
      : notice('empty', t('paste.none')));
}

function statesLegend() {
  return h('details', { class: 'states-legend' },
    h('summary', {}, t('integration.states')),
    h('dl', { class: 'meta' }, STATES.map((s) => [h('dt', {}, pinBadge(s)), h('dd', {}, t(`pin.help.${s}`))])));
}

function metaList(report, summary) {
  const row = (key, value) => [h('dt', {}, t(key)), h('dd', {}, value)];
  return h('dl', { class: 'meta', id: 'integrator-meta' },
    row('integration.url', h('code', {}, report.url)),
    row('integration.branch', report.branch ? h('code', {}, report.branch) : h('span', { class: 'muted' }, t('integration.default_branch'))),
    row('integration.head', report.head ? h('code', { id: 'integrator-head', title: report.head }, shortSha(report.head)) : '—'),
    row('integration.read_at', report.read_at ? h('time', { id: 'integrator-read-at', datetime: report.read_at, title: report.read_at }, `${formatTime(report.read_at)} (${formatAgo(report.read_at)})`) : '—'),
    summary ? row('integration.counts', t('integration.counts_value', summary)) : null);
}

// Sync: POST …/sync (a write), then the task is followed until it ends and the page is read again.
function syncControl(name, status) {
  let timer = null;
  let stopped = false;
  async function follow(task) {
    timer = null;
    if (stopped) return;
    const done = await getJson(`/api/v1/tasks/${encodeURIComponent(task)}`).catch(() => null);
    if (stopped) return;
    if (done && done.state === 'failed') {
      button.disabled = false;
      status.replaceChildren(notice('error', t('integration.sync_failed', { name, message: done.error || '' })));
    } else if (done && (done.state === 'succeeded' || done.state === 'cancelled')) {
      navigate(location.href, { replace: true });
    } else {
      timer = setTimeout(() => follow(task), POLL_MS);
    }
  }
  async function onSync() {
    const token = await requireToken(t('token.help_integration_sync'));
    if (!token) return;
    try {
      const { task } = await postJson(`/api/v1/integrators/${encodeURIComponent(name)}/sync`);
      button.disabled = true;
      status.replaceChildren(notice('info', t('integration.sync_queued', { name, task })));
      timer = setTimeout(() => follow(task), POLL_MS);
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) setToken('');
      status.replaceChildren(errorNotice(err));
    }
  }
  const button = h('button', { type: 'button', id: 'integrator-sync', class: 'sync-button', 'aria-label': t('integration.sync_label', { name }), onclick: onSync }, t('integration.sync'));
  return { button, stop: () => { stopped = true; if (timer) clearTimeout(timer); } };
}

async function integratorDetail(main, name, summaries) {
  const report = await getJson(`/api/v1/integrators/${encodeURIComponent(name)}`);
  const status = h('div', { class: 'status-line', id: 'integration-status', role: 'status' });
  const sync = syncControl(name, status);
  main.append(pageHeader(t('integration.title_of', { name }), sync.button));
  if (summaries.length > 1) main.append(h('p', { class: 'crumbs' }, h('a', { href: '/integration' }, t('integration.all'))));
  main.append(h('p', { class: 'muted' }, t('integration.intro')), status,
    metaList(report, summaries.find((s) => s.name === name)));
  if (!report.read_at) main.append(notice('info', t('integration.never_read')));
  const libraries = report.libraries || [];
  const table = createTable({
    id: 'integration-table',
    caption: () => t('integration.caption', { n: libraries.length, name }),
    columns: libraryColumns(),
    rows: libraries,
    pageSize: 50,
    sort: { key: 'state', dir: 'asc' },
    empty: () => t('integration.no_libraries'),
  });
  main.append(table.el, statesLegend());
  if (libraries.length) main.append(pasteSection(libraries));
  return sync.stop;
}

function integratorsTable(integrators) {
  return createTable({
    id: 'integrators-table',
    caption: () => t('integration.list_caption', { n: integrators.length }),
    columns: [
      { key: 'name', label: () => t('icol.integrator'), value: (i) => i.name, render: (i) => h('a', { href: integrationHref(i.name) }, i.name) },
      { key: 'url', label: () => t('integration.url'), value: (i) => i.url, class: 'path', render: (i) => i.url },
      { key: 'branch', label: () => t('integration.branch'), value: (i) => i.branch, render: (i) => (i.branch ? h('code', {}, i.branch) : '—') },
      { key: 'head', label: () => t('integration.head'), render: (i) => (i.head ? h('code', { title: i.head }, shortSha(i.head)) : '—') },
      { key: 'read', label: () => t('integration.read_at'), value: (i) => i.read_at, render: (i) => (i.read_at ? formatAgo(i.read_at) : '—') },
      { key: 'libraries', label: () => t('integration.counts'), numeric: true, value: (i) => i.libraries, render: (i) => formatNumber(i.libraries) },
      { key: 'orphaned', label: () => t('icol.orphaned'), numeric: true, value: (i) => i.orphaned, render: (i) => (i.orphaned ? h('span', { class: 'badge pin-state pin-orphaned' }, `⚠ ${i.orphaned}`) : '0') },
      { key: 'behind', label: () => t('icol.pins_behind'), numeric: true, value: (i) => i.behind, render: (i) => formatNumber(i.behind) },
    ],
    rows: integrators,
    sort: { key: 'name', dir: 'asc' },
    rowHref: (i) => integrationHref(i.name),
  });
}

export async function integrationPage(main, params) {
  const list = await optionalJson('/api/v1/integrators');
  if (list.missing) {
    main.append(pageHeader(t('integration.title')), unavailableNotice('feature.integration'));
    return null;
  }
  if (list.error) throw list.error;
  const integrators = list.data.integrators || [];
  if (params.name) return integratorDetail(main, params.name, integrators);
  if (integrators.length === 1) return integratorDetail(main, integrators[0].name, integrators);
  main.append(pageHeader(t('integration.title')), h('p', { class: 'muted' }, t('integration.intro')));
  main.append(integrators.length ? integratorsTable(integrators).el : notice('empty', t('integration.none')));
  return null;
}

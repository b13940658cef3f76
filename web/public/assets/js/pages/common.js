// Pieces several pages share: optional endpoints (drift, jobs, alerts may not exist on this server),
// the "not available" notice, select filters, state badges and a fork's sync health.
import { ApiError, getJson } from '../api.js';
import { formatAgo, h, notice } from '../dom.js';
import { t } from '../i18n.js';

// GET that answers {missing: true} when the server has no such endpoint, {error} on other failures.
export async function optionalJson(path) {
  try {
    return { data: await getJson(path) };
  } catch (err) {
    if (err instanceof ApiError && err.endpointMissing) return { missing: true };
    return { error: err };
  }
}

export function unavailableNotice(feature) {
  return notice('unavailable', t('unavailable', { feature: t(feature) }));
}

export function errorNotice(err) {
  return notice('error', t('error.request', { message: err.message || String(err) }));
}

// <label>+<select>; options: [[value, text]]
export function selectFilter({ id, label, options, value, onchange }) {
  return h(
    'span',
    { class: 'filter' },
    h('label', { for: id }, label),
    h(
      'select',
      { id, onchange: (e) => onchange(e.target.value) },
      options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)),
    ),
  );
}

export function stateBadge(state) {
  return h('span', { class: `badge state state-${state}`, 'data-state': state }, t(`state.${state}`, {}, state));
}

export function pageHeader(title, ...extra) {
  document.title = `${title} · forkscope`;
  return h('div', { class: 'page-header' }, h('h1', {}, title), ...extra);
}

// Replaces a URL query parameter without a navigation (filters survive a reload).
export function setQueryParam(name, value) {
  const url = new URL(location.href);
  if (value) url.searchParams.set(name, value);
  else url.searchParams.delete(name);
  history.replaceState(null, '', url);
}

// "at::foo → paddle::experimental::foo"; a side the marker and the hunk do not name says so in words.
export function gapText(g) {
  return `${g.api || t('gap.api_unnamed')} → ${g.bridge || t('gap.bridge_unnamed')}`;
}

export function isAnalysisMissing(err) {
  return err instanceof ApiError && err.status === 404 && !err.endpointMissing;
}

// A fork whose last sync failed says so wherever it is shown: when, how often in a row, and why. In a
// table the error is cut to one line, its whole text in the tooltip; full: the whole text (its own page).
export function syncFailure(fork, { full = false } = {}) {
  const s = fork.sync;
  if (!s?.last_error) return null;
  return h('div', { class: full ? 'sync-error full' : 'sync-error', title: t('sync.error_title', { error: s.last_error }) },
    h('strong', {}, t('sync.failed', { ago: formatAgo(s.last_error_at) })), ` · ${t('sync.failures', { n: s.failures_in_a_row })}`,
    h('div', { class: 'sync-error-message', title: s.last_error }, s.last_error));
}

// The fork's last sync outcome in a line, the failure (with its whole error) when there is one.
export function syncSummary(fork) {
  const s = fork.sync;
  if (s?.last_error) return syncFailure(fork, { full: true });
  if (!s?.last_sync_at) return h('span', { class: 'muted' }, t('sync.never'));
  return t('sync.ok', { ago: formatAgo(s.last_success_at || s.last_sync_at) });
}

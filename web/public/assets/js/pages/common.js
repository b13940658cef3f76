// Pieces several pages share: optional endpoints (drift, jobs, alerts may not exist on this server),
// the "not available" notice, select filters and state badges.
import { ApiError, getJson } from '../api.js';
import { h, notice } from '../dom.js';
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

export function isAnalysisMissing(err) {
  return err instanceof ApiError && err.status === 404 && !err.endpointMissing;
}

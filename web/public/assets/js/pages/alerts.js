// Alerts: the list by state, acknowledging one (a write token, asked for once per tab) and each
// alert's delivery log.
import { ApiError, getJson, postJson } from '../api.js';
import { forkHref, formatTime, h, notice } from '../dom.js';
import { t } from '../i18n.js';
import { messageOf } from '../messages.js';
import { render } from '../router.js';
import { createTable } from '../table.js';
import { askToken, getToken, setToken } from '../token.js';
import { errorNotice, optionalJson, pageHeader, selectFilter, setQueryParam, stateBadge, unavailableNotice } from './common.js';

const STATES = ['open', 'acked', 'resolved'];

function deliveriesTable(deliveries) {
  if (!deliveries.length) return h('p', { class: 'muted' }, t('alerts.no_deliveries'));
  return h('table', { class: 'data compact deliveries' },
    h('caption', {}, t('alerts.deliveries')),
    h('thead', {}, h('tr', {}, ['col.target', 'col.kind', 'col.state', 'col.attempts', 'col.last_status', 'col.when'].map((k) => h('th', { scope: 'col' }, t(k))))),
    h('tbody', {}, deliveries.map((d) => [
      h('tr', {},
        h('td', {}, d.target), h('td', {}, d.kind), h('td', {}, stateBadge(d.state)), h('td', { class: 'num' }, d.attempts),
        h('td', {}, d.last_status ?? '—', d.last_error ? h('span', { class: 'muted' }, ` ${d.last_error}`) : ''),
        h('td', {}, d.delivered_at ? formatTime(d.delivered_at) : d.next_attempt_at ? t('alerts.next_attempt', { when: formatTime(d.next_attempt_at) }) : '—')),
      (d.log || []).length ? h('tr', { class: 'log-row' }, h('td', { colspan: 6 }, h('ol', { class: 'delivery-log' }, d.log.map((e) => h('li', {}, `${formatTime(e.at)} · ${e.status ?? '—'}${e.error ? ` · ${e.error}` : ''}`))))) : null,
    ])));
}

export async function alertsPage(main, _params, params) {
  main.append(pageHeader(t('alerts.title')));
  const state = params.get('state') ?? 'open';
  const result = await optionalJson(`/api/v1/alerts${state ? `?state=${encodeURIComponent(state)}` : ''}`);
  if (result.missing) {
    main.append(unavailableNotice('feature.alerts'));
    return;
  }
  if (result.error) throw result.error;
  const status = h('div', { class: 'status-line', role: 'status' });
  const detail = h('section', { class: 'alert-detail', 'aria-live': 'polite' });
  main.append(h('div', { class: 'controls' },
    selectFilter({ id: 'alerts-state', label: t('filter.state'), options: [['', t('filter.all_states')], ...STATES.map((s) => [s, t(`state.${s}`)])], value: state, onchange: (v) => { setQueryParam('state', v); render(); } })),
    status);

  async function ack(alert, button) {
    let token = getToken() || (await askToken(t('token.help_ack')));
    if (!token) return;
    button.disabled = true;
    try {
      const updated = await postJson(`/api/v1/alerts/${encodeURIComponent(alert.id)}/ack`, {}, { token });
      Object.assign(alert, updated, { version: (alert.version || 0) + 1 });
      status.replaceChildren(notice('info', t('alerts.acked', { id: alert.id, by: alert.acked_by || '' })));
      table.refresh();
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) setToken('');
      status.replaceChildren(errorNotice(err));
      button.disabled = false;
    }
  }

  async function showDeliveries(alert) {
    detail.replaceChildren(h('h2', {}, t('alerts.delivery_log', { id: alert.id })), h('p', { class: 'muted' }, t('loading')));
    try {
      const doc = await getJson(`/api/v1/alerts/${encodeURIComponent(alert.id)}/deliveries`);
      detail.replaceChildren(h('h2', { id: 'delivery-title' }, t('alerts.delivery_log', { id: alert.id })), h('p', {}, messageOf(alert)), deliveriesTable(doc.deliveries));
    } catch (err) {
      detail.replaceChildren(h('h2', {}, t('alerts.delivery_log', { id: alert.id })), errorNotice(err));
    }
  }

  const table = createTable({
    id: 'alerts-table',
    caption: () => t('alerts.caption'),
    columns: [
      { key: 'severity', label: () => t('col.severity'), value: (a) => a.severity, render: (a) => h('span', { class: `badge severity-${a.severity}` }, t(`severity.${a.severity}`, {}, a.severity)) },
      { key: 'fork', label: () => t('col.fork'), value: (a) => a.fork, render: (a) => h('a', { href: forkHref(a.fork) }, a.fork) },
      { key: 'rule', label: () => t('col.rule'), value: (a) => a.rule, render: (a) => h('code', {}, a.rule) },
      { key: 'state', label: () => t('col.state'), value: (a) => a.state, render: (a) => stateBadge(a.state) },
      { key: 'message', label: () => t('col.message'), render: (a) => [h('span', { class: 'alert-message' }, messageOf(a)), a.value != null ? h('div', { class: 'muted alert-figures' }, t(`alert.figures.${a.rule}`, { value: a.value, threshold: a.threshold, count: a.value }, `${a.value} / ${a.threshold}`)) : ''] },
      { key: 'opened', label: () => t('col.opened'), value: (a) => String(a.opened_at), render: (a) => formatTime(a.opened_at) },
      { key: 'acked', label: () => t('col.acked_by'), value: (a) => a.acked_by || null, render: (a) => (a.acked_by ? `${a.acked_by} · ${formatTime(a.acked_at)}` : '—') },
      {
        key: 'actions',
        label: () => t('col.actions'),
        render: (a) => [
          a.state === 'open' ? h('button', { type: 'button', class: 'ack-button', 'aria-label': t('alerts.ack_label', { id: a.id, fork: a.fork }), onclick: (e) => ack(a, e.currentTarget) }, t('alerts.ack')) : null,
          h('button', { type: 'button', class: 'deliveries-button', 'aria-label': t('alerts.deliveries_label', { id: a.id }), onclick: () => showDeliveries(a) }, t('alerts.deliveries')),
        ],
      },
    ],
    rows: result.data.alerts,
    sort: { key: 'opened', dir: 'desc' },
    rowVersion: (a) => a.version || 0,
    empty: () => t('alerts.none'),
  });
  main.append(table.el, detail);
}

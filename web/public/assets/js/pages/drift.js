// Drift: how far each fork is behind upstream and how old its merge-base is — now for every fork and
// over time for one — with the upstream commits that touch patched files and the predicted conflicts.
import { getJson } from '../api.js';
import { fileHref, forkHref, formatDays, formatTime, h, notice, shortSha } from '../dom.js';
import { t } from '../i18n.js';
import { layerBadge } from '../layers.js';
import { createTable } from '../table.js';
import { errorNotice, optionalJson, pageHeader, selectFilter, setQueryParam, unavailableNotice } from './common.js';
import { loadVendor } from '../vendor.js';

const HISTORY = 100;

function historyChart(canvas, history) {
  if (!window.Chart) return null;
  const points = [...history].sort((a, b) => String(a.computed_at).localeCompare(String(b.computed_at)));
  return new window.Chart(canvas, {
    type: 'line',
    data: {
      labels: points.map((p) => formatTime(p.computed_at)),
      datasets: [
        // Points are drawn large enough to see when there is only one (a line needs two).
        { label: t('drift.behind'), data: points.map((p) => p.behind), borderColor: '#c0392b', backgroundColor: '#c0392b', yAxisID: 'y', pointRadius: points.length === 1 ? 6 : 3 },
        { label: t('drift.age'), data: points.map((p) => p.merge_base_age_days), borderColor: '#2e86c1', backgroundColor: '#2e86c1', yAxisID: 'y1', pointRadius: points.length === 1 ? 6 : 3 },
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales: {
        // Commits and whole days: no half steps on either axis.
        y: { beginAtZero: true, position: 'left', ticks: { precision: 0 }, suggestedMax: 1, title: { display: true, text: t('drift.behind') } },
        y1: { beginAtZero: true, position: 'right', ticks: { precision: 0 }, suggestedMax: 1, grid: { drawOnChartArea: false }, title: { display: true, text: t('drift.age') } },
      },
    },
  });
}

function commitsList(report, fork) {
  const commits = report.upstream_commits_touching_patched || [];
  if (!commits.length) return h('p', { class: 'muted' }, t('drift.no_commits'));
  return h('ul', { class: 'commits', id: 'drift-commits' }, commits.map((c) =>
    h('li', {},
      h('code', { title: c.sha }, shortSha(c.sha)), ' ', h('strong', {}, c.subject), ' ', h('span', { class: 'muted' }, formatTime(c.date)),
      h('div', { class: 'commit-paths' }, (c.paths || []).map((p, i) => h('span', { class: 'commit-path' }, h('a', { href: fileHref(fork, p) }, p), c.layers?.[i] ? layerBadge(c.layers[i]) : null))))));
}

function conflictsList(report, fork) {
  const conflicts = report.predicted_conflicts || [];
  if (!conflicts.length) return h('p', { class: 'muted' }, t('drift.no_conflicts'));
  return h('ul', { class: 'conflicts', id: 'drift-conflicts' }, conflicts.map((c) => h('li', {}, h('a', { href: fileHref(fork, c.path) }, c.path), ' ', layerBadge(c.layer))));
}

function redundantList(report, fork) {
  const hunks = report.redundant_hunks || [];
  if (!hunks.length) return h('p', { class: 'muted' }, t('drift.no_redundant'));
  return h('ul', {}, hunks.map((r) => h('li', {}, h('a', { href: fileHref(fork, r.path) }, `${r.path}:${r.new_start}`), ` (${t('drift.upstream_line', { n: r.old_start })})`)));
}

export async function driftPage(main, _params, params) {
  main.append(pageHeader(t('drift.title')));
  const [all] = await Promise.all([optionalJson('/api/v1/drift'), loadVendor('chart')]);
  if (all.missing) {
    main.append(unavailableNotice('feature.drift'));
    return null;
  }
  if (all.error) throw all.error;
  const reports = all.data.drift;
  if (!reports.length) {
    main.append(notice('empty', t('drift.none')));
    return null;
  }
  const table = createTable({
    id: 'drift-table',
    caption: () => t('drift.caption'),
    columns: [
      { key: 'fork', label: () => t('col.fork'), value: (d) => d.fork, render: (d) => h('a', { href: forkHref(d.fork) }, d.fork) },
      { key: 'risk', label: () => t('col.risk'), value: (d) => (typeof d.risk === 'number' ? d.risk : String(d.risk)), render: (d) => h('span', { class: `risk risk-${d.risk}` }, typeof d.risk === 'number' ? d.risk.toFixed(2) : t(`risk.${d.risk}`, {}, String(d.risk))) },
      { key: 'behind', label: () => t('drift.behind'), numeric: true, value: (d) => d.behind, render: (d) => d.behind },
      { key: 'ahead', label: () => t('drift.ahead'), numeric: true, value: (d) => d.ahead, render: (d) => d.ahead },
      { key: 'age', label: () => t('drift.age'), numeric: true, value: (d) => d.merge_base_age_days, render: (d) => formatDays(d.merge_base_age_days) },
      { key: 'commits', label: () => t('drift.commits'), numeric: true, value: (d) => d.upstream_commits_touching_patched?.length ?? 0, render: (d) => d.upstream_commits_touching_patched?.length ?? 0 },
      { key: 'conflicts', label: () => t('drift.conflicts'), numeric: true, value: (d) => d.predicted_conflicts?.length ?? 0, render: (d) => d.predicted_conflicts?.length ?? 0 },
      { key: 'computed', label: () => t('drift.computed'), value: (d) => d.computed_at, render: (d) => formatTime(d.computed_at) },
    ],
    rows: reports,
    sort: { key: 'risk', dir: 'desc' },
    rowHref: (d) => `/drift?fork=${encodeURIComponent(d.fork)}`,
  });
  main.append(table.el, h('p', { class: 'muted', id: 'risk-explained' }, t('risk.explain')));

  let selected = params.get('fork') || reports[0].fork;
  const detail = h('section', { class: 'drift-detail', 'aria-live': 'polite' });
  main.append(
    h('div', { class: 'controls' }, selectFilter({ id: 'drift-fork', label: t('drift.fork'), options: reports.map((d) => [d.fork, d.fork]), value: selected, onchange: (v) => { selected = v; setQueryParam('fork', v); show(); } })),
    detail);
  let chart = null;
  async function show() {
    chart?.destroy();
    chart = null;
    detail.replaceChildren(h('p', { class: 'muted' }, t('loading')));
    let report;
    try {
      report = await getJson(`/api/v1/forks/${encodeURIComponent(selected)}/drift?history=${HISTORY}`);
    } catch (err) {
      detail.replaceChildren(errorNotice(err));
      return;
    }
    const canvas = h('canvas', { id: 'drift-chart', role: 'img', 'aria-label': t('drift.chart_label', { fork: selected }) });
    detail.replaceChildren(
      h('h2', {}, t('drift.history', { fork: selected })),
      h('div', { class: 'chart-box wide' }, canvas),
      h('p', {}, t('drift.now', { behind: report.behind, ahead: report.ahead, age: formatDays(report.merge_base_age_days), base: shortSha(report.merge_base) })),
      h('h2', {}, t('drift.commits_title')), commitsList(report, selected),
      h('h2', {}, t('drift.conflicts_title')), conflictsList(report, selected),
      h('h2', {}, t('drift.redundant_title')), redundantList(report, selected));
    const history = report.history?.length ? report.history : [report];
    if (history.length === 1) detail.insertBefore(h('p', { class: 'muted', id: 'drift-one-point' }, t('drift.one_point')), canvas.parentNode.nextSibling);
    chart = historyChart(canvas, history);
  }
  await show();
  return () => chart?.destroy();
}

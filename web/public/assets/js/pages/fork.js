// A fork's page: what was compared, its sync candidates, the layer summary as a chart (and as a table),
// the changed files filterable by layer, pattern and violation, and the Markdown report to download.
import { getAnalysis, getJson, getText, query } from '../api.js';
import { fileHref, formatNumber, formatTime, h, notice, shortSha } from '../dom.js';
import { t } from '../i18n.js';
import { messageOf, render as renderMessage } from '../messages.js';
import { LAYERS, LAYER_COLORS, layerBadge, layerName } from '../layers.js';
import { createTable } from '../table.js';
import { candidatesSection } from './candidates.js';
import { errorNotice, gapText, isAnalysisMissing, pageHeader, selectFilter, setQueryParam, syncFailure, syncSummary } from './common.js';
import { loadVendor } from '../vendor.js';

// The style and, when the analysis carries it, the evidence it was decided on.
function styleText(analysis) {
  const style = t(`style.${analysis.style}`);
  const e = analysis.style_evidence;
  if (!e || e.compat.hunks + e.native.hunks === 0) return style;
  return `${style} — ${t('style.evidence', { compat: e.compat.lines, native: e.native.lines })}`;
}

function meta(analysis, fork) {
  const row = (key, value) => [h('dt', {}, t(key)), h('dd', {}, value)];
  return h(
    'dl',
    { class: 'meta' },
    row('fork.url', h('code', {}, analysis.fork.url || fork.fork_url)),
    row('fork.branch', h('code', {}, analysis.fork.branch)),
    row('fork.head', h('code', { title: analysis.fork.sha }, shortSha(analysis.fork.sha))),
    row('fork.upstream', h('code', {}, `${analysis.upstream.url} @ ${analysis.upstream.branch}`)),
    row('fork.upstream_head', h('code', { title: analysis.upstream.sha }, shortSha(analysis.upstream.sha))),
    row('fork.merge_base', [h('code', { title: analysis.merge_base || '' }, `${shortSha(analysis.merge_base)} (${analysis.base_source || '—'})`),
      analysis.base_distance?.confidence
        ? h('span', { class: `badge confidence-${analysis.base_distance.confidence}`, id: 'base-confidence', title: analysis.base_distance.confidence_reason || '' },
          t('fork.base_confidence', { confidence: analysis.base_distance.confidence }))
        : null]),
    row('col.behind_ahead', `${analysis.behind} / ${analysis.ahead}`),
    row('fork.style', styleText(analysis)),
    row('fork.analysed', formatTime(analysis.created_at)),
    row('fork.labels', fork.labels.join(', ') || '—'),
    row('sync.last', syncSummary(fork)),
  );
}

function summaryTable(summary) {
  return h(
    'table',
    { class: 'data compact', id: 'layer-summary' },
    h('caption', {}, t('fork.layer_summary')),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('col.layer')), ['col.files', 'col.hunks', 'col.additions', 'col.deletions'].map((k) => h('th', { scope: 'col', class: 'num' }, t(k))))),
    h(
      'tbody',
      {},
      LAYERS.map((l) => {
        const s = summary.layers[l];
        return h('tr', { 'data-layer': l }, h('th', { scope: 'row' }, layerBadge(l)), [s.files, s.hunks, s.additions, s.deletions].map((n) => h('td', { class: 'num' }, formatNumber(n))));
      }),
    ),
  );
}

function layerChart(canvas, summary) {
  if (!window.Chart) return null;
  return new window.Chart(canvas, {
    type: 'bar',
    data: {
      labels: LAYERS.map(layerName),
      datasets: [
        { label: t('col.additions'), data: LAYERS.map((l) => summary.layers[l].additions), backgroundColor: LAYERS.map((l) => LAYER_COLORS[l]) },
        { label: t('col.deletions'), data: LAYERS.map((l) => summary.layers[l].deletions), backgroundColor: LAYERS.map((l) => `${LAYER_COLORS[l]}80`) },
      ],
    },
    options: { animation: false, responsive: true, maintainAspectRatio: false, scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true } } },
  });
}

// Violations page by page (a real fork has over a hundred), sortable by rule and place.
function violationsTable(fork, violations) {
  const where = (v) => `${v.path}${v.line ? `:${v.line}` : ''}`;
  return createTable({
    id: 'violations-table',
    caption: () => t('violations.caption'),
    columns: [
      { key: 'rule', label: () => t('col.rule'), value: (v) => v.rule, render: (v) => h('code', {}, v.rule) },
      { key: 'where', label: () => t('col.where'), value: (v) => `${v.path}:${String(v.line || 0).padStart(8, '0')}`, render: (v) => h('a', { href: fileHref(fork, v.path) }, where(v)), class: 'path' },
      { key: 'message', label: () => t('col.message'), render: (v) => h('span', { class: 'violation-message' }, messageOf(v)) },
    ],
    rows: violations,
    pageSize: 25,
    sort: { key: 'where', dir: 'asc' },
  });
}

// Directories moved or copied wholesale (the Markdown report's "Directory moves and copies").
function movesTable(moves) {
  return h('table', { class: 'data compact', id: 'moves-table' },
    h('caption', {}, t('moves.caption')),
    h('thead', {}, h('tr', {}, ['moves.kind', 'moves.from', 'moves.to'].map((k) => h('th', { scope: 'col' }, t(k))),
      ['col.files', 'moves.verbatim', 'moves.adapted'].map((k) => h('th', { scope: 'col', class: 'num' }, t(k))))),
    h('tbody', {}, moves.map((m) => h('tr', { 'data-kind': m.kind },
      h('td', {}, t(`moves.kind.${m.kind}`, {}, m.kind)), h('td', { class: 'path' }, m.from), h('td', { class: 'path' }, m.to),
      [m.files, m.verbatim, m.adapted].map((n) => h('td', { class: 'num' }, formatNumber(n)))))));
}

function hunkPatterns(file) {
  return [...new Set(file.hunks.flatMap((hk) => hk.patterns))];
}

function fileColumns(fork) {
  return [
    { key: 'path', label: () => t('col.path'), value: (f) => f.path, render: (f) => h('a', { href: fileHref(fork, f.path), class: 'file-link' }, f.path), class: 'path' },
    { key: 'status', label: () => t('col.status'), value: (f) => f.status, render: (f) => t(`status.${f.status}`) },
    { key: 'layer', label: () => t('col.layer'), value: (f) => LAYERS.indexOf(f.layer), render: (f) => layerBadge(f.layer) },
    { key: 'hunks', label: () => t('col.hunks'), numeric: true, value: (f) => f.hunks.length, render: (f) => f.hunks.length },
    { key: 'additions', label: () => t('col.additions'), numeric: true, value: (f) => f.additions, render: (f) => h('span', { class: 'add' }, `+${f.additions}`) },
    { key: 'deletions', label: () => t('col.deletions'), numeric: true, value: (f) => f.deletions, render: (f) => h('span', { class: 'del' }, `−${f.deletions}`) },
    { key: 'patterns', label: () => t('col.patterns'), value: (f) => hunkPatterns(f).length, render: (f) => hunkPatterns(f).map((p) => h('code', { class: 'pattern' }, p)) },
    { key: 'violations', label: () => t('col.violations'), numeric: true, value: (f) => f.hunks.reduce((n, hk) => n + hk.violations.length, 0), render: (f) => f.hunks.reduce((n, hk) => n + hk.violations.length, 0) || '' },
  ];
}

async function downloadReport(name, button) {
  button.disabled = true;
  try {
    const text = await getText(`/api/v1/forks/${encodeURIComponent(name)}/analysis?format=markdown`);
    const url = URL.createObjectURL(new Blob([text], { type: 'text/markdown' }));
    const a = h('a', { href: url, download: `${name}-analysis.md`, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } finally {
    button.disabled = false;
  }
}

export async function forkPage(main, { name }, params) {
  const [fork] = await Promise.all([getJson(`/api/v1/forks/${encodeURIComponent(name)}`), loadVendor('chart')]);
  const download = h('button', { type: 'button', id: 'download-report', onclick: (e) => downloadReport(name, e.currentTarget) }, t('fork.download'));
  main.append(h('p', { class: 'crumbs' }, h('a', { href: '/' }, t('nav.forks')), ' › ', name), pageHeader(name, download));
  let analysis;
  try {
    analysis = await getAnalysis(fork);
  } catch (err) {
    download.disabled = true;
    main.append(isAnalysisMissing(err) ? notice('empty', t('fork.not_analysed')) : errorNotice(err), syncFailure(fork, { full: true }) || '');
    return null;
  }
  main.append(meta(analysis, fork));
  if (analysis.notices?.length) main.append(h('ul', { class: 'notices' }, analysis.notices.map((n) => h('li', {}, n))));
  // The layer summary before the candidates: a carry's conflicts can be long.
  const canvas = h('canvas', { id: 'layer-chart', role: 'img', 'aria-label': t('fork.chart_label') });
  main.append(h('section', { class: 'summary' }, h('h2', {}, t('fork.layers')), h('div', { class: 'summary-grid' }, h('div', { class: 'chart-box' }, canvas), summaryTable(analysis.summary))));
  const chart = layerChart(canvas, analysis.summary);
  const candidates = await candidatesSection(name, params.get('candidate'));
  if (candidates) main.append(candidates);
  if (candidates && location.hash === '#candidates') candidates.scrollIntoView();

  // Filters live in the URL (?layer=&pattern=&violation=) so a reload keeps them.
  const filter = { layer: params.get('layer') || '', pattern: params.get('pattern') || '', violation: params.get('violation') || '' };
  const rules = [...new Set(analysis.violations.map((v) => v.rule))].sort();
  const filesStatus = h('p', { class: 'status-line', role: 'status' });
  const table = createTable({ id: 'files-table', caption: () => t('fork.files_caption'), columns: fileColumns(name), rows: [], pageSize: 50, sort: { key: 'path', dir: 'asc' }, rowHref: (f) => fileHref(name, f.path) });
  let seq = 0;
  async function loadFiles() {
    const mine = ++seq;
    filesStatus.textContent = t('loading');
    const doc = await getJson(`/api/v1/forks/${encodeURIComponent(name)}/files${query(filter)}`);
    if (mine !== seq) return;
    table.setRows(doc.files);
    filesStatus.textContent = t('fork.files_count', { n: doc.files.length, total: analysis.files.length, count: analysis.files.length });
  }
  const onFilter = (key) => (value) => {
    filter[key] = value;
    setQueryParam(key, value);
    loadFiles().catch((err) => filesStatus.replaceChildren(errorNotice(err)));
  };
  main.append(
    h('section', { class: 'files' },
      h('h2', {}, t('fork.files')),
      h('div', { class: 'controls' },
        selectFilter({ id: 'layer-filter', label: t('filter.layer'), options: [['', t('filter.all_layers')], ...LAYERS.map((l) => [l, layerName(l)])], value: filter.layer, onchange: onFilter('layer') }),
        selectFilter({ id: 'pattern-filter', label: t('filter.pattern'), options: [['', t('filter.all_patterns')], ...analysis.patterns.map((p) => [p.id, `${p.id} (${p.count})`])], value: filter.pattern, onchange: onFilter('pattern') }),
        selectFilter({ id: 'violation-filter', label: t('filter.violation'), options: [['', t('filter.all_violations')], ...rules.map((r) => [r, r])], value: filter.violation, onchange: onFilter('violation') })),
      filesStatus,
      table.el));
  await loadFiles();

  if (analysis.moves?.length) main.append(h('section', { class: 'moves' }, h('h2', {}, t('fork.moves')), movesTable(analysis.moves)));

  main.append(
    h('section', { class: 'findings' },
      h('h2', {}, t('fork.patterns')),
      analysis.patterns.length
        ? h('ul', {}, analysis.patterns.map((p) => h('li', {}, h('a', { href: `/patterns/${encodeURIComponent(p.id)}` }, p.id), ' ', layerBadge(p.layer), ` ${renderMessage(p.description || '', 'pattern.named', { id: p.id })} ×${p.count}`)))
        : h('p', { class: 'muted' }, t('fork.none')),
      h('h2', {}, t('fork.violations')),
      analysis.violations.length ? violationsTable(name, analysis.violations).el : h('p', { class: 'muted' }, t('fork.none')),
      h('h2', {}, t('fork.compat_gaps')),
      analysis.compat_gaps.length
        ? h('ul', {}, analysis.compat_gaps.map((g) => h('li', {}, h('a', { href: fileHref(name, g.path) }, `${g.path}:${g.line}`), ` ${gapText(g)}`, g.removal ? ` (${t('gap.removal')}: ${g.removal})` : '')))
        : h('p', { class: 'muted' }, t('fork.none'))));

  return () => chart?.destroy();
}


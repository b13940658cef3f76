// The pattern catalogue with a patterns × forks heatmap, and one pattern's occurrences across forks,
// each linking to its hunk.
import { ApiError, getJson } from '../api.js';
import { fileHref, forkHref, h, notice } from '../dom.js';
import { t } from '../i18n.js';
import { messageOf } from '../messages.js';
import { LAYERS, layerBadge } from '../layers.js';
import { createTable } from '../table.js';
import { pageHeader, selectFilter, setQueryParam } from './common.js';

const patternHref = (id, fork) => `/patterns/${encodeURIComponent(id)}${fork ? `?fork=${encodeURIComponent(fork)}` : ''}`;

function heatmap(patterns) {
  const forks = [...new Set(patterns.flatMap((p) => Object.keys(p.forks)))].sort();
  const max = Math.max(1, ...patterns.flatMap((p) => Object.values(p.forks)));
  return h(
    'div',
    { class: 'heatmap-wrap', tabindex: '0', role: 'region', 'aria-label': t('patterns.heatmap') },
    h(
      'table',
      { class: 'heatmap', id: 'pattern-heatmap' },
      h('caption', {}, t('patterns.heatmap')),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('col.pattern')), forks.map((f) => h('th', { scope: 'col', class: 'fork-col' }, h('a', { href: forkHref(f) }, f))))),
      h(
        'tbody',
        {},
        patterns.map((p) =>
          h('tr', {},
            h('th', { scope: 'row' }, h('a', { href: patternHref(p.id) }, p.id)),
            forks.map((f) => {
              const n = p.forks[f] || 0;
              const label = t('patterns.cell', { pattern: p.id, fork: f, n });
              return h('td', { class: n ? 'hot' : 'cold', style: n ? { background: `rgba(31, 78, 121, ${0.15 + (0.85 * n) / max})`, color: n / max > 0.5 ? '#fff' : '#111' } : null, title: label },
                n ? h('a', { href: patternHref(p.id, f), 'aria-label': label }, n) : h('span', { class: 'sr-only' }, label));
            }))),
      ),
    ),
  );
}

export async function patternsPage(main) {
  main.append(pageHeader(t('patterns.title')));
  const { patterns } = await getJson('/api/v1/patterns');
  if (!patterns.length) {
    main.append(notice('empty', t('patterns.none')));
    return;
  }
  // The API's order: what a migration does first (additions and edits before deletions of CI and
  // docs), then the patterns most forks share.
  const table = createTable({
    id: 'patterns-table',
    caption: () => t('patterns.catalogue'),
    columns: [
      { key: 'id', label: () => t('col.pattern'), value: (p) => p.id, render: (p) => h('a', { href: patternHref(p.id) }, p.id) },
      { key: 'layer', label: () => t('col.layer'), value: (p) => LAYERS.indexOf(p.layer), render: (p) => layerBadge(p.layer) },
      { key: 'description', label: () => t('col.description'), render: (p) => [p.action ? h('span', { class: `badge action action-${p.action}`, 'data-action': p.action }, t(`pattern.action.${p.action}`)) : null, messageOf(p, 'description')] },
      { key: 'forks', label: () => t('col.forks'), numeric: true, value: (p) => Object.keys(p.forks).length, render: (p) => Object.keys(p.forks).length },
      { key: 'total', label: () => t('col.occurrences'), numeric: true, value: (p) => p.total, render: (p) => p.total },
    ],
    rows: patterns,
    rowHref: (p) => patternHref(p.id),
  });
  main.append(h('section', {}, h('h2', {}, t('patterns.catalogue')), table.el), h('section', {}, h('h2', {}, t('patterns.heatmap')), heatmap(patterns)));
}

export async function patternPage(main, { id }, params) {
  main.append(h('p', { class: 'crumbs' }, h('a', { href: '/patterns' }, t('nav.patterns')), ' › ', id), pageHeader(id));
  let doc;
  let catalogue;
  try {
    [doc, catalogue] = await Promise.all([getJson(`/api/v1/patterns/${encodeURIComponent(id)}`), getJson('/api/v1/patterns')]);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      main.append(notice('empty', t('pattern.none', { id })));
      return;
    }
    throw err;
  }
  const info = catalogue.patterns.find((p) => p.id === id);
  main.append(h('p', { class: 'pattern-meta' }, layerBadge(doc.layer), ' ', messageOf(info, 'description')));
  let fork = params.get('fork') || '';
  const forks = [...new Set(doc.occurrences.map((o) => o.fork))].sort();
  const rows = () => doc.occurrences.filter((o) => !fork || o.fork === fork);
  const table = createTable({
    id: 'occurrences-table',
    caption: () => t('pattern.occurrences', { n: doc.occurrences.length }),
    columns: [
      { key: 'fork', label: () => t('col.fork'), value: (o) => o.fork, render: (o) => h('a', { href: forkHref(o.fork) }, o.fork) },
      { key: 'path', label: () => t('col.path'), value: (o) => o.path, render: (o) => h('a', { href: fileHref(o.fork, o.path, o.hunk_index), class: 'occurrence-link' }, `${o.path}:${o.new_start}`), class: 'path' },
      { key: 'hunk', label: () => t('col.hunk'), numeric: true, value: (o) => o.hunk_index, render: (o) => o.hunk_index + 1 },
      { key: 'layer', label: () => t('col.layer'), value: (o) => LAYERS.indexOf(o.layer), render: (o) => layerBadge(o.layer) },
    ],
    rows: rows(),
    sort: { key: 'fork', dir: 'asc' },
    rowHref: (o) => fileHref(o.fork, o.path, o.hunk_index),
  });
  main.append(
    h('div', { class: 'controls' },
      selectFilter({ id: 'occurrence-fork-filter', label: t('filter.fork'), options: [['', t('filter.all_forks')], ...forks.map((f) => [f, f])], value: fork, onchange: (v) => { fork = v; setQueryParam('fork', v); table.setRows(rows()); } })),
    table.el);
}

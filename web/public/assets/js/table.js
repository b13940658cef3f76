// A sortable, paginated table: only the current page is in the DOM, so 2,000 files or 200 forks stay
// quick. Header buttons sort (aria-sort says how); rows with an href open on click or Enter.
// Redraws touch only what changed: the header and pager keep their elements, and a row's <tr> is
// reused until rowVersion(row) changes, so a click is never lost to a redraw in the middle of it.
import { h } from './dom.js';
import { t } from './i18n.js';
import { navigate } from './router.js';

const PAGE_SIZES = [25, 50, 100, 200];

function cellClass(col, header) {
  const names = [col.numeric ? 'num' : header ? null : col.class, col.fold ? `fold-${col.fold}` : null].filter(Boolean);
  return names.length ? names.join(' ') : null;
}

// columns: [{key, label: () => text, value: row => sortable, render: row => node|text, numeric, class, fold}]
// fold: 'wide' | 'narrow' — a secondary column that app.css hides below a width (th and td get fold-<fold>).
export function createTable({ id, caption, columns, rows = [], pageSize = 50, sort = null, rowHref = null, rowVersion = () => 0, empty }) {
  const state = { rows, page: 0, pageSize, sort };
  const rendered = new WeakMap();  // row -> {version, tr}
  const thead = h('thead');
  const tbody = h('tbody');
  const table = h('table', { class: 'data', id }, caption ? h('caption', {}, caption()) : null, thead, tbody);
  const prev = h('button', { type: 'button', class: 'page-prev', onclick: () => go(-1) }, t('table.previous'));
  const next = h('button', { type: 'button', class: 'page-next', onclick: () => go(1) }, t('table.next'));
  const info = h('span', { class: 'page-info', 'aria-live': 'polite' });
  const sizeId = `${id}-page-size`;
  const size = h(
    'select',
    {
      id: sizeId,
      onchange: (e) => {
        state.pageSize = Number(e.target.value);
        state.page = 0;
        render();
      },
    },
    PAGE_SIZES.map((n) => h('option', { value: n, selected: n === state.pageSize }, n)),
  );
  const nav = h('div', { class: 'pager', role: 'navigation', 'aria-label': t('table.pages') }, prev, info, next, h('label', { for: sizeId }, t('table.page_size')), size);
  const el = h('div', { class: 'table-wrap' }, table, nav);

  function sortedRows() {
    if (!state.sort) return state.rows;
    const col = columns.find((c) => c.key === state.sort.key);
    if (!col || !col.value) return state.rows;
    const dir = state.sort.dir === 'desc' ? -1 : 1;
    return [...state.rows].sort((a, b) => {
      const va = col.value(a);
      const vb = col.value(b);
      // unknown values sort last whichever the direction
      if (va === null || va === undefined) return vb === null || vb === undefined ? 0 : 1;
      if (vb === null || vb === undefined) return -1;
      if (typeof va === 'number' && typeof vb === 'number') return (va - vb) * dir;
      return String(va).localeCompare(String(vb)) * dir;
    });
  }

  function drawHeader() {
    const tr = h('tr');
    for (const col of columns) {
      const active = state.sort && state.sort.key === col.key;
      const ariaSort = active ? (state.sort.dir === 'desc' ? 'descending' : 'ascending') : col.value ? 'none' : null;
      const label = col.label();
      const content = col.value
        ? h(
            'button',
            {
              type: 'button',
              class: 'sort',
              'data-sort': col.key,
              'aria-label': t('table.sort_by', { column: label }),
              onclick: () => {
                state.sort = { key: col.key, dir: active && state.sort.dir === 'asc' ? 'desc' : 'asc' };
                state.page = 0;
                drawHeader();
                render();
                table.querySelector(`button[data-sort="${col.key}"]`)?.focus();
              },
            },
            label,
            h('span', { class: 'sort-mark', 'aria-hidden': 'true' }, active ? (state.sort.dir === 'desc' ? '▼' : '▲') : ''),
          )
        : label;
      tr.append(h('th', { scope: 'col', 'aria-sort': ariaSort, class: cellClass(col, true), 'data-col': col.key }, content));
    }
    thead.replaceChildren(tr);
  }

  function rowElement(row) {
    const version = rowVersion(row);
    const cached = rendered.get(row);
    if (cached && cached.version === version) return cached.tr;
    const href = rowHref ? rowHref(row) : null;
    const tr = h('tr', href ? { tabindex: '0', class: 'clickable', 'data-href': href } : {});
    if (href) {
      tr.addEventListener('click', (e) => {
        if (!e.target.closest('a, button, input, select')) navigate(href);
      });
      tr.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && e.target === tr) navigate(href);
      });
    }
    for (const col of columns) tr.append(h('td', { class: cellClass(col, false), 'data-col': col.key }, col.render(row)));
    rendered.set(row, { version, tr });
    return tr;
  }

  function drawBody(pageRows) {
    const nodes = pageRows.length
      ? pageRows.map(rowElement)
      : [h('tr', {}, h('td', { colspan: columns.length, class: 'empty' }, empty ? empty() : t('table.empty')))];
    const same = nodes.length === tbody.children.length && nodes.every((n, i) => tbody.children[i] === n);
    if (!same) tbody.replaceChildren(...nodes);
  }

  function drawPager(total) {
    const pages = Math.max(1, Math.ceil(total / state.pageSize));
    state.page = Math.max(0, Math.min(state.page, pages - 1));
    const first = total === 0 ? 0 : state.page * state.pageSize + 1;
    const last = Math.min(total, (state.page + 1) * state.pageSize);
    prev.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
    info.textContent = t('table.page_info', { page: state.page + 1, pages, first, last, total });
  }

  function go(delta) {
    state.page += delta;
    render();
  }

  function render() {
    const all = sortedRows();
    drawPager(all.length);
    drawBody(all.slice(state.page * state.pageSize, (state.page + 1) * state.pageSize));
  }

  drawHeader();
  render();
  return {
    el,
    // New rows (a filter changed): back to the first page.
    setRows(newRows) {
      state.rows = newRows;
      state.page = 0;
      render();
    },
    // Rows changed in place (bump rowVersion for the ones to redraw).
    refresh: render,
  };
}

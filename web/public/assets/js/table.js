// A sortable, paginated table: only the current page is in the DOM, so 2,000 files or 200 forks stay
// quick. Header buttons sort (aria-sort says how); rows with an href open on click or Enter.
import { h, clear } from './dom.js';
import { t } from './i18n.js';
import { navigate } from './router.js';

const PAGE_SIZES = [25, 50, 100, 200];

// columns: [{key, label: () => text, value: row => sortable, render: row => node|text, numeric}]
export function createTable({ id, caption, columns, rows = [], pageSize = 50, sort = null, rowHref = null, empty }) {
  const state = { rows, page: 0, pageSize, sort, columns };
  const table = h('table', { class: 'data', id });
  const nav = h('div', { class: 'pager', role: 'navigation', 'aria-label': t('table.pages') });
  const el = h('div', { class: 'table-wrap' }, table, nav);

  function sortedRows() {
    if (!state.sort) return state.rows;
    const col = state.columns.find((c) => c.key === state.sort.key);
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

  function header() {
    const tr = h('tr');
    for (const col of state.columns) {
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
                const dir = active && state.sort.dir === 'asc' ? 'desc' : 'asc';
                state.sort = { key: col.key, dir };
                state.page = 0;
                render();
                table.querySelector(`button[data-sort="${col.key}"]`)?.focus();
              },
            },
            label,
            h('span', { class: 'sort-mark', 'aria-hidden': 'true' }, active ? (state.sort.dir === 'desc' ? '▼' : '▲') : ''),
          )
        : label;
      tr.append(h('th', { scope: 'col', 'aria-sort': ariaSort, class: col.numeric ? 'num' : null }, content));
    }
    return h('thead', {}, tr);
  }

  function body(pageRows) {
    const tbody = h('tbody');
    if (pageRows.length === 0) {
      tbody.append(h('tr', {}, h('td', { colspan: state.columns.length, class: 'empty' }, empty ? empty() : t('table.empty'))));
    }
    for (const row of pageRows) {
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
      for (const col of state.columns) tr.append(h('td', { class: col.numeric ? 'num' : col.class || null }, col.render(row)));
      tbody.append(tr);
    }
    return tbody;
  }

  function pager(total) {
    clear(nav);
    const pages = Math.max(1, Math.ceil(total / state.pageSize));
    state.page = Math.min(state.page, pages - 1);
    const first = total === 0 ? 0 : state.page * state.pageSize + 1;
    const last = Math.min(total, (state.page + 1) * state.pageSize);
    const sizeId = `${id}-page-size`;
    nav.append(
      h('button', { type: 'button', class: 'page-prev', disabled: state.page === 0, onclick: () => go(-1) }, t('table.previous')),
      h('span', { class: 'page-info', 'aria-live': 'polite' }, t('table.page_info', { page: state.page + 1, pages, first, last, total })),
      h('button', { type: 'button', class: 'page-next', disabled: state.page >= pages - 1, onclick: () => go(1) }, t('table.next')),
      h('label', { for: sizeId }, t('table.page_size')),
      h(
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
      ),
    );
  }

  function go(delta) {
    state.page += delta;
    render();
    nav.querySelector(delta < 0 ? '.page-prev' : '.page-next')?.focus();
  }

  function render() {
    const all = sortedRows();
    pager(all.length);
    const pageRows = all.slice(state.page * state.pageSize, (state.page + 1) * state.pageSize);
    clear(table);
    if (caption) table.append(h('caption', {}, caption()));
    table.append(header(), body(pageRows));
  }

  render();
  return {
    el,
    // New rows (a filter changed): back to the first page.
    setRows(newRows) {
      state.rows = newRows;
      state.page = 0;
      render();
    },
    refresh: render,
  };
}

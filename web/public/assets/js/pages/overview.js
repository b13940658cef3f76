// The forks overview: one row per fork with its sync state (live while a sync runs), drift, a layer
// bar of its changes, violations, open alerts, last job and newest sync candidate. Each fork's latest
// analysis, merge-base age, open alerts and last job come with GET /api/v1/forks, so the page makes
// three calls whatever the fleet's size. Sortable; filterable by label and name. The fork's name cell holds its Sync button and stays in view when the
// table scrolls sideways; upstream and branch fold into it below 1500 px, the job and merge-base age
// columns below 1100 px (app.css), so the table fits a 1280 px screen in both languages.
import { getJson, postJson, ApiError } from '../api.js';
import { formatAgo, formatDays, formatNumber, forkHref, h, notice } from '../dom.js';
import { t } from '../i18n.js';
import { layerBar } from '../layers.js';
import { createTable } from '../table.js';
import { requireToken, setToken } from '../token.js';
import { candidateCell } from './candidates.js';
import { optionalJson, selectFilter, setQueryParam, stateBadge, errorNotice, pageHeader, syncFailure } from './common.js';

const POLL_MS = 1500;

function upstreamLabel(fork) {
  const url = fork.upstream_url.replace(/\/+$/, '').replace(/\.git$/, '');
  const name = url.split('/').slice(-2).join('/');
  return `${name}${fork.upstream_branch ? `@${fork.upstream_branch}` : ''}`;
}

function lastJobCell(job) {
  if (!job) return '—';
  return h('a', { href: `/jobs/${encodeURIComponent(job.id)}` }, stateBadge(job.state));
}

// "queued", "syncing · fetch fork 40%": a queued task has neither stage nor progress to tell; a
// running one its stage when that says more than its state.
export function progressText(task) {
  const state = t(`task.${task.state}`, {}, task.state);
  if (task.state === 'queued') return state;
  const pct = task.progress?.percent ?? 0;
  const stage = task.progress?.stage || '';
  return stage && stage !== task.state ? `${state} · ${t(`task.stage.${stage}`, {}, stage)} ${pct}%` : `${state} ${pct}%`;
}

function syncCell(row) {
  if (row.task) {
    const pct = row.task.progress?.percent ?? 0;
    return h(
      'span',
      { class: 'sync-progress', 'data-task': row.task.id },
      h('progress', { max: 100, value: pct, 'aria-label': t('overview.sync_progress', { fork: row.fork.name }) }),
      ` ${progressText(row.task)}`,
    );
  }
  const failure = syncFailure(row.fork);
  const analysis = row.fork.latest_analysis;
  if (!analysis) return failure || h('span', { class: 'muted' }, t('overview.never_synced'));
  return [h('time', { datetime: analysis.created_at, title: analysis.created_at }, formatAgo(analysis.created_at)), failure];
}

const branchOf = (r) => r.fork.latest_analysis?.branch || r.fork.branch || 'paddle';
const analysisOf = (r) => r.fork.latest_analysis;

// The name, its labels and the Sync button side by side; below, upstream and branch for when their
// own columns are folded away.
function nameCell(r, onSync) {
  return h('div', { class: 'fork-cell' },
    h('div', { class: 'fork-line' },
      h('a', { href: forkHref(r.fork.name), class: 'fork-link' }, r.fork.name),
      h('button', { type: 'button', class: 'sync-button', 'aria-label': t('overview.sync_fork', { fork: r.fork.name }), disabled: !!r.task, onclick: () => onSync(r) }, t('overview.sync'))),
    r.fork.labels.length ? h('div', { class: 'labels' }, r.fork.labels.map((l) => h('span', { class: 'label' }, l))) : null,
    h('div', { class: 'fork-origin muted', title: r.fork.upstream_url }, `${upstreamLabel(r.fork)} · `, h('code', {}, branchOf(r))));
}

function columns(onSync) {
  return [
    { key: 'name', label: () => t('col.fork'), value: (r) => r.fork.name, class: 'fork-name', render: (r) => nameCell(r, onSync) },
    { key: 'upstream', label: () => t('col.upstream'), fold: 'wide', value: (r) => upstreamLabel(r.fork), render: (r) => h('span', { title: r.fork.upstream_url }, upstreamLabel(r.fork)) },
    { key: 'branch', label: () => t('col.migration_branch'), fold: 'wide', value: (r) => branchOf(r), render: (r) => h('code', {}, branchOf(r)) },
    { key: 'synced', label: () => t('col.last_sync'), value: (r) => analysisOf(r)?.created_at ?? null, render: syncCell },
    {
      key: 'behind',
      label: () => t('col.behind_ahead'),
      numeric: true,
      value: (r) => analysisOf(r)?.behind ?? null,
      render: (r) => (analysisOf(r) ? h('span', { class: 'behind-ahead' }, `${analysisOf(r).behind} / ${analysisOf(r).ahead}`) : '—'),
    },
    { key: 'age', label: () => t('col.merge_base_age'), numeric: true, fold: 'narrow', value: (r) => r.fork.merge_base_age_days ?? null, render: (r) => formatDays(r.fork.merge_base_age_days) },
    {
      key: 'layers',
      label: () => t('col.layers'),
      value: (r) => analysisOf(r)?.summary?.files ?? null,
      render: (r) => (analysisOf(r) ? layerBar(analysisOf(r).summary) : '—'),
    },
    { key: 'violations', label: () => t('col.violations'), numeric: true, value: (r) => analysisOf(r)?.violations ?? null, render: (r) => formatNumber(analysisOf(r)?.violations) },
    { key: 'alerts', label: () => t('col.open_alerts'), numeric: true, value: (r) => r.fork.open_alerts ?? null, render: (r) => (r.fork.open_alerts == null ? '—' : h('a', { href: '/alerts?state=open' }, formatNumber(r.fork.open_alerts))) },
    { key: 'job', label: () => t('col.last_job'), fold: 'narrow', value: (r) => r.fork.last_job?.state ?? null, render: (r) => lastJobCell(r.fork.last_job) },
    { key: 'candidate', label: () => t('col.candidate'), value: (r) => r.candidate?.state ?? null, render: (r) => candidateCell(r.fork.name, r.candidate) },
  ];
}

export async function overviewPage(main, _params, query) {
  main.append(pageHeader(t('overview.title')));
  const status = h('div', { class: 'status-line', role: 'status' });
  // What the last Sync click came to (a refused token, a failed sync), apart from the page's notices.
  const actionStatus = h('div', { class: 'status-line', id: 'action-status', role: 'status' });
  const controls = h('div', { class: 'controls' });
  main.append(controls, status, actionStatus);

  // All at once: none of them waits for another.
  const [forkList, tasks, candidates] = await Promise.all([
    getJson('/api/v1/forks'),
    optionalJson('/api/v1/tasks'),
    optionalJson('/api/v1/candidates'),
  ]);
  const forks = forkList.forks;
  const candidateBy = new Map((candidates.data?.candidates || []).map((c) => [c.fork, c]));
  const rows = forks.map((fork) => ({
    version: 0,
    fork,
    candidate: candidateBy.get(fork.name) || null,
    task: (tasks.data?.tasks || []).find((tk) => tk.fork === fork.name) || null,
  }));

  const labels = [...new Set(forks.flatMap((f) => f.labels))].sort();
  let label = query.get('label') || '';
  let nameFilter = query.get('q') || '';
  let stopped = false;
  let pollTimer = null;

  const filtered = () =>
    rows.filter((r) => (!label || r.fork.labels.includes(label)) && (!nameFilter || r.fork.name.toLowerCase().includes(nameFilter.toLowerCase())));

  async function onSync(row) {
    const token = await requireToken(t('token.help_sync'));
    if (!token) return;
    try {
      const { task } = await postJson(`/api/v1/forks/${encodeURIComponent(row.fork.name)}/sync`);
      actionStatus.replaceChildren();  // an earlier refusal (a bad token) no longer holds
      row.task = { id: task, fork: row.fork.name, state: 'queued', progress: { percent: 0, stage: 'queued' } };
      row.version++;
      table.refresh();
      schedulePoll();
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) setToken('');
      actionStatus.replaceChildren(errorNotice(err));
    }
  }

  const table = createTable({
    id: 'forks-table',
    caption: () => t('overview.caption', { n: forks.length }),
    columns: columns(onSync),
    rows: filtered(),
    pageSize: 50,
    sort: { key: 'name', dir: 'asc' },
    rowHref: (r) => forkHref(r.fork.name),
    rowVersion: (r) => r.version,
    empty: () => (forks.length ? t('overview.no_match') : t('overview.no_forks')),
  });

  controls.append(
    selectFilter({
      id: 'label-filter',
      label: t('overview.filter_label'),
      options: [['', t('overview.all_labels')], ...labels.map((l) => [l, l])],
      value: label,
      onchange: (v) => {
        label = v;
        setQueryParam('label', v);
        table.setRows(filtered());
      },
    }),
    h('span', { class: 'filter' },
      h('label', { for: 'name-filter' }, t('overview.filter_name')),
      h('input', {
        id: 'name-filter',
        type: 'search',
        value: nameFilter,
        oninput: (e) => {
          nameFilter = e.target.value;
          setQueryParam('q', nameFilter);
          table.setRows(filtered());
        },
      })),
  );
  main.append(table.el);

  // While syncs run, poll their tasks; when one finishes, reload that fork (its latest analysis).
  async function poll() {
    pollTimer = null;
    if (stopped) return;
    const active = await optionalJson('/api/v1/tasks');
    if (stopped) return;
    const byFork = new Map((active.data?.tasks || []).map((tk) => [tk.fork, tk]));
    for (const row of rows) {
      const next = byFork.get(row.fork.name) || null;
      if (row.task && !next) {
        const done = await getJson(`/api/v1/tasks/${encodeURIComponent(row.task.id)}`).catch(() => null);
        row.task = null;
        row.version++;
        if (done && done.state === 'failed') actionStatus.replaceChildren(notice('error', t('overview.sync_failed', { fork: row.fork.name, message: done.error || '' })));
        try {
          row.fork = await getJson(`/api/v1/forks/${encodeURIComponent(row.fork.name)}`);
        } catch {
          // the fork was removed meanwhile
        }
      } else if (JSON.stringify(row.task) !== JSON.stringify(next)) {
        row.task = next;
        row.version++;
      }
    }
    table.refresh();
    schedulePoll();
  }
  function schedulePoll() {
    if (!stopped && !pollTimer && rows.some((r) => r.task)) pollTimer = setTimeout(poll, POLL_MS);
  }
  schedulePoll();

  return () => {
    stopped = true;
    if (pollTimer) clearTimeout(pollTimer);
  };
}

// Sync candidates (docs/carry.md): the fork page's "Sync candidates" section — the fork's carries onto
// upstream, and one candidate in full (state, where forkscope published it or why that failed, publish
// commands, its build job's stage timeline, the
// range-diff, conflicts with the three sides of each region) — and the forks page's candidate cell.
import { ApiError, getJson, postJson } from '../api.js';
import { forkHref, formatTime, h, notice, shortSha } from '../dom.js';
import { t } from '../i18n.js';
import { messageOf } from '../messages.js';
import { layerBadge } from '../layers.js';
import { createTable } from '../table.js';
import { requireToken, setToken } from '../token.js';
import { errorNotice, optionalJson, stateBadge } from './common.js';
import { timeline } from './jobs.js';
import { loadVendor } from '../vendor.js';

export function candidateHref(fork, id) {
  return `${forkHref(fork)}?candidate=${encodeURIComponent(id)}#candidates`;
}

// The forks page's cell: the newest candidate's state and target.
export function candidateCell(fork, candidate) {
  if (!candidate) return '—';
  return h('a', { href: candidateHref(fork, candidate.id), class: 'candidate-link', title: messageOf(candidate, 'reason') || candidate.onto },
    stateBadge(candidate.state), ` → ${shortSha(candidate.onto)}`);
}

// A region's change on one side as a unified diff (the base's lines against that side's).
function regionDiff(path, region, side) {
  const lines = region[`${side}_lines`];
  const header = `@@ -${region.base_start},${region.base_lines.length} +${region.base_start},${lines.length} @@`;
  return [`diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`, header,
    ...region.base_lines.map((l) => `-${l}`), ...lines.map((l) => `+${l}`)].join('\n') + '\n';
}

function diffBox(text, label) {
  const box = h('div', { class: 'diff', 'aria-label': label });
  if (window.Diff2Html) {
    // diff2html escapes the diff's content itself; its output is its own markup.
    box.innerHTML = window.Diff2Html.html(text, { drawFileList: false, matching: 'lines', outputFormat: 'line-by-line', colorScheme: 'light' });
  } else {
    box.append(h('pre', {}, text));
  }
  return h('figure', { class: 'region-side' }, h('figcaption', {}, label), box);
}

function conflictBlock(c) {
  const regions = c.binary ? [h('p', { class: 'muted' }, t('carry.binary'))]
    : c.regions.length === 0 ? [h('p', { class: 'muted' }, t('carry.no_regions'))]
      : c.regions.map((r) => h('div', { class: 'region' },
        h('h5', {}, t('carry.region', { line: r.base_start })),
        diffBox(regionDiff(c.path, r, 'upstream'), t('carry.side_upstream')),
        diffBox(regionDiff(c.path, r, 'fork'), t('carry.side_fork'))));
  // Collapsed: a carry of a re-imported fork can conflict in dozens of paths; the summary above says which.
  const kindText = t(`conflict.${c.kind}`, {}, c.kind);
  const kind = c.deleted_by ? t(`carry.deleted_by_${c.deleted_by}`, { kind: kindText }) : kindText;
  return h('details', { class: 'conflict', 'data-path': c.path },
    h('summary', {}, h('code', {}, c.path), ' ', layerBadge(c.layer), ' ', t('carry.conflict_in', { kind, commit: shortSha(c.fork_commit) })),
    c.upstream_commits.length
      ? h('p', {}, t('carry.upstream_commits'), ' ', c.upstream_commits.map((u) => h('code', { title: u.subject }, `${shortSha(u.sha)} ${u.subject}`)).flatMap((x, i) => (i ? [', ', x] : [x])))
      : null,
    regions);
}

// The conflicts counted by kind and the modify/delete ones grouped by directory, each group with the
// decision it asks for (carry JSON's conflict_summary, docs/carry.md).
function conflictSummary(summary) {
  if (!summary) return null;
  // decisions[i] belongs to the i-th side that has deletions, the fork's first.
  const sides = [summary.fork_deleted, summary.upstream_deleted].filter((groups) => groups.length);
  return h('div', { class: 'conflict-summary', id: 'conflict-summary' },
    h('p', {}, t('carry.conflict_counts', { content: summary.content, modify_delete: summary.modify_delete, add_add: summary.add_add, rename: summary.rename })),
    sides.map((groups, i) => [h('p', {}, h('strong', {}, summary.decisions[i])),
      h('ul', {}, groups.map((g) => h('li', {}, h('code', {}, g.directory || '/'), ` (${g.files})`)))]));
}

function rangeDiffTable(entries) {
  return h('table', { class: 'data compact', id: 'range-diff' },
    h('caption', {}, t('carry.range_diff')),
    h('thead', {}, h('tr', {}, ['carry.fork_commit', 'carry.subject', 'carry.replayed', 'carry.patch'].map((k) => h('th', { scope: 'col' }, t(k))))),
    h('tbody', {}, entries.map((e) => h('tr', { 'data-patch': e.patch },
      h('td', {}, h('code', { title: e.fork_sha }, shortSha(e.fork_sha))), h('td', {}, e.subject),
      h('td', {}, e.candidate_sha ? h('code', { title: e.candidate_sha }, shortSha(e.candidate_sha)) : '—'),
      h('td', {}, h('span', { class: `badge patch-${e.patch}` }, t(`patch.${e.patch}`)))))));
}

// Where forkscope pushed a ready candidate (forks[].push_url), or why the push failed (it stays ready).
function publishedNotice(c) {
  if (c.published_branch) {
    return h('div', { class: 'notice notice-info', role: 'status', id: 'published' },
      t('carry.published'), h('code', {}, c.published_branch), ' ',
      t('carry.published_at', { url: c.published_url, time: formatTime(c.published_at) }));
  }
  if (c.publish_error) {
    return h('div', { class: 'notice notice-unavailable', role: 'status', id: 'publish-error' },
      t('carry.publish_failed', { url: c.published_url, error: c.publish_error }));
  }
  return null;
}

function publishBlock(c) {
  if (!c.publish.length) return null;
  // Pushes are listed for a ready candidate only; others get the fetch, to look at or debug the commit.
  const help = c.published_branch ? 'carry.publish_help_published'
    : c.state === 'ready' ? 'carry.publish_help' : 'carry.fetch_help';
  return h('section', { class: 'publish' },
    h('h4', {}, t('carry.publish')),
    publishedNotice(c),
    c.state === 'ready' ? null : notice('info', t('carry.not_ready')),
    h('p', { class: 'muted' }, t(help, { branch: c.branch })),
    h('pre', { class: 'commands', id: 'publish-commands' }, c.publish.join('\n')));
}

function candidateMeta(c) {
  const row = (key, value) => (value ? [h('dt', {}, t(key)), h('dd', {}, value)] : null);
  const sha = (s) => (s ? h('code', { title: s }, shortSha(s)) : null);
  return h('dl', { class: 'meta' },
    row('carry.target', sha(c.onto)), row('carry.fork_head', [sha(c.fork_sha), ` (${c.branch})`]), row('carry.base', sha(c.base)),
    row('col.strategy', c.strategy), row('carry.candidate', sha(c.candidate_sha)), row('carry.ref', c.candidate_ref && h('code', {}, c.candidate_ref)),
    row('col.applied_dropped', `${c.applied} / ${c.dropped}`), row('carry.failing_stage', c.failing_stage), row('carry.reason', c.reason && h('span', { id: 'candidate-reason' }, messageOf(c, 'reason'))),
    row('carry.triggered_by', t(`carry.trigger.${c.triggered_by}`)), row('col.created', formatTime(c.created_at)));
}

function candidateDetail(c) {
  const job = c.job
    ? [h('p', {}, h('a', { href: `/jobs/${encodeURIComponent(c.job.id)}`, id: 'candidate-job' }, c.job.id), ' ', stateBadge(c.job.state), c.job.reason ? ` ${messageOf(c.job, 'reason')}` : ''), timeline(c.job)]
    : [h('p', { class: 'muted' }, t('carry.no_job'))];
  const carry = c.carry || {};
  return h('article', { id: 'candidate-detail', 'data-state': c.state, 'data-id': c.id },
    h('h3', {}, t('carry.detail', { id: c.id }), ' ', stateBadge(c.state)),
    candidateMeta(c),
    publishBlock(c),
    c.state === 'conflict' ? null : [h('h4', {}, t('carry.job')), job],
    (carry.range_diff || []).length ? rangeDiffTable(carry.range_diff) : null,
    (carry.conflicts || []).length ? [h('h4', {}, t('carry.conflicts')), conflictSummary(carry.conflict_summary), carry.conflicts.map(conflictBlock)] : null,
    (carry.notices || []).length ? [h('h4', {}, t('carry.notices')), h('ul', { class: 'notices' }, carry.notices.map((n) => h('li', {}, n)))] : null);
}

function candidateColumns(fork) {
  return [
    { key: 'id', label: () => '#', numeric: true, value: (c) => c.id, render: (c) => h('a', { href: candidateHref(fork, c.id) }, String(c.id)) },
    { key: 'state', label: () => t('col.state'), value: (c) => c.state, render: (c) => stateBadge(c.state) },
    { key: 'onto', label: () => t('col.onto'), render: (c) => h('code', { title: c.onto }, shortSha(c.onto)) },
    { key: 'strategy', label: () => t('col.strategy'), value: (c) => c.strategy, render: (c) => c.strategy },
    { key: 'commits', label: () => t('col.applied_dropped'), render: (c) => `${c.applied} / ${c.dropped}` },
    { key: 'published', label: () => t('col.published'), render: (c) => (c.published_branch
      ? h('code', { title: c.published_url }, c.published_branch)
      : c.publish_error ? h('span', { class: 'badge', title: c.publish_error }, t('carry.push_failed')) : '—') },
    { key: 'job', label: () => t('col.job'), render: (c) => (c.job_id ? h('a', { href: `/jobs/${encodeURIComponent(c.job_id)}` }, c.job_id) : '—') },
    { key: 'created', label: () => t('col.created'), value: (c) => c.created_at, render: (c) => formatTime(c.created_at) },
  ];
}

async function carryNow(fork, status) {
  const token = await requireToken(t('token.help_carry'));
  if (!token) return;
  try {
    const { task } = await postJson(`/api/v1/forks/${encodeURIComponent(fork)}/carry`);
    status.replaceChildren(notice('info', t('carry.queued', { task })));
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) setToken('');
    status.replaceChildren(errorNotice(err));
  }
}

// The section, or null when the server has no candidates API. selected: a candidate id from ?candidate=.
export async function candidatesSection(fork, selected) {
  const [list] = await Promise.all([optionalJson(`/api/v1/forks/${encodeURIComponent(fork)}/candidates`), loadVendor('diff2html')]);
  if (list.missing) return null;
  const status = h('div', { class: 'status-line', role: 'status' });
  const button = h('button', { type: 'button', id: 'carry-now', 'aria-label': t('carry.carry_fork', { fork }), onclick: () => carryNow(fork, status) }, t('carry.carry_now'));
  const section = h('section', { class: 'candidates', id: 'candidates' }, h('div', { class: 'section-header' }, h('h2', {}, t('carry.title')), button), status);
  const candidates = list.data?.candidates || [];
  if (list.error || !candidates.length) {
    section.append(list.error ? errorNotice(list.error) : notice('empty', t('carry.none')));
    return section;
  }
  section.append(createTable({ id: 'candidates-table', caption: () => t('carry.caption', { fork }), columns: candidateColumns(fork), rows: candidates, pageSize: 25, sort: { key: 'id', dir: 'desc' }, rowHref: (c) => candidateHref(fork, c.id) }).el);
  const id = candidates.some((c) => String(c.id) === String(selected)) ? selected : candidates[0].id;
  try {
    section.append(candidateDetail(await getJson(`/api/v1/candidates/${encodeURIComponent(id)}`)));
  } catch (err) {
    section.append(errorNotice(err));
  }
  return section;
}

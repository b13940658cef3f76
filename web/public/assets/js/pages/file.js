// One changed file: each hunk as a diff rendered by diff2html (from unified-diff text rebuilt from the
// hunk's lines), marked with its layer, patterns, violations and compat gaps.
import { getAnalysis, getJson } from '../api.js';
import { encodePath, forkHref, h, notice } from '../dom.js';
import { t } from '../i18n.js';
import { messageOf } from '../messages.js';
import { layerBadge } from '../layers.js';
import { errorNotice, gapText, isAnalysisMissing, pageHeader } from './common.js';
import { loadVendor } from '../vendor.js';

// git's extended header lines for a file's status, so that diff2html's badge (ADDED, DELETED,
// RENAMED, COPIED, CHANGED) says what the page says.
function extendedHeader(file, oldPath) {
  const similarity = file.similarity != null ? [`similarity index ${file.similarity}%`] : [];
  switch (file.status) {
    case 'added': return ['new file mode 100644'];
    case 'deleted': return ['deleted file mode 100644'];
    case 'renamed': return [...similarity, `rename from ${oldPath}`, `rename to ${file.path}`];
    case 'copied': return [...similarity, `copy from ${oldPath}`, `copy to ${file.path}`];
    default: return [];
  }
}

// The unified diff of one hunk, as `git diff` would print it.
export function hunkDiffText(file, hunk) {
  const oldPath = file.old_path || file.path;
  const from = file.status === 'added' ? '/dev/null' : `a/${oldPath}`;
  const to = file.status === 'deleted' ? '/dev/null' : `b/${file.path}`;
  const header = `@@ -${hunk.old_start},${hunk.old_lines} +${hunk.new_start},${hunk.new_lines} @@${hunk.header ? ` ${hunk.header.trimStart()}` : ''}`;
  return [`diff --git a/${oldPath} b/${file.path}`, ...extendedHeader(file, oldPath), `--- ${from}`, `+++ ${to}`, header, ...(hunk.lines || [])].join('\n') + '\n';
}

// Marks the rows of the rendered diff at the given new-side lines (a compat gap's line).
function markLines(box, lines, className, label) {
  if (!lines.length) return;
  for (const row of box.querySelectorAll('tr')) {
    const num = row.querySelector('.line-num2');
    if (!num || !lines.includes(Number(num.textContent.trim()))) continue;
    row.classList.add(className);
    row.setAttribute('title', label);
  }
}

function renderDiff(text) {
  const box = h('div', { class: 'diff' });
  if (window.Diff2Html) {
    // diff2html escapes the diff's content itself; its output is its own markup.
    box.innerHTML = window.Diff2Html.html(text, { drawFileList: false, matching: 'lines', outputFormat: 'line-by-line', colorScheme: 'light' });
  } else {
    box.append(h('pre', {}, text));
  }
  return box;
}

// Inclusive new-side (or old-side, for deletions) line range of a hunk.
function inHunk(hunk, line) {
  const newEnd = hunk.new_start + Math.max(hunk.new_lines, 1) - 1;
  const oldEnd = hunk.old_start + Math.max(hunk.old_lines, 1) - 1;
  return (line >= hunk.new_start && line <= newEnd) || (hunk.new_lines === 0 && line >= hunk.old_start && line <= oldEnd);
}

// index is 0-based; the page numbers hunks from 1, and so do its anchors (#hunk-1 is the first).
function hunkSection(file, hunk, index, analysis) {
  const anchor = `hunk-${index + 1}`;
  const violations = (analysis?.violations || []).filter((v) => v.path === file.path && (hunk.violations.includes(v.rule) && (v.line === 0 || inHunk(hunk, v.line))));
  const gaps = (analysis?.compat_gaps || []).filter((g) => g.path === file.path && inHunk(hunk, g.line));
  const diff = renderDiff(hunkDiffText(file, hunk));
  markLines(diff, gaps.map((g) => g.line), 'gap-line', t('hunk.compat_gap'));
  const marks = h(
    'div',
    { class: 'hunk-marks' },
    h('span', { class: 'mark-label' }, t('col.layer')), layerBadge(hunk.layer),
    hunk.context ? [h('span', { class: 'mark-label' }, t('hunk.context')), h('code', {}, hunk.context)] : null,
    hunk.patterns.length ? [h('span', { class: 'mark-label' }, t('col.patterns')), hunk.patterns.map((p) => h('a', { class: 'badge pattern', href: `/patterns/${encodeURIComponent(p)}` }, p))] : null,
    hunk.violations.length ? [h('span', { class: 'mark-label' }, t('col.violations')), hunk.violations.map((r) => h('span', { class: 'badge violation' }, r))] : null,
  );
  const details = [
    ...violations.map((v) => h('li', { class: 'violation-detail' }, h('code', {}, v.rule), ` ${messageOf(v)}`)),
    ...gaps.map((g) => h('li', { class: 'gap-detail' }, `${t('hunk.compat_gap')}: ${gapText(g)} · ${t('gap.line', { line: g.line })}`, g.scope ? ` · ${t('gap.scope')}: ${g.scope}` : '', g.removal ? ` · ${t('gap.removal')}: ${g.removal}` : '', g.issue ? ` · ${g.issue}` : '')),
  ];
  return h(
    'section',
    { class: 'hunk', id: anchor, tabindex: '-1', 'data-layer': hunk.layer, 'aria-labelledby': `${anchor}-title` },
    h('h2', { id: `${anchor}-title` }, h('a', { href: `${location.pathname}#${anchor}` }, t('hunk.title', { n: index + 1 })), h('code', { class: 'hunk-range' }, ` @@ -${hunk.old_start},${hunk.old_lines} +${hunk.new_start},${hunk.new_lines} @@`)),
    marks,
    details.length ? h('ul', { class: 'hunk-details' }, details) : null,
    diff,
  );
}

export async function filePage(main, { name, path }) {
  const [fork] = await Promise.all([getJson(`/api/v1/forks/${encodeURIComponent(name)}`), loadVendor('diff2html')]);
  main.append(h('p', { class: 'crumbs' }, h('a', { href: '/' }, t('nav.forks')), ' › ', h('a', { href: forkHref(name) }, name), ' › ', path), pageHeader(path));
  let file;
  let analysis = null;
  try {
    [file, analysis] = await Promise.all([
      getJson(`/api/v1/forks/${encodeURIComponent(name)}/files/${encodePath(path)}/hunks`),
      getAnalysis(fork).catch(() => null),
    ]);
  } catch (err) {
    main.append(isAnalysisMissing(err) ? notice('empty', t('file.not_found', { path, fork: name })) : errorNotice(err));
    return;
  }
  main.append(
    h('p', { class: 'file-meta' },
      layerBadge(file.layer), ' ', t(`status.${file.status}`),
      file.old_path ? ` · ${t('file.from', { path: file.old_path })}` : '',
      file.similarity != null ? ` · ${file.similarity}%` : '',
      file.moved_from ? ` · ${t('file.moved_from', { path: file.moved_from })}` : '',
      file.copied_from ? ` · ${t('file.copied_from', { path: file.copied_from })}` : '',
      ' · ', h('span', { class: 'add' }, `+${file.additions}`), ' ', h('span', { class: 'del' }, `−${file.deletions}`),
      ` · ${t('file.hunks', { n: file.hunks.length })}`));
  if (file.binary) main.append(notice('info', t('file.binary')));
  if (file.truncated) main.append(notice('info', t('file.truncated')));
  file.hunks.forEach((hunk, i) => main.append(hunkSection(file, hunk, i, analysis)));
}

// GPU build jobs: the list, and one job's stage timeline with its live log (polled by offset).
import { getJson, query } from '../api.js';
import { forkHref, formatTime, h, notice, shortSha, toDate } from '../dom.js';
import { t } from '../i18n.js';
import { messageOf } from '../messages.js';
import { render } from '../router.js';
import { createTable } from '../table.js';
import { errorNotice, optionalJson, pageHeader, selectFilter, setQueryParam, stateBadge, unavailableNotice } from './common.js';

const STATES = ['queued', 'running', 'passed', 'failed', 'timed_out', 'cancelled', 'skipped', 'lost'];
const FINAL = new Set(['passed', 'failed', 'timed_out', 'cancelled', 'skipped', 'lost']);
const LOG_POLL_MS = 1000;

function duration(job) {
  const start = toDate(job.started_at);
  const end = toDate(job.finished_at) || (start ? new Date() : null);
  if (!start || !end) return '—';
  const s = Math.round((end - start) / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

export async function jobsPage(main, _params, params) {
  main.append(pageHeader(t('jobs.title')));
  const filter = { fork: params.get('fork') || '', state: params.get('state') || '' };
  const result = await optionalJson(`/api/v1/jobs${query(filter)}`);
  if (result.missing) {
    main.append(unavailableNotice('feature.jobs'));
    return;
  }
  if (result.error) throw result.error;
  const forks = (await getJson('/api/v1/forks')).forks.map((f) => f.name);
  const reload = (key) => (v) => {
    setQueryParam(key, v);
    render();
  };
  main.append(h('div', { class: 'controls' },
    selectFilter({ id: 'jobs-fork', label: t('filter.fork'), options: [['', t('filter.all_forks')], ...forks.map((f) => [f, f])], value: filter.fork, onchange: reload('fork') }),
    selectFilter({ id: 'jobs-state', label: t('filter.state'), options: [['', t('filter.all_states')], ...STATES.map((s) => [s, t(`state.${s}`)])], value: filter.state, onchange: reload('state') })));
  const table = createTable({
    id: 'jobs-table',
    caption: () => t('jobs.caption'),
    columns: [
      { key: 'id', label: () => t('col.job'), value: (j) => String(j.id), render: (j) => h('a', { href: `/jobs/${encodeURIComponent(j.id)}` }, String(j.id)) },
      { key: 'fork', label: () => t('col.fork'), value: (j) => j.fork, render: (j) => h('a', { href: forkHref(j.fork) }, j.fork) },
      { key: 'state', label: () => t('col.state'), value: (j) => j.state, render: (j) => stateBadge(j.state) },
      { key: 'sha', label: () => t('col.sha'), render: (j) => h('code', { title: j.sha }, shortSha(j.sha)) },
      { key: 'executor', label: () => t('col.executor'), value: (j) => j.executor, render: (j) => j.executor },
      { key: 'stages', label: () => t('col.stages'), render: (j) => h('span', { class: 'stage-dots' }, (j.stages || []).map((s) => h('span', { class: `dot state-${s.state}`, title: `${s.name}: ${t(`state.${s.state}`, {}, s.state)}` }, s.name))) },
      { key: 'created', label: () => t('col.created'), value: (j) => String(j.created_at), render: (j) => formatTime(j.created_at) },
      { key: 'duration', label: () => t('col.duration'), render: duration },
    ],
    rows: result.data.jobs,
    sort: { key: 'created', dir: 'desc' },
    rowHref: (j) => `/jobs/${encodeURIComponent(j.id)}`,
    empty: () => t('jobs.none'),
  });
  main.append(table.el);
}

export function timeline(job) {
  const stages = job.stages || [];
  const total = stages.reduce((n, s) => n + (s.duration_s || 0), 0) || 1;
  return h('ol', { class: 'timeline', id: 'stage-timeline', 'aria-label': t('jobs.timeline') }, stages.map((s) =>
    h('li', { class: `stage state-${s.state}`, style: { flexGrow: String(Math.max(0.05, (s.duration_s || 0) / total)) }, 'data-stage': s.name },
      h('strong', {}, s.name), ' ', stateBadge(s.state),
      h('span', { class: 'stage-info' }, s.duration_s != null ? ` ${Number(s.duration_s).toFixed(1)} s` : '', s.exit_code != null ? ` · ${t('jobs.exit', { code: s.exit_code })}` : '', s.reason ? ` · ${messageOf(s, 'reason')}` : ''))));
}

// The kernels stage's translation units: each one's state, compile time and first compiler error.
export function kernelUnits(job) {
  const stage = (job.stages || []).find((s) => s.kernel_units);
  if (!stage) return null;
  const k = stage.kernel_units;
  const units = k.units || [];
  const row = (u) => h('tr', { class: `state-${u.state}`, 'data-unit': u.path },
    h('td', {}, h('code', {}, u.path)),
    h('td', {}, stateBadge(u.state)),
    h('td', {}, u.duration_ms != null ? `${(u.duration_ms / 1000).toFixed(1)} s` : '—'),
    h('td', {}, u.error ? h('code', {}, u.error) : ''));
  const head = h('thead', {}, h('tr', {},
    h('th', {}, t('jobs.unit')), h('th', {}, t('col.state')), h('th', {}, t('col.duration')), h('th', {}, t('jobs.first_error'))));
  return h('section', { id: 'kernel-units' },
    h('h3', {}, k.arch ? t('jobs.kernel_units', { arch: k.arch, count: units.length }) : t('jobs.kernel_units_host', { count: units.length })),
    h('p', { class: 'status-line' }, k.note || ''),
    h('table', { class: 'data' }, head, h('tbody', {}, units.map(row))));
}

// The log that explains the job: the running stage's; else the stage that stopped it; else, when no
// stage ever ran, the checkout's; else the last stage that ran.
function logToShow(job) {
  const stages = job.stages || [];
  const running = stages.find((s) => s.state === 'running');
  if (running) return running.name;
  const started = stages.filter((s) => s.started_at);
  const stopper = started.find((s) => ['failed', 'timed_out', 'lost', 'cancelled'].includes(s.state));
  if (stopper) return stopper.name;
  if (!started.length) return 'checkout';
  return started[started.length - 1].name;
}

async function findJob(id) {
  const one = await optionalJson(`/api/v1/jobs/${encodeURIComponent(id)}`);
  if (one.data && one.data.id !== undefined) return one.data;
  const all = await getJson('/api/v1/jobs');
  return all.jobs.find((j) => String(j.id) === String(id)) || null;
}

export async function jobPage(main, { id }) {
  main.append(h('p', { class: 'crumbs' }, h('a', { href: '/jobs' }, t('nav.jobs')), ' › ', id), pageHeader(t('jobs.job', { id })));
  const probe = await optionalJson('/api/v1/jobs?state=running');
  if (probe.missing) {
    main.append(unavailableNotice('feature.jobs'));
    return null;
  }
  let job = await findJob(id);
  if (!job) {
    main.append(notice('empty', t('jobs.not_found', { id })));
    return null;
  }
  const head = h('div', { class: 'job-head' });
  const timelineBox = h('section', {});
  // The checkout has a log too: a job that failed before any stage ran shows why there.
  const stageNames = ['checkout', ...(job.stages || []).map((s) => s.name)];
  let stage = logToShow(job);
  const log = h('pre', { class: 'log', id: 'job-log', tabindex: '0', 'aria-label': t('jobs.log') });
  const logStatus = h('p', { class: 'status-line', role: 'status' });
  let offset = 0;
  let timer = null;
  let stopped = false;

  function drawHead() {
    const runner = job.runner || {};
    head.replaceChildren(h('dl', { class: 'meta' },
      h('dt', {}, t('col.fork')), h('dd', {}, h('a', { href: forkHref(job.fork) }, job.fork)),
      h('dt', {}, t('col.state')), h('dd', {}, stateBadge(job.state)),
      h('dt', {}, t('col.sha')), h('dd', {}, h('code', {}, job.sha || '—')),
      h('dt', {}, t('col.executor')), h('dd', {}, `${job.executor || '—'}${job.recipe ? ` · ${job.recipe}` : ''}`),
      h('dt', {}, t('jobs.runner')), h('dd', {}, [runner.name || runner.host || '', (runner.gpus || []).map((g) => (typeof g === 'string' ? g : g.model || g.name || JSON.stringify(g))).join(', ') || t('jobs.no_gpu')].filter(Boolean).join(' · ')),
      h('dt', {}, t('col.created')), h('dd', {}, formatTime(job.created_at)),
      h('dt', {}, t('col.duration')), h('dd', {}, duration(job)),
      FINAL.has(job.state) ? [h('dt', {}, t('jobs.outcome')), h('dd', { id: 'job-outcome', class: job.error ? 'outcome-error' : '' }, t(job.state === 'passed' ? 'jobs.outcome_passed' : job.error ? 'jobs.outcome_error' : 'jobs.outcome_failure'))] : null,
      job.reason ? [h('dt', {}, t('jobs.reason')), h('dd', { id: 'job-reason' }, messageOf(job, 'reason'))] : null));
    timelineBox.replaceChildren(h('h2', {}, t('jobs.timeline')), timeline(job), kernelUnits(job));
  }

  async function pollLog() {
    timer = null;
    if (stopped || !stage) return;
    try {
      const chunk = await getJson(`/api/v1/jobs/${encodeURIComponent(id)}/log${query({ stage, offset })}`);
      if (stopped) return;
      if (chunk.data) log.append(chunk.data);
      offset = chunk.next_offset ?? offset + (chunk.data || '').length;
      const running = !FINAL.has(job.state);
      if (!chunk.eof || running) {
        if (chunk.eof) {
          job = (await findJob(id)) || job;
          drawHead();
        }
        timer = setTimeout(pollLog, LOG_POLL_MS);
        logStatus.textContent = t('jobs.log_live');
      } else {
        logStatus.textContent = t('jobs.log_end');
      }
    } catch (err) {
      logStatus.replaceChildren(errorNotice(err));
    }
  }

  drawHead();
  main.append(head, timelineBox);
  if (stageNames.length) {
    main.append(h('section', {}, h('h2', {}, t('jobs.log')),
      selectFilter({ id: 'log-stage', label: t('jobs.stage'), options: stageNames.map((n) => [n, n === 'checkout' ? t('jobs.checkout') : n]), value: stage, onchange: (v) => { stage = v; offset = 0; log.replaceChildren(); if (timer) clearTimeout(timer); pollLog(); } }),
      logStatus, log));
    await pollLog();
  }
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}

// Failures said where users look, and the smaller things users hit (issue 14): a fork whose syncs fail
// shows its last error on the forks and fork pages; a job whose checkout failed shows its reason, that it
// is an error, and a non-empty log; stage chips coloured by state; hunk anchors from 1; plurals; the risk
// score explained; a drift chart with one point; the violations table paginated; alert figures in words.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDaemon } from './support/daemon.mjs';
import { openBrowser, screenshot, settled } from './support/browser.mjs';

let daemon;
let browser;
let page;
let work;

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' };
const git = (cwd, ...args) => execFileSync('git', ['-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args], { cwd, env: GIT_ENV }).toString().trim();

// An upstream and a fork whose head records a submodule at a url the URL policy refuses.
function reposWithRefusedSubmodule(dir) {
  const up = join(dir, 'up');
  mkdirSync(up);
  git(up, 'init', '-q');
  writeFileSync(join(up, 'setup.py'), "print('setup')\n");
  git(up, 'add', '-A');
  git(up, 'commit', '-q', '-m', 'upstream');
  const fork = join(dir, 'fork');
  git(dir, 'clone', '-q', up, fork);
  const sha = git(fork, 'rev-parse', 'HEAD');
  writeFileSync(join(fork, '.gitmodules'), '[submodule "third/x"]\n\tpath = third/x\n\turl = https://example.com/x.git\n');
  git(fork, 'update-index', '--add', '--cacheinfo', `160000,${sha},third/x`);
  git(fork, 'add', '.gitmodules');
  git(fork, 'commit', '-q', '-m', 'a submodule from elsewhere');
  return { up, fork };
}

// Polls a submitted job (at most 30 s) until it has finished.
async function finished(submitted) {
  let job = submitted;
  for (let i = 0; i < 300 && ['queued', 'running'].includes(job.state); ++i) {
    await sleep(100);
    job = (await daemon.api('GET', `/api/v1/jobs/${job.id}`)).json;
  }
  return job;
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'forkscope-status-'));
  mkdirSync(join(work, 'recipes'));
  writeFileSync(join(work, 'recipes', 'build.toml'), '[stages.build]\nrun = "true"\n[stages.smoke]\nrun = "true"\n');
  // The host compiler on CUDA sources: each kernel unit fails with g++'s first error.
  writeFileSync(join(work, 'recipes', 'kernels.toml'), '[stages.kernels]\ncompiler = "g++"\narch = ""\nflags = ["-x", "c++", "-fsyntax-only"]\n');
  writeFileSync(join(work, 'forkscope.toml'), `[jobs]\nrecipe_dir = "${join(work, 'recipes')}"\nnvidia_smi = "/nonexistent/nvidia-smi"\n`);
  daemon = await startDaemon({ args: ['--allow-local-repos', '--config', join(work, 'forkscope.toml')] });
  browser = await openBrowser();
  page = await browser.page();
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('a fork whose syncs fail says when and why on the forks page and its own page', async () => {
  // Two repositories that answer at registration and are moved away after the first sync.
  for (const name of ['missing', 'missing-up']) {
    mkdirSync(join(work, name));
    git(join(work, name), 'init', '-q');
    git(join(work, name), 'commit', '-q', '--allow-empty', '-m', 'x');
  }
  const created = await daemon.api('POST', '/api/v1/forks', { body: { name: 'broken', fork_url: join(work, 'missing'), upstream_url: join(work, 'missing-up') } });
  assert.equal(created.status, 201, created.text);
  const first = (await daemon.api('GET', '/api/v1/tasks?state=all&kind=sync&fork=broken')).json.tasks;
  assert.equal(first.length, 1, 'the registration queues the first sync');
  await daemon.waitForTask(first[0].id);
  for (let i = 0; i < 100 && (await daemon.api('GET', '/api/v1/tasks?fork=broken')).json.tasks.length > 0; ++i) await sleep(100);
  for (const name of ['missing', 'missing-up']) rmSync(join(work, name), { recursive: true, force: true });
  for (let i = 0; i < 2; ++i) {
    const sync = await daemon.api('POST', '/api/v1/forks/broken/sync');
    assert.equal((await daemon.waitForTask(sync.json.task)).state, 'failed');
  }
  for (let i = 0; i < 100 && (await daemon.api('GET', '/api/v1/forks/broken')).json.sync.failures_in_a_row < 2; ++i) await sleep(100);
  await page.goto(daemon.url + '/');
  await settled(page);
  const row = page.locator('#forks-table tbody tr', { hasText: 'broken' });
  const failure = row.locator('.sync-error');
  await failure.waitFor();
  assert.match(await failure.textContent(), /failed .* · 2 failures in a row/);
  assert.match(await failure.locator('.sync-error-message').textContent(), /missing/);
  // In the table the error is cut to a line; its tooltip holds the whole text.
  const lastError = (await daemon.api('GET', '/api/v1/forks/broken')).json.sync.last_error;
  assert.equal(await failure.locator('.sync-error-message').getAttribute('title'), lastError);
  await screenshot(page, 'forks-sync-error');

  await page.goto(daemon.url + '/forks/broken');
  await settled(page);
  assert.match(await page.locator('.sync-error').textContent(), /2 failures in a row/);
  // On the fork's own page the whole error shows, nothing cut off.
  const whole = page.locator('.sync-error .sync-error-message');
  assert.equal(await whole.textContent(), lastError);
  assert.ok(await whole.evaluate((el) => el.scrollWidth <= el.clientWidth && getComputedStyle(el).textOverflow !== 'ellipsis'),
    'the error is cut off on the fork page');
  browser.errors.length = 0;  // the never-analysed fork's analysis answers 404, as it should
});

test('a job whose checkout failed shows the reason, that it is an error, and the checkout log', async () => {
  const { up, fork } = reposWithRefusedSubmodule(work);
  assert.equal((await daemon.api('POST', '/api/v1/forks', { body: { name: 'withsub', fork_url: fork, upstream_url: up } })).status, 201);
  const sync = await daemon.api('POST', '/api/v1/forks/withsub/sync');
  assert.equal((await daemon.waitForTask(sync.json.task)).state, 'succeeded');
  const submitted = await daemon.api('POST', '/api/v1/forks/withsub/jobs', { body: { recipe: 'build' } });
  assert.equal(submitted.status, 202, submitted.text);
  const job = await finished(submitted.json);
  assert.equal(job.state, 'failed');
  assert.equal(job.error, true);

  await page.goto(daemon.url + `/jobs/${job.id}`);
  await settled(page);
  assert.match(await page.locator('#job-outcome').textContent(), /^error/);
  assert.match(await page.locator('#job-reason').textContent(), /^checkout: submodule third\/x: .*example\.com/);
  assert.equal(await page.inputValue('#log-stage'), 'checkout');
  await page.waitForFunction(() => document.getElementById('job-log').textContent.includes('checkout failed'));
  // Stage chips are coloured by their state: skipped differs from the neutral chip.
  const colours = await page.locator('#stage-timeline li.stage').evaluateAll((els) => els.map((e) => getComputedStyle(e).backgroundColor));
  for (const c of colours) assert.notEqual(c, 'rgba(0, 0, 0, 0)');
  await screenshot(page, 'job-checkout-error');
  assert.deepEqual(browser.errors, []);
});

test('a job page lists the kernels stage units with their state, time and first compiler error', async () => {
  const submitted = await daemon.api('POST', '/api/v1/forks/fastops-paddle/jobs', { body: { recipe: 'kernels' } });
  assert.equal(submitted.status, 202, submitted.text);
  const job = await finished(submitted.json);
  assert.equal(job.state, 'failed', JSON.stringify(job));
  const units = job.stages[0].kernel_units;
  assert.equal(units.how, 'build');
  assert.ok(units.units.length >= 1);
  assert.equal(job.stages[0].reason_code, 'stage.kernel_unit');

  await page.goto(daemon.url + `/jobs/${job.id}`);
  await settled(page);
  const rows = page.locator('#kernel-units tbody tr');
  assert.equal(await rows.count(), units.units.length);
  const first = rows.first();
  assert.equal(await first.getAttribute('data-unit'), units.units[0].path);
  assert.match(await first.textContent(), /failed/);
  assert.ok((await first.textContent()).includes(units.units[0].error), 'the first compiler error is shown');
  assert.match(await page.locator('#job-reason').textContent(), /kernel unit\(s\) failed to compile; first csrc\/fastops_kernels\.cu: /);
  await screenshot(page, 'job-kernel-units');
  assert.deepEqual(browser.errors, []);
});

test('hunk anchors count from 1; counts are in the right plural', async () => {
  const files = (await daemon.api('GET', '/api/v1/forks/fastops-paddle/files')).json.files;
  const one = files.find((f) => f.hunks.length === 1);
  const many = files.find((f) => f.hunks.length > 1);
  assert.ok(one && many, 'the demo has files with one and with several hunks');
  await page.goto(daemon.url + `/forks/fastops-paddle/files/${many.path}`);
  await settled(page);
  assert.equal(await page.locator('section.hunk').first().getAttribute('id'), 'hunk-1');
  assert.equal(await page.locator('section.hunk h2 a').first().textContent(), 'Hunk 1');
  assert.match(await page.locator('.file-meta').textContent(), new RegExp(`· ${many.hunks.length} hunks$`));
  await page.goto(daemon.url + `/forks/fastops-paddle/files/${one.path}`);
  await settled(page);
  assert.match(await page.locator('.file-meta').textContent(), /· 1 hunk$/);
  assert.deepEqual(browser.errors, []);
});

test('the fork page: "The layers" over five, violations in a paginated table', async () => {
  await page.goto(daemon.url + '/forks/fastops-paddle');
  await settled(page);
  assert.equal(await page.locator('section.summary h2').textContent(), 'The layers');
  assert.equal(await page.locator('#layer-summary tbody tr').count(), 5);
  const analysis = (await daemon.api('GET', '/api/v1/forks/fastops-paddle/analysis')).json;
  if (analysis.violations.length) {
    await page.locator('#violations-table').waitFor();
    assert.equal(await page.locator('#violations-table tbody tr').count(), Math.min(25, analysis.violations.length));
    assert.equal(await page.locator('#violations-table-page-size').count(), 1);
  }
  assert.deepEqual(browser.errors, []);
});

test('drift: the risk score is explained; one measurement still draws, with whole-number axes', async () => {
  await page.goto(daemon.url + '/drift?fork=fastops-native');
  await settled(page);
  assert.match(await page.locator('#risk-explained').textContent(), /10 per predicted conflict/);
  await page.waitForFunction(() => !!window.Chart.getChart(document.getElementById('drift-chart')));
  const history = (await daemon.api('GET', '/api/v1/forks/fastops-native/drift?history=100')).json.history || [];
  if (history.length <= 1) assert.equal(await page.locator('#drift-one-point').count(), 1);
  const ticks = await page.evaluate(() => window.Chart.getChart(document.getElementById('drift-chart')).scales.y.ticks.map((t) => t.value));
  assert.ok(ticks.every(Number.isInteger), `ticks ${ticks}`);
  assert.deepEqual(browser.errors, []);
});

test('alerts: the figures are said in words, not "(12 / 0)"', async () => {
  const open = (await daemon.api('GET', '/api/v1/alerts?state=open')).json.alerts;
  if (!open.length) return;
  await page.goto(daemon.url + '/alerts?state=open');
  await settled(page);
  const figures = await page.locator('#alerts-table .alert-figures').allTextContents();
  assert.equal(figures.length, open.length);
  for (const f of figures) assert.doesNotMatch(f, /^\d+ \/ \d+$/);
  assert.deepEqual(browser.errors, []);
});

// The forks overview against the real daemon with the demo data: both demo forks with their layer
// bars, label filter, sorting, a sync started from the page with a token, no console errors.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ADMIN_TOKEN, repoRoot, startDaemon } from './support/daemon.mjs';
import { openBrowser, screenshot, settled } from './support/browser.mjs';

let daemon;
let browser;
let page;

before(async () => {
  daemon = await startDaemon();
  browser = await openBrowser();
  page = await browser.page();
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
});

const forkNames = () => page.locator('#forks-table tbody a.fork-link').allTextContents();

test('overview lists the demo forks with their layer bars', async () => {
  const calls = [];
  const onRequest = (req) => {
    const path = new URL(req.url()).pathname;
    if (path.startsWith('/api/')) calls.push(path);
  };
  page.on('request', onRequest);
  await page.goto(daemon.url + '/');
  await settled(page);
  assert.deepEqual(await forkNames(), ['fastops-native', 'fastops-paddle']);
  // Every column comes with the fork list: no fork's whole analysis, drift report or job list is fetched.
  page.off('request', onRequest);
  assert.deepEqual([...new Set(calls)].sort(), ['/api/v1/candidates', '/api/v1/forks', '/api/v1/tasks']);
  // The compat fork touches every layer.
  const paddleRow = page.locator('#forks-table tbody tr', { has: page.locator('a', { hasText: 'fastops-paddle' }) });
  await paddleRow.locator('.layer-bar .layer-seg').first().waitFor();
  // Its merge-base age, from its drift report, in the age column.
  const drift = (await daemon.api('GET', '/api/v1/forks/fastops-paddle/drift')).json;
  const age = await page.evaluate(() => {
    const headers = [...document.querySelectorAll('#forks-table thead th')];
    const col = headers.findIndex((th) => th.querySelector('button[data-sort="age"]'));
    const row = [...document.querySelectorAll('#forks-table tbody tr')].find((tr) => tr.textContent.includes('fastops-paddle'));
    return row.children[col].textContent;
  });
  assert.match(age, new RegExp(`^${Math.round(drift.merge_base_age_days)}\\b`), `age cell "${age}" for ${drift.merge_base_age_days} days`);
  const layers = await paddleRow.locator('.layer-seg').evaluateAll((els) => els.map((e) => e.dataset.layer));
  assert.deepEqual(layers, ['kernel', 'build', 'cpp_compat', 'python', 'other']);
  const label = await paddleRow.locator('.layer-bar').getAttribute('aria-label');
  assert.match(label, /kernel \d+/);
  // The demo's upstream moved on by 4 commits after the compat fork was cut; the fork has 1 of its own.
  assert.equal((await paddleRow.locator('.behind-ahead').textContent()).trim(), '4 / 1');
  assert.equal(await paddleRow.locator('code').first().textContent(), 'paddle');
  await screenshot(page, 'overview');
});

test('index.html preloads every module of the dashboard, and nothing else', () => {
  const pub = join(repoRoot, 'web', 'public');
  const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.js') ? [`/${relative(pub, join(dir, e.name))}`] : []);
  const modules = walk(join(pub, 'assets', 'js')).sort();
  const html = readFileSync(join(pub, 'index.html'), 'utf8');
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]).sort();
  assert.deepEqual(preloaded, modules);
});

test('the label filter keeps only the forks carrying the label, and survives a reload', async () => {
  await page.goto(daemon.url + '/');
  await settled(page);
  await page.selectOption('#label-filter', 'native');
  assert.deepEqual(await forkNames(), ['fastops-native']);
  assert.match(page.url(), /label=native/);
  await page.reload();
  await settled(page);
  assert.equal(await page.inputValue('#label-filter'), 'native');
  assert.deepEqual(await forkNames(), ['fastops-native']);
  await page.selectOption('#label-filter', '');
  assert.deepEqual(await forkNames(), ['fastops-native', 'fastops-paddle']);
});

test('column headers sort the rows and say how', async () => {
  await page.goto(daemon.url + '/');
  await settled(page);
  const nameHeader = page.locator('#forks-table th', { has: page.locator('button[data-sort="name"]') });
  assert.equal(await nameHeader.getAttribute('aria-sort'), 'ascending');
  await page.click('button[data-sort="name"]');
  assert.equal(await nameHeader.getAttribute('aria-sort'), 'descending');
  assert.deepEqual(await forkNames(), ['fastops-paddle', 'fastops-native']);
  // Violations: the native port has more of them (both forks are analysed by now).
  await page.locator('#forks-table .layer-bar').nth(1).waitFor();
  await page.click('button[data-sort="violations"]');
  const ascending = await forkNames();
  await page.click('button[data-sort="violations"]');
  assert.deepEqual(await forkNames(), [...ascending].reverse());
});

test('a sync started from the page asks for a token, then shows the task until it finishes', async () => {
  await page.goto(daemon.url + '/');
  await settled(page);
  const before = await daemon.api('GET', '/api/v1/forks/fastops-paddle');
  const button = page.getByRole('button', { name: 'Sync fastops-paddle now' });
  await button.click();
  await page.locator('#token-dialog[open]').waitFor();
  await page.fill('#token-input', ADMIN_TOKEN);
  const posted = page.waitForResponse((r) => r.url().endsWith('/api/v1/forks/fastops-paddle/sync'));
  await page.click('#token-save');
  const response = await posted;
  assert.equal(response.status(), 202);
  const { task } = await response.json();
  const done = await daemon.waitForTask(task);
  assert.equal(done.state, 'succeeded');
  // The page polls /api/v1/tasks and re-enables the button once the task is gone.
  await page.waitForFunction(() => {
    const b = [...document.querySelectorAll('button.sync-button')].find((x) => x.getAttribute('aria-label').includes('fastops-paddle'));
    return b && !b.disabled && !document.querySelector('.sync-progress');
  });
  const after = await daemon.api('GET', '/api/v1/forks/fastops-paddle');
  assert.ok(after.json.latest_analysis_id >= before.json.latest_analysis_id);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('forkscope.token')), ADMIN_TOKEN);
  assert.deepEqual(browser.errors, []);
});

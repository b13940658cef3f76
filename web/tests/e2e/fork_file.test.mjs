// Fork page and file diff against the real daemon with the demo data: click through fork → file →
// hunk and see the diff with its layer, filter files by layer, download the Markdown report, reload
// a deep link, and drive it all from the keyboard.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startDaemon } from './support/daemon.mjs';
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

const filePaths = () => page.locator('#files-table tbody a.file-link').allTextContents();

test('fork → file → hunk: the diff is drawn by diff2html and marked with its layer', async () => {
  await page.goto(daemon.url + '/');
  await settled(page);
  await page.click('a.fork-link:text-is("fastops-paddle")');
  await page.waitForURL('**/forks/fastops-paddle');
  await settled(page);
  assert.equal(await page.locator('h1').textContent(), 'fastops-paddle');
  // The four-layer chart (Chart.js) and its table.
  assert.ok(await page.evaluate(() => !!window.Chart.getChart(document.getElementById('layer-chart'))));
  assert.equal(await page.locator('#layer-summary tbody tr').count(), 5);
  await screenshot(page, 'fork');

  await page.click('#files-table a.file-link:text-is("csrc/fastops_kernels.cu")');
  await page.waitForURL('**/forks/fastops-paddle/files/csrc/fastops_kernels.cu');
  await settled(page);
  const hunks = page.locator('section.hunk');
  assert.equal(await hunks.count(), 2);
  // A .cu file mixes layers: its kernel hunk and its binding hunk are told apart.
  const layers = await hunks.evaluateAll((els) => els.map((e) => e.dataset.layer));
  assert.deepEqual([...layers].sort(), ['cpp_compat', 'kernel']);
  for (let i = 0; i < 2; i++) {
    const hunk = hunks.nth(i);
    assert.equal(await hunk.locator('.hunk-marks .badge.layer').getAttribute('data-layer'), layers[i]);
    await hunk.locator('.d2h-file-wrapper').waitFor();
    assert.ok((await hunk.locator('.d2h-ins, .d2h-del').count()) > 0, 'diff2html drew added or deleted lines');
  }
  // Violations and compat gaps are shown on the hunk they belong to.
  const text = await page.locator('main').textContent();
  assert.match(text, /compat-gap-no-removal/);
  assert.match(text, /Compat gap: at::cuda::getCurrentCUDAStream/);
  await screenshot(page, 'file');
});

// Waits until the files table lists exactly `paths` (each filter change is a request; the last wins).
async function expectFiles(paths) {
  await page.waitForFunction(
    (want) => JSON.stringify([...document.querySelectorAll('#files-table tbody a.file-link')].map((a) => a.textContent)) === want,
    JSON.stringify(paths),
  ).catch(() => {});
  assert.deepEqual(await filePaths(), paths);
}

test('the files table filters by layer, pattern and violation through the API', async () => {
  await page.goto(daemon.url + '/forks/fastops-paddle');
  await settled(page);
  const all = await filePaths();
  assert.equal(all.length, 11);
  await Promise.all([page.waitForResponse((r) => r.url().includes('/files?layer=build')), page.selectOption('#layer-filter', 'build')]);
  await expectFiles(['pyproject.toml', 'setup.py']);
  const badges = await page.locator('#files-table tbody .badge.layer').evaluateAll((els) => els.map((e) => e.dataset.layer));
  assert.deepEqual(badges, ['build', 'build']);
  assert.match(page.url(), /layer=build/);
  await page.selectOption('#layer-filter', '');
  await expectFiles(all);
  await page.selectOption('#pattern-filter', 'build.global-enable-compat');
  await expectFiles(['setup.py']);
  await page.selectOption('#pattern-filter', '');
  await page.selectOption('#violation-filter', 'kernel-edit');
  await expectFiles(['fastops/ops.py']);
});

test('the Markdown report downloads', async () => {
  await page.goto(daemon.url + '/forks/fastops-paddle');
  await settled(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-report')]);
  assert.equal(download.suggestedFilename(), 'fastops-paddle-analysis.md');
  const text = readFileSync(await download.path(), 'utf8');
  const served = await daemon.api('GET', '/api/v1/forks/fastops-paddle/analysis?format=markdown');
  assert.equal(text, served.text);
  assert.match(text, /setup\.py/);
});

test('a deep link to a hunk survives a reload', async () => {
  const link = daemon.url + '/forks/fastops-paddle/files/csrc/fastops_kernels.cu#hunk-1';
  await page.goto(link);
  await settled(page);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'hunk-1');
  await page.reload();
  await settled(page);
  assert.equal(page.url(), link);
  assert.equal(await page.locator('h1').textContent(), 'csrc/fastops_kernels.cu');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'hunk-1');
  // Back and forward move between pages without a reload.
  await page.goto(daemon.url + '/forks/fastops-paddle?layer=python');
  await settled(page);
  assert.equal(await page.inputValue('#layer-filter'), 'python');
  await page.goBack();
  await settled(page);
  assert.equal(await page.locator('h1').textContent(), 'csrc/fastops_kernels.cu');
});

test('keyboard: Tab reaches the links and rows, Enter opens them', async () => {
  await page.goto(daemon.url + '/');
  await settled(page);
  await page.locator('#forks-table .layer-bar').first().waitFor();
  // Tab until the first fork link has the focus (the header, filters and sort buttons come first).
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement.classList.contains('fork-link'))) break;
  }
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'fastops-native');
  await page.keyboard.press('Enter');
  await page.waitForURL('**/forks/fastops-native');
  await settled(page);
  // A focused table row opens with Enter too.
  const row = page.locator('#files-table tbody tr.clickable').first();
  const href = await row.getAttribute('data-href');
  await row.focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(`**${href}`);
  await settled(page);
  assert.ok((await page.locator('section.hunk, .notice').count()) > 0);
  assert.deepEqual(browser.errors, []);
});

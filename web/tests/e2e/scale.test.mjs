// Pages stay usable with 200 forks and a fork of 2,000 changed files: tables paginate (only a page
// of rows is in the DOM), filters still work. Data made through the real API and git fast-import.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createBigRepo } from './support/big_repo.mjs';
import { startDaemon } from './support/daemon.mjs';
import { openBrowser, screenshot, settled } from './support/browser.mjs';

const FORKS = 200;
const BIG_FILES = 2000;
let daemon;
let browser;
let page;

before(async () => {
  daemon = await startDaemon({ args: ['--allow-local-repos'] });
  const demo = join(daemon.dataDir, 'demo');
  const big = createBigRepo(join(daemon.dataDir, 'big.git'), BIG_FILES);
  const created = await daemon.api('POST', '/api/v1/forks', { body: { name: 'big-fork', fork_url: big, branch: 'paddle', upstream_url: big, upstream_branch: 'main', labels: ['big'] } });
  assert.equal(created.status, 201, created.text);
  for (let i = 0; i < FORKS - 3; i++) {
    const name = `bulk-${String(i).padStart(3, '0')}`;
    const res = await daemon.api('POST', '/api/v1/forks', {
      body: { name, fork_url: join(demo, 'fastops-paddle.git'), upstream_url: join(demo, 'fastops.git'), labels: ['bulk', i % 2 ? 'odd' : 'even'] },
    });
    assert.equal(res.status, 201, res.text);
  }
  // Sync them all (the 197 share mirrors, so each sync is a fetch and a cached analysis).
  const forks = (await daemon.api('GET', '/api/v1/forks')).json.forks;
  assert.equal(forks.length, FORKS);
  for (const f of forks.filter((x) => x.latest_analysis_id === null)) {
    assert.equal((await daemon.api('POST', `/api/v1/forks/${f.name}/sync`)).status, 202);
  }
  await daemon.waitForSyncs(300_000);
  browser = await openBrowser();
  page = await browser.page();
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
});

const pageInfo = () => page.locator('.page-info').first().textContent();

test('the overview pages through 200 forks', async () => {
  await page.goto(daemon.url + '/');
  await settled(page);
  assert.equal(await page.locator('#forks-table caption').textContent(), `${FORKS} registered forks`);
  assert.equal(await page.locator('#forks-table tbody tr').count(), 50);
  assert.equal(await pageInfo(), 'Page 1 of 4 · rows 1–50 of 200');
  const firstOnPage1 = await page.locator('#forks-table a.fork-link').first().textContent();
  await page.click('.pager .page-next');
  assert.equal(await pageInfo(), 'Page 2 of 4 · rows 51–100 of 200');
  const firstOnPage2 = await page.locator('#forks-table a.fork-link').first().textContent();
  assert.notEqual(firstOnPage2, firstOnPage1);
  assert.equal(firstOnPage2, 'bulk-049');  // sorted by name: big-fork, bulk-000 … so row 51 is bulk-049
  // Every row's analysis arrives (four requests at a time) and draws its layer bar.
  await page.waitForFunction(() => document.querySelectorAll('#forks-table .layer-bar').length === 50, null, { timeout: 120_000 });
  await page.selectOption('#label-filter', 'odd');
  assert.equal(await pageInfo(), 'Page 1 of 2 · rows 1–50 of 98');
  await page.selectOption('#label-filter', '');
  await page.selectOption('#forks-table-page-size', '200');
  assert.equal(await page.locator('#forks-table tbody tr').count(), 200);
  await screenshot(page, 'scale-overview');
});

test('a fork of 2,000 changed files pages and filters its files', async () => {
  await page.goto(daemon.url + '/forks/big-fork');
  await settled(page);
  assert.equal(await page.locator('.files .status-line').textContent(), `${BIG_FILES} of ${BIG_FILES} files`);
  assert.equal(await page.locator('#files-table tbody tr').count(), 50);
  assert.equal(await pageInfo(), 'Page 1 of 40 · rows 1–50 of 2000');
  await page.click('.files .page-next');
  assert.equal(await pageInfo(), 'Page 2 of 40 · rows 51–100 of 2000');
  assert.equal(await page.locator('#files-table tbody tr').count(), 50);
  await page.selectOption('#layer-filter', 'kernel');
  await page.waitForFunction(() => document.querySelector('.files .status-line').textContent.startsWith('500 '));
  assert.equal(await pageInfo(), 'Page 1 of 10 · rows 1–50 of 500');
  const layers = new Set(await page.locator('#files-table tbody .badge.layer').evaluateAll((els) => els.map((e) => e.dataset.layer)));
  assert.deepEqual([...layers], ['kernel']);
  await page.locator('#files-table a.file-link').first().click();
  await settled(page);
  assert.equal(await page.locator('section.hunk').count(), 1);
  await screenshot(page, 'scale-fork');
});

test('the patterns heatmap renders across 200 forks', async () => {
  await page.goto(daemon.url + '/patterns');
  await settled(page);
  const forkColumns = await page.locator('#pattern-heatmap thead th.fork-col').count();
  assert.ok(forkColumns >= FORKS - 3, `heatmap has ${forkColumns} fork columns`);
  assert.deepEqual(browser.errors, []);
});

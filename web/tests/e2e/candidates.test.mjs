// Sync candidates against the real daemon with the demo data: the demo upstream moved after the forks
// were cut, so the start-up syncs carry both forks (the demo has no recipes: a clean candidate ends
// unvalidated, a conflict shows each region's two sides as diffs). The forks page's column, the fork
// page's section (range-diff, conflicts, publish commands), Carry now with a token, Chinese, no console
// errors, named controls.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN_TOKEN, startDaemon } from './support/daemon.mjs';
import { openBrowser, screenshot, settled, unnamedControls } from './support/browser.mjs';

let daemon;
let browser;
let page;
let latest = [];

const DECIDED = new Set(['conflict', 'ready', 'failed', 'unvalidated']);

before(async () => {
  daemon = await startDaemon();
  browser = await openBrowser();
  page = await browser.page();
  // The carries run after the start-up syncs, on their own worker.
  const deadline = Date.now() + 120_000;
  for (;;) {
    const r = await daemon.api('GET', '/api/v1/candidates');
    latest = r.json?.candidates || [];
    if (latest.length === 2 && latest.every((c) => DECIDED.has(c.state))) break;
    if (Date.now() > deadline) throw new Error(`candidates not decided: ${r.text}\n${daemon.log()}`);
    await sleep(200);
  }
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
});

test('forks page: a column with each fork\'s newest candidate, linking to it', async () => {
  await page.goto(daemon.url + '/');
  await settled(page);
  const links = page.locator('#forks-table a.candidate-link');
  await links.first().waitFor();
  assert.equal(await links.count(), 2);
  for (const c of latest) {
    const row = page.locator('#forks-table tbody tr', { has: page.locator(`a.fork-link:text-is("${c.fork}")`) });
    assert.equal(await row.locator('a.candidate-link .badge').getAttribute('data-state'), c.state);
  }
});

test('fork page: the section shows each candidate with its range-diff or its conflicts', async () => {
  for (const c of latest) {
    await page.goto(`${daemon.url}/forks/${c.fork}?candidate=${c.id}#candidates`);
    await settled(page);
    assert.equal(await page.locator('#candidates h2').textContent(), 'Sync candidates');
    assert.ok((await page.locator('#candidates-table tbody tr').count()) >= 1);
    const detail = page.locator('#candidate-detail');
    assert.equal(await detail.getAttribute('data-state'), c.state);
    if (c.state === 'conflict') {
      assert.equal(await page.locator('#candidate-detail details.conflict').count(), c.conflicting_paths);
      // The summary comes before the paths, each path collapsed until opened; the layer summary is above.
      await page.locator('#conflict-summary').waitFor();
      assert.ok(await page.evaluate(() => document.querySelector('#layer-summary').compareDocumentPosition(document.querySelector('#candidates')) & Node.DOCUMENT_POSITION_FOLLOWING));
      const first = page.locator('#candidate-detail details.conflict').first();
      assert.equal(await first.getAttribute('open'), null);
      await first.locator('summary').click();
      // Each region as two diffs: base -> upstream and base -> fork.
      if ((await first.locator('.region').count()) > 0) {
        await first.locator('.region .d2h-file-wrapper').first().waitFor();
        assert.equal(await first.locator('.region').first().locator('.d2h-file-wrapper').count(), 2);
      }
      assert.equal(await page.locator('#publish-commands').count(), 0);
    } else {
      assert.equal(await page.locator('#range-diff tbody tr').count(), c.applied + c.dropped);
      const commands = await page.locator('#publish-commands').textContent();
      assert.match(commands, /^git fetch .* refs\/forkscope\/candidates\//);
      // Pushes are offered for a ready candidate only: the demo's (no recipe) get the fetch alone.
      if (c.state !== 'ready') assert.equal(commands.split('\n').length, 1);
      assert.equal(await page.locator('#candidates-table thead th', { hasText: 'Published' }).count(), 1);
    }
    await screenshot(page, `candidates-${c.fork}`);
  }
  assert.deepEqual(await unnamedControls(page), []);
});

test('Carry now asks for a token and queues a carry', async () => {
  const fork = latest[0].fork;
  await page.goto(`${daemon.url}/forks/${fork}`);
  await settled(page);
  await page.evaluate(() => sessionStorage.removeItem('forkscope.token'));
  await page.getByRole('button', { name: `Carry ${fork} onto upstream now` }).click();
  await page.locator('#token-dialog[open]').waitFor();
  await page.fill('#token-input', ADMIN_TOKEN);
  const posted = page.waitForResponse((r) => r.url().endsWith(`/api/v1/forks/${fork}/carry`));
  await page.click('#token-save');
  const response = await posted;
  assert.equal(response.status(), 202);
  const { task } = await response.json();
  await page.locator('#candidates .notice', { hasText: `Carry queued as task ${task}` }).waitFor();
  const done = await daemon.waitForTask(task);
  assert.equal(done.state, 'succeeded');
  assert.equal(done.candidate_id, latest[0].id);  // the same fork head onto the same target: not carried again
});

test('in Chinese, and the candidate strings exist in both languages', async () => {
  await page.goto(`${daemon.url}/forks/${latest[0].fork}`);
  await settled(page);
  await page.selectOption('#lang-select', 'zh');
  await settled(page);
  assert.equal(await page.locator('#candidates h2').textContent(), '同步候选');
  const diff = await page.evaluate(async () => {
    const { carryEn, carryZh } = await import('/assets/js/strings_carry.js');
    return [Object.keys(carryEn).filter((k) => !(k in carryZh)), Object.keys(carryZh).filter((k) => !(k in carryEn))];
  });
  assert.deepEqual(diff, [[], []]);
  await page.selectOption('#lang-select', 'en');
  await settled(page);
  assert.deepEqual(browser.errors, []);
});

// A maintainer's first hour (issue 25) against the real daemon with the demo data: the forks table fits
// a 1280 px screen in English and Chinese, with each fork's name beside its Sync button (and still in
// view when a narrow window scrolls the table); server text — an alert, a candidate's reason, a
// violation, a conflict's kind — reads in Chinese in the Chinese UI; the "invalid token" banner goes
// once a good token is used; the file page's status agrees with the diff's badge; a compat gap's line
// is marked; the fork page has the moves table of the Markdown report.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, startDaemon } from './support/daemon.mjs';
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

async function useLanguage(lang) {
  await page.goto(daemon.url + '/');
  await settled(page);
  await page.evaluate((l) => localStorage.setItem('forkscope.lang', l), lang);
}

// Layout facts of the forks table, measured in the page.
function measureForksTable() {
  return page.evaluate(() => {
    const wrap = document.querySelector('#forks-table').closest('.table-wrap');
    const lineBoxes = (el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
    };
    const headers = [...document.querySelectorAll('#forks-table thead th')]
      .filter((th) => getComputedStyle(th).display !== 'none')
      .map((th) => {
        const label = (th.querySelector('button.sort') || th).firstChild;  // the label's text, not the sort mark
        return { text: label.textContent.trim(), lines: lineBoxes(label) };
      });
    const rows = [...document.querySelectorAll('#forks-table tbody tr')].map((tr) => {
      const name = tr.querySelector('a.fork-link').getBoundingClientRect();
      const button = tr.querySelector('button.sync-button');
      const b = button.getBoundingClientRect();
      return { fork: tr.querySelector('a.fork-link').textContent, name: { left: name.left, right: name.right, top: name.top, bottom: name.bottom },
        button: { left: b.left, right: b.right, top: b.top, bottom: b.bottom }, buttonLines: lineBoxes(button), label: button.getAttribute('aria-label') };
    });
    return { scrollWidth: wrap.scrollWidth, clientWidth: wrap.clientWidth, docWidth: document.documentElement.scrollWidth, viewport: innerWidth, headers, rows };
  });
}

for (const lang of ['en', 'zh']) {
  test(`the forks table fits 1280 px in ${lang === 'en' ? 'English' : 'Chinese'}, each name beside its Sync button`, async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await useLanguage(lang);
    await page.goto(daemon.url + '/');
    await settled(page);
    await page.locator('#forks-table .layer-bar').nth(1).waitFor();
    const m = await measureForksTable();
    assert.ok(m.scrollWidth <= m.clientWidth, `the table overflows its box: ${m.scrollWidth} > ${m.clientWidth}`);
    assert.ok(m.docWidth <= m.viewport, `the page scrolls sideways: ${m.docWidth} > ${m.viewport}`);
    // No header breaks into one character a line (a two-character Chinese word stays on one line).
    for (const h of m.headers) {
      if (h.text.length >= 2) assert.ok(h.lines < [...h.text].length, `header "${h.text}" wraps on ${h.lines} lines`);
    }
    assert.equal(m.rows.length, 2);
    for (const r of m.rows) {
      assert.equal(r.buttonLines, 1, `the Sync button of ${r.fork} breaks onto ${r.buttonLines} lines`);
      assert.ok(r.button.right <= m.viewport && r.button.left >= 0, `the Sync button of ${r.fork} is off screen`);
      // Beside the name: on the same line, just to its right.
      assert.ok(r.button.top < r.name.bottom && r.name.top < r.button.bottom, `Sync of ${r.fork} is not on the name's line`);
      assert.ok(r.button.left >= r.name.right && r.button.left - r.name.right < 200, `Sync of ${r.fork} is not beside its name`);
      assert.match(r.label, new RegExp(r.fork));
    }
    if (lang === 'zh') assert.equal(await page.locator('button.sync-button').first().textContent(), '同步');
    await screenshot(page, `forks-1280-${lang}`);
  });
}

test('in a narrow window the table scrolls, and the fork name and its Sync button stay in view', async () => {
  await page.setViewportSize({ width: 760, height: 900 });
  await useLanguage('zh');
  await page.goto(daemon.url + '/');
  await settled(page);
  const wrap = page.locator('#forks-table').locator('xpath=ancestor::div[contains(@class, "table-wrap")]');
  const widths = await wrap.evaluate((w) => ({ scroll: w.scrollWidth, client: w.clientWidth }));
  assert.ok(widths.scroll > widths.client, 'at 760 px the table needs to scroll');
  await wrap.evaluate((w) => { w.scrollLeft = w.scrollWidth; });
  const box = await wrap.boundingBox();
  for (const fork of ['fastops-native', 'fastops-paddle']) {
    const name = await page.locator('#forks-table a.fork-link', { hasText: fork }).boundingBox();
    const button = await page.getByRole('button', { name: `立即同步 ${fork}` }).boundingBox();
    assert.ok(name.x >= box.x - 1 && name.x + name.width <= box.x + box.width, `${fork}'s name scrolled out of view`);
    assert.ok(button.x + button.width <= box.x + box.width, `${fork}'s Sync button scrolled out of view`);
  }
  await screenshot(page, 'forks-narrow-scrolled-zh');
  await page.setViewportSize({ width: 1360, height: 900 });
});

test('an alert, a candidate reason, a violation and a conflict kind read in Chinese', async () => {
  await page.setViewportSize({ width: 1360, height: 900 });
  await useLanguage('zh');
  const alerts = (await daemon.api('GET', '/api/v1/alerts?state=open')).json.alerts;
  const conflict = alerts.find((a) => a.rule === 'candidate-conflict');
  assert.ok(conflict, 'the demo raises a candidate-conflict alert');
  assert.equal(conflict.message_code, 'alert.candidate-conflict');
  await page.goto(daemon.url + '/alerts');
  await settled(page);
  const row = page.locator('#alerts-table tbody tr', { has: page.locator('code', { hasText: 'candidate-conflict' }) }).first();
  const text = await row.locator('.alert-message').textContent();
  assert.match(text, /重放到上游/);
  assert.match(text, /内容/);  // the conflicts' kind
  assert.match(text, /C\+\+ 兼容层|Python 层/);  // their layers
  assert.doesNotMatch(text, /carrying|stops at|conflicting path/);
  const predicted = page.locator('#alerts-table tbody tr', { has: page.locator('code', { hasText: 'predicted-conflict' }) }).first();
  assert.match(await predicted.locator('.alert-message').textContent(), /会在 2 个路径上冲突/);
  await screenshot(page, 'alerts-zh');

  await page.goto(daemon.url + '/forks/fastops-paddle');
  await settled(page);
  const reason = await page.locator('#candidate-reason').textContent();
  assert.match(reason, /^提交 [0-9a-f]{12} 无法应用：2 个冲突路径$/);
  const kinds = await page.locator('#candidate-detail details.conflict summary').allTextContents();
  assert.ok(kinds.some((k) => k.includes('内容冲突')), kinds.join(' | '));
  assert.ok(kinds.every((k) => !/content|冲突 /.test(k)), kinds.join(' | '));
  const messages = await page.locator('#violations-table .violation-message').allTextContents();
  assert.ok(messages.length > 0);
  assert.ok(messages.some((m) => m.includes('内核代码被修改')), messages.join(' | '));
  assert.ok(messages.some((m) => m.startsWith('上游文件被重命名或移动') && m.includes('fastops/helpers.py -> fastops/checks.py')), messages.join(' | '));
  for (const m of messages) assert.doesNotMatch(m, /upstream file|kernel code edited|hunk changes/);
  await screenshot(page, 'fork-zh');

  // Back in English the server's own text shows.
  await page.selectOption('#lang-select', 'en');
  await settled(page);
  assert.match(await page.locator('#candidate-reason').textContent(), /does not apply: 2 conflicting path\(s\)/);
  assert.deepEqual(browser.errors, []);
});

test('after a bad token is refused, a good one clears the "invalid token" banner', async () => {
  await useLanguage('en');
  await page.goto(daemon.url + '/');
  await settled(page);
  await page.getByRole('button', { name: 'Sync fastops-native now' }).click();
  await page.locator('#token-dialog[open]').waitFor();
  await page.fill('#token-input', 'not-the-token');
  const refused = page.waitForResponse((r) => r.url().endsWith('/api/v1/forks/fastops-native/sync'));
  await page.click('#token-save');
  assert.equal((await refused).status(), 401);
  const banner = page.locator('#action-status .notice-error');
  await banner.waitFor();
  assert.match(await banner.textContent(), /token/i);
  await screenshot(page, 'forks-bad-token');

  await page.getByRole('button', { name: 'Sync fastops-native now' }).click();  // the bad token was forgotten: asked again
  await page.locator('#token-dialog[open]').waitFor();
  await page.fill('#token-input', ADMIN_TOKEN);
  const accepted = page.waitForResponse((r) => r.url().endsWith('/api/v1/forks/fastops-native/sync'));
  await page.click('#token-save');
  const response = await accepted;
  assert.equal(response.status(), 202);
  await page.waitForFunction(() => !document.querySelector('#action-status .notice-error'));
  // The progress reads "queued" or "syncing · fetch fork 40%", never "queued · queued 0%".
  const progress = await page.locator('.sync-progress').allTextContents().catch(() => []);
  for (const p of progress) assert.doesNotMatch(p, /queued · queued|queued 0%/);
  await daemon.waitForTask((await response.json()).task);
  browser.errors.length = 0;  // the refused POST is logged by the browser as a 401, as it should be
});

test('the file page agrees with the diff badge, marks a compat gap\'s line; the fork page has the moves table', async () => {
  await useLanguage('en');
  const statuses = [['fastops-native', 'paddle_fastops/ops.py', 'added', 'ADDED'], ['fastops-paddle', 'fastops/legacy.py', 'deleted', 'DELETED'],
    ['fastops-paddle', 'csrc/bindings.cpp', 'modified', 'CHANGED']];
  for (const [fork, path, status, badge] of statuses) {
    await page.goto(`${daemon.url}/forks/${fork}/files/${path}`);
    await settled(page);
    assert.match(await page.locator('.file-meta').textContent(), new RegExp(status));
    const tags = await page.locator('.d2h-tag').allTextContents();
    assert.ok(tags.length > 0 && tags.every((tag) => tag.trim().toUpperCase() === badge), `${path}: ${tags.join(',')} for ${status}`);
  }

  const gaps = (await daemon.api('GET', '/api/v1/forks/fastops-paddle/analysis')).json.compat_gaps;
  const gap = gaps.find((g) => g.path === 'csrc/fastops_kernels.cu');
  assert.ok(gap && gap.api, 'the demo gap names its API');
  await page.goto(`${daemon.url}/forks/fastops-paddle/files/${gap.path}`);
  await settled(page);
  const marked = page.locator('tr.gap-line');
  assert.equal(await marked.count(), 1);
  assert.equal((await marked.locator('.line-num2').textContent()).trim(), String(gap.line));
  const detail = await page.locator('.gap-detail').first().textContent();
  assert.ok(detail.startsWith(`Compat gap: ${gap.api} → ${gap.bridge} · line ${gap.line}`), detail);
  assert.doesNotMatch(detail, /\?/);
  await screenshot(page, 'file-compat-gap');

  const moves = (await daemon.api('GET', '/api/v1/forks/fastops-native/analysis')).json.moves;
  await page.goto(`${daemon.url}/forks/fastops-native`);
  await settled(page);
  const rows = page.locator('#moves-table tbody tr');
  assert.equal(await rows.count(), moves.length);
  assert.deepEqual(await rows.first().locator('td').allTextContents(),
    [moves[0].kind, moves[0].from, moves[0].to, String(moves[0].files), String(moves[0].verbatim), String(moves[0].adapted)]);
  assert.deepEqual(browser.errors, []);
});

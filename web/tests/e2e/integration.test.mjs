// The Integration page against the real daemon with the demo data: the demo registers a PaddleFleet-
// shaped integrator (server/app/demo_integrator.cpp) that pins the compat fork at a commit its fork
// force-pushed away (orphaned) under a loader scope lacking triton, and the native port at its head
// (current) with three steps missing. In English and Chinese: states and steps as the API says, the
// lacking package marked, a fork link that opens the fork, the text to paste shown, no sideways scroll
// at 1280 px, a real address that survives a reload, Sync with a token, and the integration alerts
// (and the candidate-ready alert's integration notes) in Chinese.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN_TOKEN, startDaemon } from './support/daemon.mjs';
import { openBrowser, screenshot, settled, unnamedControls } from './support/browser.mjs';

const STEPS = ['submodule', 'get_libs', 'submodule_check', 'gitignore', 'loader', 'import_test'];
const INTEGRATOR = 'PaddleFleet';

let daemon;
let browser;
let page;
let report;

// The integrator is re-read after every fork sync; wait until both pins are judged on synced forks.
async function judgedReport() {
  const deadline = Date.now() + 120_000;  // a bound on waiting, not an assertion on speed
  for (;;) {
    const r = await daemon.api('GET', `/api/v1/integrators/${INTEGRATOR}`);
    const libs = r.json?.libraries || [];
    const state = (name) => libs.find((l) => l.name === name)?.state;
    const tasks = (await daemon.api('GET', '/api/v1/tasks')).json?.tasks || [];
    if (state('fastops') === 'orphaned' && state('fastops-native') === 'current' && tasks.length === 0) return r.json;
    if (Date.now() > deadline) throw new Error(`the demo integrator was not judged: ${r.text}\n${daemon.log()}`);
    await sleep(200);
  }
}

before(async () => {
  daemon = await startDaemon();
  browser = await openBrowser();
  page = await browser.page();
  report = await judgedReport();
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

const lib = (name) => report.libraries.find((l) => l.name === name);
const row = (name) => page.locator('#integration-table tbody tr', { has: page.locator(`strong.lib-name:text-is("${name}")`) });

test('the demo integrator is PaddleFleet-shaped: an orphaned pin, a current one, steps missing', () => {
  const ops = lib('fastops');
  assert.equal(ops.fork, 'fastops-paddle');
  assert.equal(ops.path, 'packages/paddlefleet_ops/third_party/fastops');
  assert.ok(STEPS.every((s) => ops.steps[s]), JSON.stringify(ops.steps));
  assert.deepEqual(ops.loader, { guard: 'use_compat_guard', scope: ['fastops'] });
  assert.ok(ops.needed_scope.includes('triton'), JSON.stringify(ops.needed_scope));
  assert.equal(ops.missing.length, 1, 'the scope fix');
  const native = lib('fastops-native');
  assert.equal(native.fork, 'fastops-native');
  assert.equal(native.path, 'third_party/fastops-native');
  assert.equal(native.behind, 0);
  assert.deepEqual(STEPS.filter((s) => !native.steps[s]), ['submodule_check', 'gitignore', 'import_test']);
  assert.equal(native.loader.guard, 'enable_compat');
  assert.ok(native.missing.length >= 3, JSON.stringify(native.missing));
});

// Layout facts of the libraries table, measured in the page.
function measure() {
  return page.evaluate(() => {
    const wrap = document.querySelector('#integration-table').closest('.table-wrap');
    const lineBoxes = (el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
    };
    const headers = [...document.querySelectorAll('#integration-table thead th')].map((th) => {
      const label = (th.querySelector('button.sort') || th).firstChild;
      return { text: label.textContent.trim(), lines: lineBoxes(label) };
    });
    return { scrollWidth: wrap.scrollWidth, clientWidth: wrap.clientWidth, docWidth: document.documentElement.scrollWidth, viewport: innerWidth, headers };
  });
}

const WORDS = {
  en: { title: `Integration · ${INTEGRATOR}`, orphaned: '⚠ orphaned', current: 'current', nav: 'Integration', paste: 'Text to paste' },
  zh: { title: `集成 · ${INTEGRATOR}`, orphaned: '⚠ 已孤立', current: '最新', nav: '集成', paste: '待粘贴的内容' },
};

for (const lang of ['en', 'zh']) {
  test(`the Integration page in ${lang === 'en' ? 'English' : 'Chinese'}: states, steps, scope, text to paste, 1280 px`, async () => {
    const w = WORDS[lang];
    await page.setViewportSize({ width: 1280, height: 900 });
    await useLanguage(lang);
    await page.goto(daemon.url + '/');
    await settled(page);
    await page.click('nav a[data-nav="integration"]');
    await settled(page);
    assert.equal(new URL(page.url()).pathname, '/integration');
    assert.equal(await page.locator('nav a[data-nav="integration"]').textContent(), w.nav);
    assert.equal(await page.locator('nav a[data-nav="integration"]').getAttribute('aria-current'), 'page');
    assert.equal(await page.locator('main h1').textContent(), w.title);
    assert.equal(await page.locator('#integrator-head').getAttribute('title'), report.head);
    assert.equal(await page.locator('#integrator-read-at').getAttribute('datetime'), String(report.read_at));

    // One row per library; orphaned first (the worst state sorts first) and critical.
    assert.equal(await page.locator('#integration-table tbody tr').count(), report.libraries.length);
    assert.equal(await page.locator('#integration-table tbody tr').first().locator('strong.lib-name').textContent(), 'fastops');
    const orphaned = row('fastops').locator('.pin-state');
    assert.equal(await orphaned.getAttribute('data-state'), 'orphaned');
    assert.equal(await orphaned.textContent(), w.orphaned);
    assert.equal(await orphaned.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(146, 43, 33)');
    assert.equal(await row('fastops-native').locator('.pin-state').textContent(), w.current);
    assert.equal(await row('fastops').locator('code[title]').first().getAttribute('title'), lib('fastops').pinned_sha);

    // The six steps as the API says, the loader's guard, the package its scope lacks.
    for (const name of ['fastops', 'fastops-native']) {
      for (const s of STEPS) {
        const cell = row(name).locator(`.step[data-step="${s}"]`);
        assert.equal(await cell.getAttribute('data-ok'), String(lib(name).steps[s]), `${name} ${s}`);
        assert.equal(await cell.textContent(), lib(name).steps[s] ? '✓' : '✗');
      }
      assert.equal(await row(name).locator('.guard').getAttribute('data-guard'), lib(name).loader.guard);
    }
    assert.deepEqual(await row('fastops').locator('.pkg-lacks').allTextContents(), ['✗ triton']);
    assert.equal(await row('fastops-native').locator('.pkg-lacks').count(), 0);

    // The text to paste, as the API gives it, under the library it is for.
    assert.equal(await page.locator('#paste h2').textContent(), w.paste);
    for (const name of ['fastops', 'fastops-native']) {
      const shown = await page.locator(`.paste-lib[data-library="${name}"] pre.paste`).allTextContents();
      assert.deepEqual(shown, lib(name).missing);
    }
    await row('fastops-native').locator('a.missing-link').click();
    assert.match(new URL(page.url()).hash, /^#paste-third_party-fastops-native$/);
    assert.equal(new URL(page.url()).pathname, '/integration');

    // Fits 1280 px: no sideways scroll of the table or the page, no header one character a line.
    await settled(page);
    await page.locator('#integration-table').waitFor();
    await page.evaluate(() => scrollTo(0, 0));
    const m = await measure();
    assert.ok(m.scrollWidth <= m.clientWidth, `the table overflows its box: ${m.scrollWidth} > ${m.clientWidth}`);
    assert.ok(m.docWidth <= m.viewport, `the page scrolls sideways: ${m.docWidth} > ${m.viewport}`);
    for (const h of m.headers) {
      if ([...h.text].length >= 2) assert.ok(h.lines < [...h.text].length, `header "${h.text}" wraps on ${h.lines} lines`);
    }
    assert.deepEqual(await unnamedControls(page), []);
    await screenshot(page, `integration-${lang}`);

    // A fork link opens the fork's page.
    await row('fastops').locator('a.fork-link').click();
    await settled(page);
    assert.equal(new URL(page.url()).pathname, '/forks/fastops-paddle');
    assert.equal(await page.locator('main h1').textContent(), 'fastops-paddle');
  });
}

test('/integration/{name} is a real address: a reload lands on the same integrator', async () => {
  await useLanguage('en');
  await page.goto(`${daemon.url}/integration/${INTEGRATOR}`);
  await settled(page);
  assert.equal(await page.locator('main h1').textContent(), `Integration · ${INTEGRATOR}`);
  await page.reload();
  await settled(page);
  assert.equal(await page.locator('main h1').textContent(), `Integration · ${INTEGRATOR}`);
  assert.equal(await page.locator('#integration-table tbody tr').count(), report.libraries.length);
  await page.goto(`${daemon.url}/integration/no-such-integrator`);
  await settled(page);
  assert.match(await page.locator('main .notice-error').textContent(), /no-such-integrator/);
  browser.errors.length = 0;  // the unknown integrator answers 404, as it should
});

test('Sync asks for a token, queues the integrator\'s sync and reads the page again when it is done', async () => {
  await useLanguage('en');
  await page.evaluate(() => sessionStorage.clear());
  await page.goto(`${daemon.url}/integration`);
  await settled(page);
  const before = (await daemon.api('GET', '/api/v1/tasks?state=all&kind=integration&limit=1000')).json.tasks.length;
  await page.getByRole('button', { name: `Sync integrator ${INTEGRATOR}` }).click();
  await page.locator('#token-dialog[open]').waitFor();
  await page.fill('#token-input', ADMIN_TOKEN);
  const posted = page.waitForResponse((r) => r.url().endsWith(`/api/v1/integrators/${INTEGRATOR}/sync`) && r.request().method() === 'POST');
  await page.click('#token-save');
  const res = await posted;
  assert.equal(res.status(), 202);
  const { task } = await res.json();
  await page.locator('#integration-status .notice', { hasText: `task ${task}` }).waitFor();
  // Done: the page is read again (the queued notice goes with the old page).
  await page.locator('#integration-status .notice').waitFor({ state: 'detached', timeout: 120_000 });
  await settled(page);
  const done = (await daemon.api('GET', `/api/v1/tasks/${task}`)).json;
  assert.equal(done.state, 'succeeded', JSON.stringify(done));
  const after = (await daemon.api('GET', '/api/v1/tasks?state=all&kind=integration&limit=1000')).json.tasks.length;
  assert.ok(after > before, `no integration task was recorded (${before} → ${after})`);
  const now = (await daemon.api('GET', `/api/v1/integrators/${INTEGRATOR}`)).json;
  assert.equal(await page.locator('#integrator-read-at').getAttribute('datetime'), String(now.read_at));
  assert.equal(await page.locator('#integration-table tbody tr').count(), now.libraries.length);
});

test('the integration alerts read in Chinese', async () => {
  const alerts = (await daemon.api('GET', '/api/v1/alerts?state=open')).json.alerts;
  const orphaned = alerts.find((a) => a.rule === 'integration-pin-orphaned');
  const scope = alerts.find((a) => a.rule === 'integration-scope-mismatch');
  assert.ok(orphaned && scope, `the demo raises both integration alerts: ${alerts.map((a) => a.rule)}`);
  assert.equal(orphaned.message_code, 'alert.integration-pin-orphaned');
  assert.equal(orphaned.severity, 'critical');
  await useLanguage('zh');
  await page.goto(daemon.url + '/alerts');
  await settled(page);
  const text = async (rule) => page.locator('#alerts-table tbody tr', { has: page.locator('code', { hasText: rule }) }).first().locator('.alert-message').textContent();
  const pin = orphaned.message_params.pins[0].pin;
  assert.equal(await text('integration-pin-orphaned'),
    `${INTEGRATOR} 钉住的 fastops-paddle 提交已不在该分支仓库的任何分支或标签上（已被强推覆盖）：fastops ${pin}。${INTEGRATOR} 下一次全新检出会在 \`git submodule update\` 时失败：请把该提交推回（用标签保留它），或更新钉住的提交。`);
  assert.equal(await text('integration-scope-mismatch'),
    `${INTEGRATOR} 加载 fastops-paddle 时所用的兼容作用域缺少加载期间会导入 torch 的包：fastops（缺少 triton）。请把它们加入加载块 use_compat_guard 的 scope。`);
  await screenshot(page, 'alerts-integration-zh');
});

test('message templates: pin-behind, and the candidate-ready alert\'s integration notes as they are', async () => {
  await useLanguage('zh');
  await page.goto(daemon.url + '/');
  await settled(page);
  const out = await page.evaluate(async () => {
    const { render } = await import('/assets/js/messages.js');
    const base = { fork: 'f', id: 3, candidate: 'abc', branch: 'paddle', fork_sha: 'def', onto: '123', applied: 2, dropped: 0, commands: ['git fetch x', 'git push y'] };
    return {
      behind: render('english', 'alert.integration-pin-behind', { fork: 'f', integrator: 'PF', library: 'fastops', behind: 30, threshold: 20 }),
      notes: render('english', 'alert.candidate-ready', { ...base, integration: ['integrator PF pins fastops at 0123456789ab (behind 2): bump it:', '  git fetch origin develop'] }),
      none: render('english', 'alert.candidate-ready', base),
      published: render('english', 'alert.candidate-ready.published', { ...base, published_branch: 'b', published_url: 'u', integration: ['note one'] }),
    };
  });
  assert.equal(out.behind, 'PF 发布的 f 的 fastops 落后该分支仓库的迁移分支 30 个提交（超过 20 即告警，integration_pin_behind）：请更新钉住的提交。');
  assert.ok(out.notes.endsWith('：\n  git fetch x\n  git push y\nintegrator PF pins fastops at 0123456789ab (behind 2): bump it:\n  git fetch origin develop'), out.notes);
  assert.ok(out.none.endsWith('：\n  git fetch x\n  git push y'), out.none);
  assert.ok(!out.none.includes('{'), out.none);
  assert.ok(out.published.endsWith('\nnote one'), out.published);
});

test('the integration strings hold the same keys in English and Chinese; no console errors', async () => {
  const diff = await page.evaluate(async () => {
    const { integrationEn, integrationZh } = await import('/assets/js/strings_integration.js');
    return [Object.keys(integrationEn).filter((k) => !(k in integrationZh)), Object.keys(integrationZh).filter((k) => !(k in integrationEn))];
  });
  assert.deepEqual(diff, [[], []]);
  assert.deepEqual(browser.errors, []);
});

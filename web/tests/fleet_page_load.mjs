// The forks page at fleet size, timed in Chromium (a measurement for tests/bench/fleet_bench.py, not a
// test: run_e2e.mjs runs only tests/e2e/*.test.mjs, and timed figures do not belong in tests).
//
//   node web/tests/fleet_page_load.mjs http://127.0.0.1:PORT/ FORKS [SCREENSHOT_DIR] [RUNS] [WAIT_S] [ENCODING]
//
// Debian's Chromium through playwright-core, headless, with the flags of e2e/support/browser.mjs. One
// browser is started and warmed by one load (its time is printed apart as warmup_ms: a just-started
// browser's first page also pays for its renderer and caches); then RUNS loads, each in a new browser
// context (an empty HTTP cache, no storage). Printed as one JSON line: the median over those loads of
// DOMContentLoaded and of the first page of rows complete (main settled and every row of the table's
// first page with its fork link and its layer bar, all that GET /api/v1/forks carries), from navigation
// start; and, for the last load, the API calls the page made, the bytes of GET /api/v1/forks, and
// whether the page still fetched any fork's whole analysis (it should not: WAIT_S seconds, default 2,
// are waited for stragglers).
//
// ENCODING, when given, replaces the Accept-Encoding Chromium sends ("gzip, deflate, br"): with
// "gzip, deflate" the daemon answers gzip instead of brotli (the baseline for what compression costs).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, FLAGS } from './e2e/support/browser.mjs';

const [url, forksArg, shotDir, runsArg, waitArg, encoding = ''] = process.argv.slice(2);
if (!url || !forksArg) {
  console.error('usage: fleet_page_load.mjs URL FORKS [SCREENSHOT_DIR] [RUNS] [WAIT_S] [ENCODING]');
  process.exit(2);
}
const forks = Number(forksArg);
const runs = Number(runsArg || 3);
const waitS = Number(waitArg || 2);
const PAGE_ROWS = 50;  // overview.js's pageSize
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const ANALYSIS = /\/api\/v1\/forks\/[^/]+\/analysis$/;

// One load in a fresh context: { rows, dom } in ms, and with count what the page asked the API for.
async function load(browser, count, shot) {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, locale: 'en-US' });
  const errors = [];
  try {
    const page = await context.newPage();
    page.on('pageerror', (err) => errors.push(err.message));
    if (encoding) await page.setExtraHTTPHeaders({ 'Accept-Encoding': encoding });
    const calls = [];
    let forksBytes = 0;
    page.on('response', async (res) => {
      const path = new URL(res.url()).pathname;
      if (!path.startsWith('/api/')) return;
      calls.push(path);
      if (path !== '/api/v1/forks') return;
      try {
        forksBytes = (await res.body()).length;
      } catch {
        // the context went away
      }
    });
    const start = Date.now();
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('main[aria-busy="false"]', { timeout: 60_000 });
    const want = Math.min(PAGE_ROWS, forks);
    await page.waitForFunction(
      (n) => document.querySelectorAll('#forks-table tbody tr a.fork-link').length >= n &&
        document.querySelectorAll('#forks-table tbody tr .layer-bar').length >= n,
      want, { timeout: 60_000, polling: 'raf' });
    const rows = Date.now() - start;
    const dom = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      return nav.domContentLoadedEventEnd - nav.startTime;
    });
    let requests = null;
    if (count) {
      await new Promise((r) => setTimeout(r, waitS * 1000));
      requests = { api_calls: calls.length, api_paths: [...new Set(calls)].sort(), forks_kib: forksBytes / 1024,
        analysis_requests: calls.filter((p) => ANALYSIS.test(p)).length, wait_s: waitS };
    }
    if (shot) {
      mkdirSync(shotDir, { recursive: true });
      await page.screenshot({ path: join(shotDir, `fleet-forks${encoding ? '-' + encoding.split(',')[0] : ''}.png`) });
    }
    if (errors.length) console.error(errors.slice(0, 5).join('\n'));
    return { rows, dom, requests };
  } finally {
    await context.close();
  }
}

const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
const rows = [];
const dom = [];
let warmup = 0;
let requests = null;
try {
  warmup = (await load(browser, false, false)).rows;
  for (let run = 0; run < runs; run++) {
    const last = run === runs - 1;
    await new Promise((r) => setTimeout(r, 2000)); // the last load's cancelled requests finish on the server
    const r = await load(browser, last, last && shotDir);
    rows.push(r.rows);
    dom.push(r.dom);
    if (last) requests = r.requests;
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify({ runs, encoding: encoding || "gzip, deflate, br (Chromium's own)", warmup_ms: warmup,
  rows_ms: median(rows), rows_all_ms: rows, dom_ms: median(dom), ...requests }));

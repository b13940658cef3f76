// Debian's Chromium driven by playwright-core: headless, a fresh profile per launch, every console
// error and page error collected, screenshots saved under build/web-artifacts/.
import { mkdirSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { repoRoot } from './daemon.mjs';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];
export const artifactsDir = process.env.FORKSCOPE_WEB_ARTIFACTS || join(repoRoot, 'build', 'web-artifacts');

// Endpoints other branches add; until they land the server answers 404 and the browser logs it.
const OPTIONAL_API = /\/api\/v1\/(drift|alerts|jobs)(\/|\?|$)/;

export async function openBrowser() {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: apt-get install chromium (make deps does)`);
  const profile = mkdtempSync(join(tmpdir(), 'forkscope-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1360, height: 900 },
    locale: 'en-US',
    acceptDownloads: true,
  });
  const errors = [];
  const watch = (page) => {
    page.on('console', (msg) => {
      if (msg.type() !== 'error') return;
      const where = msg.location()?.url || '';
      if (/Failed to load resource: .* 404/.test(msg.text()) && OPTIONAL_API.test(where)) return;
      errors.push(`${page.url()}: ${msg.text()} (${where})`);
    });
    page.on('pageerror', (err) => errors.push(`${page.url()}: uncaught ${err.message}`));
  };
  context.on('page', watch);
  for (const page of context.pages()) watch(page);
  return {
    context,
    errors,
    async page() {
      return context.pages()[0] || context.newPage();
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page, name) {
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: join(artifactsDir, `${name}.png`), fullPage: true });
}

// Waits until the router has rendered the page (main is no longer busy).
export async function settled(page) {
  await page.waitForSelector('main[aria-busy="false"]');
}

// Every control (button, textbox, combobox, checkbox, link) in Chromium's accessibility tree has a
// name; returns the ones that do not.
export async function unnamedControls(page) {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  await cdp.detach();
  const roles = new Set(['button', 'textbox', 'searchbox', 'combobox', 'checkbox', 'link', 'radio', 'slider', 'spinbutton', 'ListBox', 'listbox']);
  return nodes
    .filter((n) => !n.ignored && roles.has(n.role?.value) && !String(n.name?.value || '').trim())
    .map((n) => `${n.role.value} (backend node ${n.backendDOMNodeId})`);
}

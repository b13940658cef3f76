// `npm test` / ctest web_e2e: the browser tests under tests/e2e/, one file at a time (each starts its
// own daemon). pending_apis.test.mjs runs only when the daemon answers GET /api/v1/alerts with 200,
// i.e. once the drift, jobs and alerts branches are merged; otherwise a loud notice says it did not.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { artifactsDir } from '../tests/e2e/support/browser.mjs';
import { startDaemon } from '../tests/e2e/support/daemon.mjs';

const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const e2eDir = join(webDir, 'tests', 'e2e');
const PENDING = 'pending_apis.test.mjs';

async function alertsAnswer() {
  const daemon = await startDaemon({ demo: false });
  try {
    return (await daemon.api('GET', '/api/v1/alerts')).status;
  } finally {
    await daemon.stop();
  }
}

const status = await alertsAnswer();
let files = readdirSync(e2eDir).filter((f) => f.endsWith('.test.mjs')).sort();
if (status !== 200) {
  files = files.filter((f) => f !== PENDING);
  const line = '!'.repeat(78);
  const notice = [
    line,
    `!!  NOT RUN: web/tests/e2e/${PENDING} (Drift, Jobs and Alerts pages).`,
    `!!  This daemon answers GET /api/v1/alerts with ${status}: the drift, jobs and alerts APIs`,
    '!!  are not merged yet. Those pages are only checked to degrade gracefully here.',
    line,
  ].join('\n');
  console.log(notice);
  // ctest shows a passing test's output only with -V: leave the notice beside the screenshots too.
  mkdirSync(artifactsDir, { recursive: true });
  writeFileSync(join(artifactsDir, 'PENDING_APIS_NOT_RUN.txt'), `${notice}\n`);
} else {
  rmSync(join(artifactsDir, 'PENDING_APIS_NOT_RUN.txt'), { force: true });
}
const child = spawn(process.execPath, ['--test', '--test-concurrency=1', ...files.map((f) => join(e2eDir, f))], { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

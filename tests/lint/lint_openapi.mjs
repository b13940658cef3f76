// The ctest `openapi_lint`: Redocly's linter (@redocly/cli, pinned by package-lock.json; its built-in
// "recommended" rules) on docs/openapi.yaml. Passes only with 0 errors and 0 warnings; each problem is
// printed with its rule, line and message.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const spec = process.argv[2] ?? join(here, '..', '..', 'docs', 'openapi.yaml');
const cli = join(here, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const run = spawnSync(process.execPath, [cli, 'lint', spec, '--format=json', '--extends=recommended'], {
  encoding: 'utf8',
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
});
if (run.error) {
  console.error(`cannot run ${cli}: ${run.error.message} (npm ci --prefix tests/lint installs it)`);
  process.exit(2);
}
let report;
try {
  report = JSON.parse(run.stdout);
} catch {
  console.error(`redocly printed no JSON report (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  process.exit(2);
}
for (const p of report.problems ?? []) {
  const where = p.location?.[0]?.start ? `${p.location[0].start.line}:${p.location[0].start.col}` : '?';
  console.log(`${spec}:${where}  ${p.severity}  ${p.ruleId}  ${p.message}`);
}
const { errors, warnings } = report.totals;
console.log(`redocly ${report.version} lint (recommended): ${errors} error(s), ${warnings} warning(s)`);
process.exit(errors === 0 && warnings === 0 ? 0 : 1);

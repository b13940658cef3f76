// Assembles the served dashboard: web/public/** plus the few vendor dist files the pages load
// (diff2html's browser bundle and CSS, Chart.js's UMD build), so nothing comes from a CDN at run time.
// Usage: node scripts/copy_assets.mjs --out DIR   (DIR is emptied first)
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outFlag = process.argv.indexOf('--out');
if (outFlag < 0 || !process.argv[outFlag + 1]) {
  console.error('usage: node scripts/copy_assets.mjs --out DIR');
  process.exit(2);
}
const out = resolve(process.argv[outFlag + 1]);

// package file -> served name under assets/vendor/
const vendor = [
  ['chart.js/dist/chart.umd.min.js', 'chart.umd.min.js'],
  ['diff2html/bundles/js/diff2html.min.js', 'diff2html.min.js'],
  ['diff2html/bundles/css/diff2html.min.css', 'diff2html.min.css'],
  ['chart.js/LICENSE.md', 'LICENSE.chart.js.md'],
  ['diff2html/LICENSE.md', 'LICENSE.diff2html.md'],
];

rmSync(out, { recursive: true, force: true });
cpSync(join(webDir, 'public'), out, { recursive: true });
mkdirSync(join(out, 'assets', 'vendor'), { recursive: true });
const versions = {};
for (const [from, to] of vendor) {
  const src = join(webDir, 'node_modules', from);
  if (!existsSync(src)) {
    console.error(`copy_assets: ${src} is missing; run npm ci --prefix web`);
    process.exit(1);
  }
  cpSync(src, join(out, 'assets', 'vendor', to));
  const pkg = from.split('/')[0];
  versions[pkg] ??= JSON.parse(readFileSync(join(webDir, 'node_modules', pkg, 'package.json'), 'utf8')).version;
}
writeFileSync(join(out, 'assets', 'vendor', 'versions.json'), JSON.stringify(versions, null, 2) + '\n');
console.log(`copy_assets: ${out} (${Object.entries(versions).map(([k, v]) => `${k} ${v}`).join(', ')})`);

// A generated repository for scale tests, written with `git fast-import`: branch main holds `files`
// files spread over the layers, branch paddle changes every one of them (one hunk each).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';

const LAYOUT = [
  (i) => [`csrc/kernels/k${i}.cu`, (tag) => `__global__ void k${i}(float* x) {\n  x[threadIdx.x] *= ${tag};\n}\n`],
  (i) => [`fastops/mod${i}.py`, (tag) => `import torch\n\n\ndef op${i}(x):\n    return torch.ops.fastops.op${i}(x) * ${tag}\n`],
  (i) => [`tests/test_mod${i}.py`, (tag) => `import fastops\n\n\ndef test_op${i}():\n    assert fastops.op${i}(${tag}) is not None\n`],
  (i) => [`docs/page${i}.md`, (tag) => `# Page ${i}\n\nVersion ${tag}.\n`],
];

function data(text) {
  return `data ${Buffer.byteLength(text)}\n${text}\n`;
}

export function createBigRepo(path, files) {
  mkdirSync(path, { recursive: true });
  execFileSync('git', ['init', '--bare', '-q', '-b', 'main', path]);
  const who = 'forkscope tests <tests@forkscope.invalid> 1717200000 +0000';
  const parts = [`commit refs/heads/main\nmark :1\nauthor ${who}\ncommitter ${who}\n${data('upstream')}`];
  const layout = [];
  for (let i = 0; i < files; i++) layout.push(LAYOUT[i % LAYOUT.length](i));
  for (const [file, body] of layout) parts.push(`M 100644 inline ${file}\n${data(body(1))}`);
  parts.push(`commit refs/heads/paddle\nmark :2\nauthor ${who}\ncommitter ${who}\n${data('port to paddle')}from :1\n`);
  for (const [file, body] of layout) parts.push(`M 100644 inline ${file}\n${data(body(2))}`);
  execFileSync('git', ['fast-import', '--quiet'], { cwd: path, input: parts.join('') });
  return path;
}

#!/usr/bin/env python3
"""Builds a large upstream/fork pair with `git fast-import` for the analysis benchmark.

upstream: N files (default 30000) in a nested tree (kernels, bindings, python package, tests, docs).
fork:     branch `paddle` on top, changing C hundreds of files across every layer, renaming and
          deleting a few, adding some; upstream main then moves on by a few commits.
Deterministic: the same arguments give the same object ids.
"""
import argparse
import os
import subprocess
import sys


def content(kind, i, variant=0):
    if kind == "cu":
        return (f"#include <torch/extension.h>\n\n__global__ void k{i}(float* o, const float* x, int n) {{\n"
                f"  int t = blockIdx.x * blockDim.x + threadIdx.x;\n  if (t < n) o[t] = x[t] * {i + variant}.0f;\n}}\n\n"
                + "".join(f"// padding line {j}\n" for j in range(30)) +
                f"void launch{i}(at::Tensor& o, const at::Tensor& x) {{\n"
                f"  auto stream = at::cuda::getCurrentCUDAStream();\n"
                f"  k{i}<<<(x.numel() + 255) / 256, 256, 0, stream>>>(o.data_ptr<float>(), x.data_ptr<float>(), x.numel());\n}}\n")
    if kind == "py":
        return (f"import torch\n\n\ndef op{i}(x):\n    return torch.ops.lib.op{i}(x)\n\n"
                + "".join(f"# filler {j}\n" for j in range(20)) + f"\n\ndef helper{i}(x):\n    return x + {i}\n")
    if kind == "test":
        return f"import torch\nimport lib\n\n\ndef test_op{i}():\n    assert lib.op{i}(torch.ones(4)).shape == (4,)\n"
    if kind == "md":
        return f"# Page {i}\n\n" + "".join(f"Line {j} of page {i}.\n" for j in range(10))
    return f"int f{i}() {{ return {i}; }}\n"


def layout(n):
    files = {}
    kinds = [("csrc/kernels/d{d}/k{i}.cu", "cu"), ("lib/ops/d{d}/op{i}.py", "py"),
             ("tests/d{d}/test_{i}.py", "test"), ("docs/d{d}/p{i}.md", "md"), ("csrc/util/d{d}/u{i}.cc", "cc")]
    for i in range(n):
        pattern, kind = kinds[i % len(kinds)]
        files[pattern.format(d=i % 97, i=i)] = (kind, i)
    files["setup.py"] = ("setup", 0)
    return files


def render(kind, i, variant=0):
    if kind == "setup":
        return ("from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension\n\n"
                "setup(name='lib', cmdclass={'build_ext': BuildExtension})\n")
    return content(kind, i, variant)


class Stream:
    def __init__(self, out):
        self.out = out
        self.mark = 0
        self.time = 1700000000

    def blob(self, data):
        self.mark += 1
        b = data.encode()
        self.out.write(f"blob\nmark :{self.mark}\ndata {len(b)}\n".encode() + b + b"\n")
        return self.mark

    def commit(self, ref, msg, changes, parent=None, deleteall=False):
        self.time += 3600
        self.mark += 1
        m = msg.encode()
        head = (f"commit {ref}\nmark :{self.mark}\nauthor Bench <b@example.com> {self.time} +0000\n"
                f"committer Bench <b@example.com> {self.time} +0000\ndata {len(m)}\n").encode() + m + b"\n"
        if parent:
            head += f"from {parent}\n".encode()
        if deleteall:
            head += b"deleteall\n"
        self.out.write(head)
        for op in changes:
            self.out.write(op.encode() + b"\n")
        self.out.write(b"\n")
        return f":{self.mark}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--files", type=int, default=30000)
    ap.add_argument("--changed", type=int, default=400)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", a.dir], check=True)
    p = subprocess.Popen(["git", "-C", a.dir, "fast-import", "--quiet"], stdin=subprocess.PIPE)
    s = Stream(p.stdin)
    files = layout(a.files)
    ops = [f"M 100644 :{s.blob(render(k, i))} {path}" for path, (k, i) in sorted(files.items())]
    base = s.commit("refs/heads/main", "upstream base", ops)
    # The fork: modify, rename, delete, add across the layers.
    paths = sorted(p for p in files if p != "setup.py")
    changed = paths[:: max(1, len(paths) // a.changed)][: a.changed]
    fork_ops = [f"M 100644 :{s.blob('import paddle' + chr(10) + 'paddle.enable_compat()' + chr(10) + render('setup', 0))} setup.py"]
    for n, path in enumerate(changed):
        kind, i = files[path]
        if n % 40 == 0:
            fork_ops.append(f"D {path}")
        elif n % 40 == 1:
            fork_ops.append(f"D {path}")
            fork_ops.append(f"M 100644 :{s.blob(render(kind, i))} {path.replace('/d', '/paddle_d', 1)}")
        else:
            body = render(kind, i, variant=1).replace("torch.ops", "paddle.ops") + "# paddle compat\n"
            fork_ops.append(f"M 100644 :{s.blob(body)} {path}")
    for n in range(20):
        fork_ops.append(f"M 100644 :{s.blob(render('test', 100000 + n))} tests_paddle/test_new{n}.py")
    s.commit("refs/heads/paddle", "paddle migration", fork_ops, parent=base)
    # Upstream moves on.
    parent = base
    for n in range(5):
        path = changed[n * 7 + 3]
        kind, i = files[path]
        parent = s.commit("refs/heads/main", f"upstream change {n}",
                          [f"M 100644 :{s.blob(render(kind, i, variant=5))} {path}"], parent=parent)
    p.stdin.close()
    if p.wait() != 0:
        sys.exit("fast-import failed")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Labelling aid for the corpus: show the reference diff of a rebuilt pair with hunk keys, and check
that a case's hand labels cover it.

  label.py show CASE [--path PREFIX] [--max-lines N]   every file and hunk, with the key labels use
  label.py check [CASE ...]                            labels vs the reference diff; exit 1 on a gap

Labels live in case.json under "labels": {path: {"layer": L, "hunks": {key: L}, "why": "..."}}.
`layer` is the layer of the file's hunks unless a hunk is listed in `hunks`; the expected file layer
is the layer holding most changed lines (forkscope's definition, docs/analysis-json.md), ties going
to `layer`. Paths are fork paths (the old path for a deleted file).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402


def reference(case):
    pair = os.path.join(cl.REPOS, case["_name"])
    if not os.path.isdir(os.path.join(pair, "fork")):
        sys.exit(f"{case['_name']}: no rebuilt pair; run tests/corpus/rebuild.py first")
    return cl.git_diff(pair)


def expected_hunk_layers(label, hunks):
    return {h["key"]: label.get("hunks", {}).get(h["key"], label["layer"]) for h in hunks}


def expected_file_layer(label, hunks):
    if label.get("file_layer"):
        return label["file_layer"]
    weight = {}
    layers = expected_hunk_layers(label, hunks)
    for h in hunks:
        n = sum(1 for l in h["lines"] if l[:1] in ("+", "-"))
        weight[layers[h["key"]]] = weight.get(layers[h["key"]], 0) + n
    if not weight:
        return label["layer"]
    best = max(weight.values())
    tied = [l for l, w in weight.items() if w == best]
    return label["layer"] if label["layer"] in tied else sorted(tied)[0]


def show(case, prefix, max_lines):
    labels = case.get("labels", {})
    for f in reference(case):
        if prefix and not f["path"].startswith(prefix):
            continue
        lab = labels.get(f["path"])
        tag = f" [labelled {lab['layer']}]" if lab else " [UNLABELLED]"
        old = f" (from {f['old_path']} {f['similarity']}%)" if f["old_path"] else ""
        print(f"=== {f['status']} {f['path']}{old}: {len(f['hunks'])} hunks{tag}")
        for h in f["hunks"]:
            hl = lab.get("hunks", {}).get(h["key"]) if lab else None
            print(f"--- hunk {h['key']} {h['header'][:90]}" + (f"  [{hl}]" if hl else ""))
            for line in h["lines"][:max_lines]:
                print("  " + line[:160])
            if len(h["lines"]) > max_lines:
                print(f"  ... {len(h['lines']) - max_lines} more lines")


def check(case):
    labels = case.get("labels", {})
    ref = reference(case)
    problems = []
    seen = set()
    for f in ref:
        seen.add(f["path"])
        lab = labels.get(f["path"])
        if not lab:
            problems.append(f"unlabelled file {f['path']}")
            continue
        if lab["layer"] not in cl.LAYERS:
            problems.append(f"{f['path']}: bad layer {lab['layer']}")
        keys = {h["key"] for h in f["hunks"]}
        for k, layer in lab.get("hunks", {}).items():
            if k not in keys:
                problems.append(f"{f['path']}: hunk {k} is not in the reference diff")
            if layer not in cl.LAYERS:
                problems.append(f"{f['path']}: hunk {k} bad layer {layer}")
    for path in labels:
        if path not in seen:
            problems.append(f"label for {path}, which the reference diff does not change")
    if case.get("style") not in cl.STYLES:
        problems.append(f"bad style {case.get('style')}")
    nh = sum(len(f["hunks"]) for f in ref)
    print(f"{case['_name']}: {len(ref)} files, {nh} hunks, {len(problems)} problem(s)")
    for p in problems:
        print("  " + p)
    return not problems


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("show")
    s.add_argument("case")
    s.add_argument("--path", default="")
    s.add_argument("--max-lines", type=int, default=40)
    c = sub.add_parser("check")
    c.add_argument("cases", nargs="*")
    a = ap.parse_args()
    if a.cmd == "show":
        show(cl.load_cases([a.case])[0], a.path, a.max_lines)
        return 0
    ok = all([check(case) for case in cl.load_cases(a.cases or None)])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

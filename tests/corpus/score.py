#!/usr/bin/env python3
"""Score forkscope against the labelled corpus: rebuilds (or reuses) each case's pair, runs
`forkscope analyze ... --format json --lines`, and compares with the hand labels.

Prints, over all cases: per-layer precision/recall for files and for hunks, overall file and hunk
accuracy, both confusion matrices (expected rows, forkscope columns) and the migration style per case.
The reference diff is git's (`git diff -M`, 3 lines of context); a file forkscope does not report, or a
hunk whose changed lines it splits differently, counts as a miss ("missing" column); files or hunks
only forkscope reports count against precision ("extra" row).

Usage: score.py [BINARY] [--case NAME ...] [--json OUT] [--show-errors]
BINARY defaults to build/forkscope. Exit 0 whatever the figures (a measurement, not a gate);
exit 2, loudly, when inputs are missing (cached file versions, the binary) or forkscope fails.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpuslib as cl  # noqa: E402
import label  # noqa: E402
import rebuild  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(cl.HERE))
MISSING = "missing"
EXTRA = "extra"


def run_forkscope(binary, pair, data_dir):
    cmd = [binary, "-q", "analyze", "--fork", os.path.join(pair, "fork"), "--branch", "paddle",
           "--upstream", os.path.join(pair, "upstream"), "--data-dir", data_dir, "--format", "json", "--lines"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        print(f"FORKSCOPE FAILED ({r.returncode}): {' '.join(cmd)}\n{r.stderr.decode(errors='replace')[-3000:]}",
              file=sys.stderr)
        sys.exit(2)
    return json.loads(r.stdout)


def expected_of(case, ref):
    files, hunks = {}, {}
    for f in ref:
        lab = case["labels"][f["path"]]
        files[f["path"]] = label.expected_file_layer(lab, f["hunks"])
        for k, layer in label.expected_hunk_layers(lab, f["hunks"]).items():
            hunks[(f["path"], k)] = layer
    return files, hunks


def predicted_of(analysis):
    files, hunks = {}, {}
    for f in analysis["files"]:
        files[f["path"]] = f["layer"]
        seen = {}
        for h in f["hunks"]:
            hunks[(f["path"], cl.hunk_key(h.get("lines", []), seen))] = h["layer"]
    return files, hunks


def compare(expected, predicted):
    """Pairs (expected, predicted) over the union of keys."""
    pairs = []
    for k, e in expected.items():
        pairs.append((k, e, predicted.get(k, MISSING)))
    for k, p in predicted.items():
        if k not in expected:
            pairs.append((k, EXTRA, p))
    return pairs


def metrics(pairs):
    per = {}
    for layer in cl.LAYERS:
        tp = sum(1 for _, e, p in pairs if e == layer and p == layer)
        exp_n = sum(1 for _, e, _ in pairs if e == layer)
        pred_n = sum(1 for _, _, p in pairs if p == layer)
        per[layer] = {"expected": exp_n, "predicted": pred_n, "correct": tp,
                      "precision": tp / pred_n if pred_n else None, "recall": tp / exp_n if exp_n else None}
    total = sum(1 for _, e, _ in pairs if e != EXTRA)
    right = sum(1 for _, e, p in pairs if e != EXTRA and e == p)
    extra = sum(1 for _, e, _ in pairs if e == EXTRA)
    return {"per_layer": per, "total": total, "correct": right, "extra": extra,
            "accuracy": right / total if total else None}


def confusion(pairs):
    rows = cl.LAYERS + [EXTRA]
    cols = cl.LAYERS + [MISSING]
    m = {r: {c: 0 for c in cols} for r in rows}
    for _, e, p in pairs:
        m[e][p] += 1
    return m


def fmt(x):
    return "   -  " if x is None else f"{100 * x:5.1f}%"


def print_metrics(title, m):
    print(f"\n{title}: accuracy {fmt(m['accuracy'])} ({m['correct']}/{m['total']})"
          + (f", {m['extra']} reported only by forkscope" if m["extra"] else ""))
    print(f"  {'layer':<11} {'expected':>8} {'predicted':>9} {'correct':>7} {'precision':>9} {'recall':>7}")
    for layer, v in m["per_layer"].items():
        print(f"  {layer:<11} {v['expected']:>8} {v['predicted']:>9} {v['correct']:>7} "
              f"{fmt(v['precision']):>9} {fmt(v['recall']):>7}")


def print_confusion(title, m):
    cols = list(next(iter(m.values())).keys())
    print(f"\n{title} confusion (rows: expected, columns: forkscope)")
    print("  " + " " * 11 + "".join(f"{c:>11}" for c in cols))
    for r, row in m.items():
        if r == EXTRA and not any(row.values()):
            continue
        print(f"  {r:<11}" + "".join(f"{row[c]:>11}" for c in cols))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary", nargs="?", default=os.path.join(ROOT, "build", "forkscope"))
    ap.add_argument("--case", action="append")
    ap.add_argument("--json", help="also write the figures as JSON here")
    ap.add_argument("--show-errors", action="store_true", help="list every misclassified file and hunk")
    a = ap.parse_args()

    cases = cl.load_cases(a.case)
    if not cases:
        print("NO CORPUS CASES FOUND under tests/corpus/*/case.json", file=sys.stderr)
        return 2
    missing = rebuild.missing_sources(cases)
    if missing:
        rebuild.report_missing(missing)
        return 2
    if not os.access(a.binary, os.X_OK):
        print(f"FORKSCOPE BINARY MISSING: {a.binary}\nbuild it: cmake -S . -B build -G Ninja && "
              "ninja -C build forkscope", file=sys.stderr)
        return 2

    file_pairs, hunk_pairs, per_case, status_diffs = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="forkscope-corpus-") as tmp:
        for case in cases:
            pair, _ = rebuild.build_pair(case, force=False)
            ref = cl.git_diff(pair)
            unlabelled = [f["path"] for f in ref if f["path"] not in case.get("labels", {})]
            if unlabelled:
                print(f"CORPUS LABELS INCOMPLETE in {case['_name']}: no label for {', '.join(unlabelled)}\n"
                      f"run tests/corpus/label.py check {case['_name']}", file=sys.stderr)
                return 2
            exp_files, exp_hunks = expected_of(case, ref)
            analysis = run_forkscope(a.binary, pair, os.path.join(tmp, case["_name"]))
            got_files, got_hunks = predicted_of(analysis)
            got_status = {f["path"]: (f["status"], f.get("old_path")) for f in analysis["files"]}
            for f in ref:
                g = got_status.get(f["path"])
                if g is not None and g != (f["status"], f["old_path"]):
                    status_diffs.append((case["_name"], f["path"], (f["status"], f["old_path"]), g))
            fp = [((case["_name"],) + (k if isinstance(k, tuple) else (k,)), e, p)
                  for k, e, p in compare(exp_files, got_files)]
            hp = [((case["_name"],) + k, e, p) for k, e, p in compare(exp_hunks, got_hunks)]
            file_pairs += fp
            hunk_pairs += hp
            fm, hm = metrics(fp), metrics(hp)
            per_case.append({"case": case["_name"], "style_expected": case["style"],
                             "style_forkscope": analysis.get("style"),
                             "files": len(exp_files), "hunks": len(exp_hunks),
                             "file_accuracy": fm["accuracy"], "hunk_accuracy": hm["accuracy"],
                             "errors": {"files": [(k[1], e, p) for k, e, p in fp if e != p],
                                        "hunks": [(k[1], k[2], e, p) for k, e, p in hp if e != p]}})

    fm, hm = metrics(file_pairs), metrics(hunk_pairs)
    print(f"forkscope corpus score: {len(cases)} cases, {fm['total']} files, {hm['total']} hunks")
    print(f"\n  {'case':<28} {'files':>5} {'hunks':>5} {'file acc':>9} {'hunk acc':>9}  style (expected / forkscope)")
    for c in per_case:
        mark = "right" if c["style_expected"] == c["style_forkscope"] else "WRONG"
        print(f"  {c['case']:<28} {c['files']:>5} {c['hunks']:>5} {fmt(c['file_accuracy']):>9} "
              f"{fmt(c['hunk_accuracy']):>9}  {mark}: {c['style_expected']} / {c['style_forkscope']}")
    print_metrics("Files", fm)
    print_metrics("Hunks", hm)
    print_confusion("File", confusion(file_pairs))
    print_confusion("Hunk", confusion(hunk_pairs))
    styles_right = sum(1 for c in per_case if c["style_expected"] == c["style_forkscope"])
    print(f"\nStyle: {styles_right}/{len(per_case)} cases right")
    print(f"File status/old_path differing from git diff -M: {len(status_diffs)}")
    for name, path, want, got in status_diffs:
        print(f"  [{name}] {path}: git {want[0]}{' from ' + want[1] if want[1] else ''}, "
              f"forkscope {got[0]}{' from ' + got[1] if got[1] else ''}")
    if a.show_errors:
        for c in per_case:
            print(f"\n[{c['case']}] misclassified")
            for path, e, p in c["errors"]["files"]:
                print(f"  file {path}: expected {e}, forkscope {p}")
            for path, key, e, p in c["errors"]["hunks"]:
                print(f"  hunk {path} {key}: expected {e}, forkscope {p}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"status_differences": status_diffs, "files": fm, "hunks": hm, "file_confusion": confusion(file_pairs),
                       "hunk_confusion": confusion(hunk_pairs), "cases": per_case}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""induction_sweep.py - the feasibility sweep behind data/induction.json (docs/training.md).

Trains each variant of data/configs/induction.json with `attend train` (one key changed per
variant), then measures every model with `attend heads --format json` on probes of segment
lengths it never trained on, and knocks out its best layer-1 head (`attend heads --ablate`).
Prints a markdown table; with --write FILE, replaces the text between the lines
"<!-- induction-sweep -->" and "<!-- /induction-sweep -->" in FILE with it.

usage: tools/induction_sweep.py [--attend ./attend] [--out DIR] [--write docs/training.md]
                                [--only NAME,NAME]
"""
import argparse
import copy
import json
import os
import subprocess
import sys

BASE = "data/configs/induction.json"

# name, what changes, a function editing the config
VARIANTS = [
    ("shipped", "data/configs/induction.json: 2 heads of 32, segments 6-20, loss on both copies, lr 1e-3",
     None),
    ("loss-second", "loss on the second copy only", lambda c: c["repeat"].update(loss="second-copy")),
    ("loss-all", "loss on every position", lambda c: c["repeat"].update(loss="all")),
    ("four-heads", "4 heads of 16 a layer", lambda c: c["config"].update(n_heads=4, d_head=16)),
    ("one-layer", "one layer (no layer to compose with)", lambda c: c["config"].update(n_layers=1)),
]


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def heads(attend, model, ablate=None):
    cmd = [attend, "heads", "--model", model, "--format", "json"]
    if ablate:
        cmd += ["--ablate", ablate]
    return json.loads(run(cmd))


def phase_step(hist):
    """The first recorded step whose second-copy loss is below half of the step-0 value."""
    l0 = hist["loss_second"][0]
    for s, l in zip(hist["step"], hist["loss_second"]):
        if l is not None and l < l0 / 2:
            return s
    return None


def measure(attend, name, what, path, seconds):
    with open(path) as f:
        m = json.load(f)
    h = heads(attend, path)
    last = max(x["layer"] for x in h["heads"])
    cand = [x for x in h["heads"] if x["layer"] == last]
    best = max(cand, key=lambda x: x["induction"])
    tag = "%d.%d" % (best["layer"], best["head"])
    a = heads(attend, path, tag)
    prev0 = max((x for x in h["heads"] if x["layer"] == 0), key=lambda x: x["prev"])
    ps = phase_step(m["training"]["history"])
    return ("| %s | %s | %s | %.2f | L%d.h%d %.2f (%.2f-%.2f) / %.2f | L0.h%d %.2f | "
            "%.2f → %.2f | %.2f → %.2f | %.0f |" % (
                name, what, ps if ps is not None else "none", h["loss_second_copy"],
                best["layer"], best["head"], best["induction"],
                min(best["induction_by_length"]), max(best["induction_by_length"]),
                best["prefix"], prev0["head"], prev0["prev"],
                h["loss_second_copy"], a["loss_second_copy"], h["loss_first_copy"],
                a["loss_first_copy"], seconds))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attend", default="./attend")
    ap.add_argument("--out", default="/tmp/attend-induction-sweep")
    ap.add_argument("--write")
    ap.add_argument("--only")
    o = ap.parse_args()
    os.makedirs(o.out, exist_ok=True)
    with open(BASE) as f:
        base = json.load(f)
    base["vocab"] = os.path.abspath(base["vocab"])
    rows = []
    for name, what, edit in VARIANTS:
        if o.only and name not in o.only.split(","):
            continue
        cfg, model = "%s/%s.json" % (o.out, name), "%s/%s.model.json" % (o.out, name)
        if edit is None:  # the config itself: the same file `make models` trains
            cfg = BASE
        else:
            c = copy.deepcopy(base)
            edit(c)
            with open(cfg, "w") as f:
                json.dump(c, f, indent=1)
        r0 = os.times()
        run([o.attend, "train", "--config", cfg, "--out", model, "--quiet"])
        r1 = os.times()
        cpu = (r1.children_user + r1.children_system) - (r0.children_user + r0.children_system)
        rows.append(measure(o.attend, name, what, model, cpu))
        print(rows[-1], file=sys.stderr)
    head = ("| run | what differs | phase change (step) | 2nd-copy loss | best last-layer head: "
            "induction (by length) / prefix | best prev-token head | ablating it: 2nd-copy loss "
            "| 1st-copy loss | CPU s |\n|---|---|---|---|---|---|---|---|---|")
    table = head + "\n" + "\n".join(rows) + "\n"
    if o.write:
        with open(o.write) as f:
            text = f.read()
        a, b = "<!-- induction-sweep -->\n", "<!-- /induction-sweep -->"
        i, j = text.index(a) + len(a), text.index(b)
        with open(o.write, "w") as f:
            f.write(text[:i] + table + text[j:])
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())

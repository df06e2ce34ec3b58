#!/usr/bin/python3
"""doc_figures.py - the figures docs/training.md quotes are the ones the code computes.

Each figure in the doc is found by a pattern around it and compared, at the precision the
doc prints, with its source: the model files' `training` objects, `attend dump`, or the
closing lines of tests/unit/test_models.c (run here). A stale hand-typed figure fails.
Prints one line per figure and "N passed, N failed".
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
os.chdir(ROOT)
ATTEND = os.environ.get("ATTEND", "./attend")
BUILD = os.environ.get("BUILD", "build")
doc = open("docs/training.md", encoding="utf-8").read()
passed = failed = 0


def training(name):
    with open("data/%s.json" % name, encoding="utf-8") as f:
        return json.load(f)["training"]


def dump_cell(model, sentence, layer, head, row, col):
    out = subprocess.run([ATTEND, "dump", "--model", model, "--sentence", sentence, "--layer",
                          str(layer), "--head", str(head)], capture_output=True, text=True,
                         check=True).stdout
    rows = [l for l in out.split("\n") if "|" in l and not l.lstrip().startswith("sum")]
    cells = rows[1 + row].split("|")[0].split()[1:]
    return float(cells[col])


models_out = subprocess.run([os.path.join(BUILD, "tests", "test_models")], capture_output=True,
                            text=True).stdout


def from_test(pattern, group=1):
    m = re.search(pattern, models_out)
    if not m:
        raise ValueError("test_models printed no line matching %r" % pattern)
    return float(m.group(group))


def check(pattern, value, what):
    """pattern: a regex with one group, the figure as the doc prints it."""
    global passed, failed
    m = re.search(pattern, doc)
    if not m:
        failed += 1
        print("FAIL - %s: the doc no longer says it (pattern %r)" % (what, pattern))
        return
    shown = m.group(1)
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    want = ("%." + str(decimals) + "f") % value
    if shown == want:
        passed += 1
        print("ok - %s: %s" % (what, shown))
    else:
        failed += 1
        print("FAIL - %s: the doc says %s, the code gives %s (%r)" % (what, shown, want, value))


dec, cheat, tr, enc = (training(n) for n in ("decoder", "decoder-cheat", "translate", "encoder"))
check(r"GELU; 1500 steps of 16×32 tokens \| ([0-9.]+) /", dec["train_loss_masked"], "decoder training loss")
check(r"GELU; 1500 steps of 16×32 tokens \| [0-9.]+ / ([0-9.]+)", dec["eval_loss"], "decoder held-out loss")
check(r"unmasked ([0-9.]+); with the mask restored", cheat["train_loss_unmasked"], "cheat unmasked loss")
check(r"with the mask restored ([0-9.]+) /", cheat["train_loss_masked"], "cheat loss, mask restored")
check(r"with the mask restored [0-9.]+ / ([0-9.]+)", cheat["eval_loss"], "cheat held-out, mask restored")
check(r"1200 steps of 16 pairs \| ([0-9.]+) /", tr["train_loss_masked"], "translate training loss")
check(r"1200 steps of 16 pairs \| [0-9.]+ / ([0-9.]+)", tr["eval_loss"], "translate held-out loss")
check(r"25% of the words hidden \| ([0-9.]+) /", enc["train_loss_masked_lm"], "encoder training loss")
check(r"25% of the words hidden \| [0-9.]+ / ([0-9.]+)", enc["eval_loss"], "encoder held-out loss")
check(r"`eval_loss`, on the first 300 held-out sequences, says ([0-9.]+)", cheat["eval_loss"],
      "cheat eval_loss in the prose")
check(r"says [0-9.]+ against ([0-9.]+)\);", dec["eval_loss"], "decoder eval_loss in the prose")
check(r'puts ([0-9.]+) of the second "the" on "chased"',
      dump_cell("data/decoder.json", "the dog chased the cat", 0, 2, 3, 2), "L0.h2 on chased")
check(r'its `<mask>` row puts ([0-9.]+) of its weight on "she"',
      dump_cell("data/encoder.json", "the <mask> sat on the bed because she was tired .", 0, 3,
                1, 7), "encoder L0.h3 on she")
check(r'\(([0-9.]+) on "he" in the "he" sentence\)',
      dump_cell("data/encoder.json", "the <mask> sat on the bed because he was tired .", 0, 3,
                1, 7), "encoder L0.h3 on he")
check(r"mean weight of ([0-9.]+) on the previous token",
      from_test(r"previous-token head L0\.h2, mean weight ([0-9.]+)"), "previous-token weight")
check(r"previous token \(over ([0-9]+) query",
      from_test(r"mean weight [0-9.]+ over ([0-9]+) rows"), "previous-token rows")
check(r"largest\s+weight on the aligned English word for ([0-9.]+)% of the French words",
      from_test(r"pairs: ([0-9.]+)% of French words"), "translate words aligned")
check(r"and on every word's for ([0-9.]+)% of the pairs",
      from_test(r"([0-9.]+)% of pairs entirely aligned"), "translate pairs aligned")
check(r"its top-1 word is right for ([0-9.]+)%", from_test(r"top-1 ([0-9.]+)%"), "encoder top-1")
check(r"against ([0-9.]+)% for the\s+unigram baseline",
      from_test(r"unigram baseline \(\"sat\"\) ([0-9.]+)%"), "unigram baseline")
check(r"drops accuracy from ([0-9.]+)% to", from_test(r"both sides \([0-9]+\): ([0-9.]+)%"),
      "encoder, both sides")
check(r"drops accuracy from [0-9.]+% to ([0-9.]+)%",
      from_test(r"right-hand words replaced by random words ([0-9.]+)%"), "right-hand replaced")
check(r"training loss falls\s+to ([0-9.]+) \(it reads",
      from_test(r"cheating: training loss masked [0-9.]+, unmasked ([0-9.]+)"), "cheat training loss")
check(r"held-out loss\s+is ([0-9.]+) against",
      from_test(r"unmasked-trained ([0-9.]+)"), "cheat held-out (test)")
check(r"is [0-9.]+ against ([0-9.]+) for the masked run",
      from_test(r"masked-trained ([0-9.]+)"), "masked held-out (test)")
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)

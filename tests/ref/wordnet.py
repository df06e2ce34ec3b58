#!/usr/bin/python3
"""wordnet.py - the default model reads everyday English: every sentence of data/everyday.txt
(at least 200, written for attend, none a line of the corpus; every fifth in make check) runs through
`attend dump --sentence S --format json` with no --model and comes back without <unk>, on the
WordPiece model; the tokens docs/model-format.md quotes (its example sentence and its list of
odd splits) are the tokens. The rebuild of the
corpus and of docs/model-report.md is checked by wordnet_corpus.py (make test)."""
import json
import os
import re
import subprocess
import sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
A = os.environ.get("ATTEND", "./attend")
BUILD = os.environ.get("BUILD", "build")
passed = failed = 0


def check(cond, msg):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", msg)


def dump(sentence):
    """dump's JSON up to its tensors: the tokens and the config (its keys before "layers", one
    a line), and its stderr. The rest (~0.7 MB of tensors a sentence, a second of CPU over
    the suite to write and more to parse) is not read: attend stops at the closed pipe."""
    p = subprocess.Popen([A, "dump", "--sentence", sentence, "--format", "json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    head = []
    for line in p.stdout:
        if line.startswith('"layers"'):
            break
        head.append(line)
    else:
        head = None  # no tensors: refused (the message is on stderr)
    p.stdout.close()
    err = p.stderr.read()
    p.wait()
    if head is None:
        return None, err
    return json.loads("".join(head).rstrip().rstrip(",") + "}"), err


sentences = [l.strip() for l in open("data/everyday.txt", encoding="utf-8")
             if l.strip() and not l.startswith("#")]
check(len(sentences) >= 200, "data/everyday.txt has %d sentences (want >= 200)" % len(sentences))
# make test (ATTEND_TEST_FULL=1): every sentence, one dump each (~6 s of CPU); make check:
# every fifth, the first included
sweep = sentences if os.environ.get("ATTEND_TEST_FULL") == "1" else sentences[::5]
unk = []
pieces = tokens = 0
for s in sweep:
    d, err = dump(s)
    if d is None:
        unk.append((s, err.strip()))
        continue
    if d["config"]["tokenizer"] != "wordpiece" or "<unk>" in d["tokens"] or "<unk>" in err:
        unk.append((s, " ".join(d["tokens"])))
    tokens += len(d["tokens"])
    pieces += sum(t.startswith("##") for t in d["tokens"])
check(not unk, "%d everyday sentences with <unk> or refused, e.g. %s" % (len(unk), unk[:3]))
print("everyday: %d of %d sentences, %d tokens, %d of them ## pieces, no <unk>" %
      (len(sweep), len(sentences), tokens, pieces))
data_md = open("docs/data.md", encoding="utf-8").read()


def thin(n):
    """n as docs/data.md writes it: digits grouped by three with spaces (159 389)."""
    return "{:,}".format(n).replace(",", " ")


check("`data/everyday.txt` holds %d everyday" % len(sentences) in data_md,
      "docs/data.md gives the number of everyday sentences (%d)" % len(sentences))
n_vocab = sum(1 for l in open("data/vocab-wordnet.txt", encoding="utf-8")
              if l.strip() and not l.startswith("#tokenizer"))
check("%s tokens that spell any text" % thin(n_vocab) in data_md,
      "docs/data.md gives the vocabulary's size (%s)" % thin(n_vocab))

# the default model is data/wordnet.json; the word-level model still says <unk>
d, _ = dump("my sister loves the old river bridge")
check(d and d["config"]["model"].endswith("data/wordnet.json"), "default model: %s" %
      (d and d["config"]["model"]))
check(d and d["tokens"] == "my sister love ##s the old river bridge".split(),
      "docs/model-format.md's example: %s" % (d and d["tokens"]))
# docs/model-format.md's list of odd splits ("  - `word` → `tokens`"): each is the split
examples = re.findall(r"^  - `([a-z]+)` → `([^`]+)`", open("docs/model-format.md",
                      encoding="utf-8").read(), re.M)
check(len(examples) >= 2, "docs/model-format.md lists %d odd splits" % len(examples))
for word, toks in examples:
    d, _ = dump(word)
    check(d and d["tokens"] == toks.split(), "docs/model-format.md: %s is %s, not %s" %
          (word, d and " ".join(d["tokens"]), toks))
r = subprocess.run([A, "dump", "--model", "decoder.json", "--sentence", "my sister loves it",
                    "--format", "json"], capture_output=True, text=True)
check(r.returncode == 0 and "<unk>" in json.loads(r.stdout)["tokens"] and "not in the vocabulary"
      in r.stderr, "decoder.json (word-level) still reports <unk>")

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)

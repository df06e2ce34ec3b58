#!/usr/bin/python3
"""wordnet.py - the default model reads everyday English: every sentence of data/everyday.txt
(at least 200, written for attend, none a line of the corpus) runs through
`attend dump --sentence S --format json` with no --model and comes back without <unk>, on the
WordPiece model; the tokens docs/model-format.md quotes are the tokens. With Debian's
wordnet-base installed, tools/wordnet_corpus rebuilds the corpus and vocabulary (the committed
vocabulary is what it writes, and no everyday sentence is in the corpus), and
tools/model_report on the shipped models writes docs/model-report.md exactly."""
import json
import os
import re
import subprocess
import sys
import tempfile

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
    r = subprocess.run([A, "dump", "--sentence", sentence, "--format", "json"],
                       capture_output=True, text=True)
    if r.returncode:
        return None, r.stderr
    return json.loads(r.stdout), r.stderr


sentences = [l.strip() for l in open("data/everyday.txt", encoding="utf-8")
             if l.strip() and not l.startswith("#")]
check(len(sentences) >= 200, "data/everyday.txt has %d sentences (want >= 200)" % len(sentences))
unk = []
pieces = tokens = 0
for s in sentences:
    d, err = dump(s)
    if d is None:
        unk.append((s, err.strip()))
        continue
    if d["config"]["tokenizer"] != "wordpiece" or "<unk>" in d["tokens"] or "<unk>" in err:
        unk.append((s, " ".join(d["tokens"])))
    tokens += len(d["tokens"])
    pieces += sum(t.startswith("##") for t in d["tokens"])
check(not unk, "%d everyday sentences with <unk> or refused, e.g. %s" % (len(unk), unk[:3]))
print("everyday: %d sentences, %d tokens, %d of them ## pieces, no <unk>" %
      (len(sentences), tokens, pieces))
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
r = subprocess.run([A, "dump", "--model", "decoder.json", "--sentence", "my sister loves it",
                    "--format", "json"], capture_output=True, text=True)
check(r.returncode == 0 and "<unk>" in json.loads(r.stdout)["tokens"] and "not in the vocabulary"
      in r.stderr, "decoder.json (word-level) still reports <unk>")

if os.path.exists("/usr/share/wordnet/data.noun"):
    with tempfile.TemporaryDirectory() as tmp:
        vocab = os.path.join(tmp, "vocab.txt")
        r = subprocess.run([BUILD + "/tools/wordnet_corpus", "--out", tmp, "--vocab", vocab,
                            "--not-in", "data/everyday.txt"], capture_output=True, text=True)
        check(r.returncode == 0, "wordnet_corpus: %s" % r.stderr.strip())
        m = re.search(r"(\d+) lines \((\d+) examples, \d+ definitions\), (\d+) held out", r.stdout)
        want = m and "%s lines, %s of them examples, %s held out" % tuple(
            thin(int(x)) for x in m.groups())
        check(m and want in data_md.replace("\n", " "),
              "docs/data.md gives the corpus's size as the tool counts it (%s)" % want)
        check(r.returncode == 0 and open(vocab, "rb").read() ==
              open("data/vocab-wordnet.txt", "rb").read(),
              "wordnet_corpus writes the committed data/vocab-wordnet.txt")
        specs = []
        for spec in open("Makefile").read().split("REPORT_MODELS :=")[1].split("\nmodels:")[0] \
                .replace("\\", " ").split():
            specs.append(spec.replace("data/corpus/wordnet", os.path.join(tmp, "wordnet")))
        r = subprocess.run([BUILD + "/tools/model_report"] + specs, capture_output=True,
                           text=True)
        want = open("docs/model-report.md", encoding="utf-8").read()
        check(r.returncode == 0 and r.stdout == want,
              "docs/model-report.md is what model_report measures on the shipped models%s" %
              (": " + r.stderr.strip() if r.returncode else " (run make models)"))
else:
    print("wordnet: wordnet-base not installed: the corpus tool and the report are not checked")

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)

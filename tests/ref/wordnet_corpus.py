#!/usr/bin/python3
"""wordnet_corpus.py - with Debian's wordnet-base and scowl installed, tools/wordnet_corpus rebuilds the
corpus and vocabulary (the committed vocabulary is what it writes, and no everyday sentence is
in the corpus; docs/data.md gives its sizes as the tool counts them), and tools/model_report on
the shipped models writes docs/model-report.md exactly."""
# suite: slow
import os
import re
import subprocess
import sys
import tempfile

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUILD = os.environ.get("BUILD", "build")
passed = failed = 0


def check(cond, msg):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", msg)


def thin(n):
    """n as docs/data.md writes it: digits grouped by three with spaces (159 389)."""
    return "{:,}".format(n).replace(",", " ")


data_md = open("docs/data.md", encoding="utf-8").read()
# the natural vocabulary's options (Makefile: SCOWL, EVERYDAY, COMMON, NATURAL) and what make
# models passes (WORDNET_VOCAB: $(NATURAL), the shipped vocabulary; empty, the greedy one of before)
mk = open("Makefile").read()
scowl = re.search(r"^SCOWL\s*:=\s*(\S+)", mk, re.M).group(1)


def lists(var, flag):
    """The SCOWL files the Makefile's var names, as wordnet_corpus's flag arguments."""
    m = re.search(r"^%s\s*:=\s*\$\(addprefix %s \$\(SCOWL\)/,([^)]*)\)" % (var, flag), mk,
                  re.M | re.S)
    files = m.group(1).replace("\\", " ").split() if m else []
    check(len(files) >= 1, "the Makefile names the %s word lists (%s)" % (var, files))
    return [a for f in files for a in (flag, os.path.join(scowl, f))]


natural = ["--natural"] + lists("EVERYDAY", "--everyday") + lists("COMMON", "--common")
check(re.search(r"^NATURAL\s*:=\s*--natural \$\(EVERYDAY\) \$\(COMMON\)\s*$", mk, re.M),
      "NATURAL is --natural $(EVERYDAY) $(COMMON)")
shipped = re.search(r"^WORDNET_VOCAB\s*\?=(.*)$", mk, re.M).group(1).strip()
shipped_args = natural if shipped == "$(NATURAL)" else []
check(shipped in ("", "$(NATURAL)"), "WORDNET_VOCAB is empty or $(NATURAL): %r" % shipped)
if os.path.exists("/usr/share/wordnet/data.noun") and os.path.isdir(scowl):
    with tempfile.TemporaryDirectory() as tmp:
        # the natural vocabulary as make models writes it: its share of everyday words that
        # read naturally (tests/unit/test_words.c) is docs' figure, at least 98% (issue 34)
        nat = os.path.join(tmp, "natural.txt")
        r = subprocess.run([BUILD + "/tools/wordnet_corpus", "--out", tmp, "--vocab", nat,
                            "--not-in", "data/everyday.txt"] + natural, capture_output=True,
                           text=True)
        check(r.returncode == 0, "wordnet_corpus --natural: %s" % r.stderr.strip())
        out = r.stdout
        r = subprocess.run([BUILD + "/tests/test_words"], capture_output=True, text=True,
                           env=dict(os.environ, WORDS_VOCAB=nat, WORDS_MIN="980"))
        m = re.search(r"\(([0-9.]+)%\)", r.stdout)
        check(r.returncode == 0 and m, "test_words on the natural vocabulary: %s%s" %
              (r.stdout.strip(), r.stderr.strip()))
        fmt = open("docs/model-format.md", encoding="utf-8").read()
        check(m and ("%s%%" % m.group(1)) in fmt, "docs/model-format.md gives the natural "
              "vocabulary's share (%s%%)" % (m and m.group(1)))
        vocab = nat
        if shipped_args != natural:
            vocab = os.path.join(tmp, "vocab.txt")
            r = subprocess.run([BUILD + "/tools/wordnet_corpus", "--out", tmp, "--vocab", vocab,
                                "--not-in", "data/everyday.txt"] + shipped_args,
                               capture_output=True, text=True)
            check(r.returncode == 0, "wordnet_corpus: %s" % r.stderr.strip())
            out = r.stdout
        m = re.search(r"(\d+) lines \((\d+) examples, \d+ definitions\), (\d+) held out; "
                      r"vocabulary (\d+) tokens", out)
        want = m and "%s lines, %s of them examples, %s held out" % tuple(
            thin(int(x)) for x in m.groups()[:3])
        check(m and want in data_md.replace("\n", " "),
              "docs/data.md gives the corpus's size as the tool counts it (%s)" % want)
        check(m and ("%s tokens" % thin(int(m.group(4)))) in data_md.replace("\n", " "),
              "docs/data.md gives the vocabulary's size (%s tokens)" % (m and thin(int(m.group(4)))))
        check(open(vocab, "rb").read() == open("data/vocab-wordnet.txt", "rb").read(),
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
    print("wordnet: wordnet-base or scowl not installed: the corpus tool and the report are not "
          "checked")

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)

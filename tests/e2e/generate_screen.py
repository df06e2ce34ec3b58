#!/usr/bin/env python3
"""generate_screen.py - reads the generate widget off a captured screen (capture-pane -p)
for tests/e2e/test_generate.sh, and checks it against `attend dump`:

  generate_screen.py SCREEN ATTEND    the text on the line under "Generate  step S", the
      "next, p" line's candidates and probabilities (3 decimals) against the softmax of the
      last row of logits of `ATTEND dump --sentence TEXT --format json`, and every K row
      shown (the token, the new query's weight w, the entries, 2 decimals) against dump's
      L0.h0.k and weights. Prints the step and the number of cache rows ("step 5 rows 7"),
      then one line per problem; exits 1 if any. Not a test by itself."""
import json
import math
import re
import struct
import subprocess
import sys


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def main(screen_path, attend):
    lines = open(screen_path, encoding="utf-8").read().split("\n")
    problems = []
    at = next(i for i, l in enumerate(lines) if re.search(r"Generate  step \d+", l))
    step = int(re.search(r"step (\d+), (\d+) tokens", lines[at]).group(1))
    n = int(re.search(r"step (\d+), (\d+) tokens", lines[at]).group(2))
    text = lines[at + 1].split()
    if len(text) != n or text[0] in ("...", "…"):
        problems.append("the text line shows %d of %d tokens: %s" % (len(text), n, text))
    # the lesson page runs the lessons' default model, decoder.json (dump's own is wordnet.json)
    out = subprocess.run([attend, "dump", "--model", "decoder.json", "--sentence", " ".join(text),
                          "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    d = json.loads(out)
    logits = [f32(x) for x in d["tensors"]["logits"][-1]]
    mx = max(logits)
    z = sum(math.exp(x - mx) for x in logits)
    words = open("data/vocab.txt", encoding="utf-8").read().split("\n")
    p = {words[j]: math.exp(x - mx) / z for j, x in enumerate(logits)}
    nxt = next(l for l in lines if l.strip().startswith("next, p"))
    cands = re.findall(r"(\S+)\s+(\d\.\d{3})", nxt.split("next, p", 1)[1])
    if len(cands) < 3:
        problems.append("fewer than 3 candidates on: %s" % nxt)
    for w, shown in cands:
        if w not in p or "%.3f" % p[w] != shown:
            problems.append("p(%s) shown %s, dump's softmax %s" % (w, shown,
                                                               "%.3f" % p.get(w, -1)))
    head = d["layers"][0]["heads"][0]
    # the K table: the left part of the lines under "K cache:", up to a blank line or the
    # candidates; the
    # earliest rows may be folded into one "... N earlier rows" line
    title = next(i for i in range(at, len(lines)) if "K cache:" in lines[i])
    shown = []
    for l in lines[title + 1:]:
        f = l[:47].split()
        if not f or f[0] in ("next,", "next"):
            break
        if "earlier" in l[:47]:
            continue
        shown.append((f[0], f[1:]))
    for r, (tok, vals) in enumerate(shown):
        i = n - len(shown) + r
        want_tok = d["tokens"][i]
        if not (want_tok == tok or (tok[-1] in "…." and want_tok.startswith(tok.rstrip("….")))):
            problems.append("row %d: token %s, dump's %s" % (i, tok, want_tok))
        if "%.2f" % head["weights"][-1][i] != vals[0]:
            problems.append("row %d: w %s, dump's %.2f" % (i, vals[0], head["weights"][-1][i]))
        for j, v in enumerate(vals[1:]):
            want = "%.2f" % head["k"][i][j]
            if want != v and not (want == "-0.00" and v == "0.00"):
                problems.append("row %d col %d: K %s, dump's %s" % (i, j, v, want))
    print("step %d rows %d shown %d" % (step, n, len(shown)))
    for pr in problems:
        print(pr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

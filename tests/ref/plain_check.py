#!/usr/bin/env python3
"""plain_check.py - checks attend --plain output against attend dump (tests/ref/plain.sh).

  plain_check.py rows OUT.txt DUMP.json   every heatmap row the plain output says (the last
                                          block of rows in OUT) names its strongest key with
                                          the weight dump computes, every masked key as
                                          masked, and the sum of its weights
  plain_check.py clean FILE...            no escape or control byte, no box drawing, block or
                                          shade character (U+2500-U+259F) in the files
Prints one line per problem; exits 1 if there is any."""
import json
import re
import sys


def rows(out_path, dump_path):
    text = open(out_path, encoding="utf-8").read()
    dump = json.load(open(dump_path))
    toks = dump["tokens"]
    w = dump["layers"][0]["heads"][0]["weights"]
    masked = dump["layers"][0]["heads"][0]["masked"]
    n = len(toks)
    # the last block of rows: the state after the last command
    lines = [l for l in text.splitlines() if re.match(r"row \d+, ", l)]
    lines = lines[-n:]
    problems = []
    if len(lines) != n:
        return ["%d row lines for %d tokens" % (len(lines), n)]
    for i, line in enumerate(lines):
        m = re.match(r"row (\d+), (\S+): (.*)$", line)
        if not m or int(m.group(1)) != i or m.group(2) != toks[i]:
            problems.append("row %d: %r" % (i, line))
            continue
        row = w[i]
        live = [j for j in range(n) if masked[i][j] is not None and masked[i][j] > -1e30]
        best = max(live, key=lambda j: (row[j], -j))
        dup = toks.count(toks[best]) > 1
        name = "%s (key %d)" % (toks[best], best) if dup else toks[best]
        want = "%s %.2f" % (name, row[best])
        if not m.group(3).startswith(want):
            problems.append("row %d: want it to start with %r: %r" % (i, want, line))
        n_masked = n - len(live)
        if n_masked and "masked:" not in line:
            problems.append("row %d: %d masked keys not named: %r" % (i, n_masked, line))
        if not n_masked and "masked:" in line:
            problems.append("row %d: no key is masked: %r" % (i, line))
        if "sum %.2f" % sum(row) not in line:
            problems.append("row %d: want sum %.2f: %r" % (i, sum(row), line))
    return problems


def clean(paths):
    problems = []
    for p in paths:
        data = open(p, "rb").read()
        for k, b in enumerate(data):
            if (b < 0x20 and b not in (0x0A,)) or b == 0x7F:
                problems.append("%s: byte 0x%02x at %d" % (p, b, k))
                break
        text = data.decode("utf-8", errors="surrogateescape")
        for k, c in enumerate(text):
            # a C1 control, raw (0x80-0x9F outside a character) or as U+0080-U+009F: an 8-bit
            # terminal reads 0x9B as CSI (issue 39)
            if 0xDC80 <= ord(c) <= 0xDC9F or 0x80 <= ord(c) <= 0x9F:
                problems.append("%s: a C1 control at character %d" % (p, k))
                break
        for k, c in enumerate(text):
            if 0x2500 <= ord(c) <= 0x259F:
                problems.append("%s: U+%04X at character %d" % (p, ord(c), k))
                break
    return problems


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "rows":
        probs = rows(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "clean":
        probs = clean(sys.argv[2:])
    else:
        print(__doc__)
        return 2
    for p in probs:
        print(p)
    return 1 if probs else 0


if __name__ == "__main__":
    sys.exit(main())

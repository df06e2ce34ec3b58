#!/usr/bin/env python3
"""plain_check.py - checks attend --plain output against attend dump (tests/ref/plain.sh).

  plain_check.py rows OUT.txt DUMP.json   every heatmap row the plain output says (the last
                                          block of rows in OUT) names its strongest key with
                                          the weight dump computes, every masked key as
                                          masked, and the sum of its weights
  plain_check.py change OUT.txt WHAT BEFORE.json AFTER.json
                                          the announcement "WHAT: ..." in OUT against the
                                          weights dump computes before and after: the cell it
                                          says moved most moved that much (compared by token,
                                          never by position), "still gives" holds in both, a
                                          token said to move did, "no weight changed" is true
                                          at two decimals, and a new sentence's facts are its
                                          own
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


def change(out_path, what, before_path, after_path):
    text = open(out_path, encoding="utf-8").read()
    line = next((l for l in text.splitlines() if l.startswith(what + ": ")), None)
    if line is None:
        return ["no announcement starting %r" % (what + ": ")]
    b, a = json.load(open(before_path)), json.load(open(after_path))
    wb, wa = b["layers"][0]["heads"][0]["weights"], a["layers"][0]["heads"][0]["weights"]
    tb, ta = b["tokens"], a["tokens"]
    # a token by its place in the sentence as typed: dump's "order" (position i runs token
    # order[i]); a new sentence is never compared
    ob = b.get("order") or list(range(len(tb)))
    oa = a.get("order") or list(range(len(ta)))
    same = sorted(zip(ob, tb)) == sorted(zip(oa, ta))
    probs = []
    fmt = lambda x: "%.2f" % x
    def word(toks, i, row):
        return "itself" if i == row else toks[i]
    m = re.search(r"row (\d+) \((\S+)\) changed most: it now gives (\S+) (-?[\d.]+) \(was (-?[\d.]+)\)", line)
    if m:
        if not same:
            return ["compares rows of two different sentences: %r" % line]
        r = int(m.group(1))
        if ta[r] != m.group(2):
            probs.append("row %d is %s, not %s" % (r, ta[r], m.group(2)))
        cands = [j for j in range(len(ta)) if word(ta, j, r) == m.group(3)]
        ok = False
        for j in cands:
            rb, jb = ob.index(oa[r]), ob.index(oa[j])
            if fmt(wa[r][j]) == m.group(4) and fmt(wb[rb][jb]) == m.group(5):
                ok = True
        if not ok:
            probs.append("row %d's weight on %s is not %s now and %s before (by token): %r"
                         % (r, m.group(3), m.group(4), m.group(5), line))
        if m.group(4) == m.group(5):
            probs.append("says a weight changed that prints the same: %r" % line)
    m = re.search(r"'(\S+)' still gives (\S+) (-?[\d.]+)", line)
    if m:
        rows = [i for i in range(len(ta)) if ta[i] == m.group(1)]
        ok = False
        for r in rows:
            for j in range(len(ta)):
                if word(ta, j, r) != m.group(2):
                    continue
                rb, jb = ob.index(oa[r]), ob.index(oa[j])
                if fmt(wa[r][j]) == m.group(3) == fmt(wb[rb][jb]):
                    ok = True
        if not ok:
            probs.append("'%s' does not give %s %s before and after: %r" % (m.group(1), m.group(2), m.group(3), line))
    m = re.search(r"'(\S+)' moved from position (\d+) to (\d+)", line)
    if m:
        p0, p1 = int(m.group(2)), int(m.group(3))
        if tb[p0] != m.group(1) or ta[p1] != m.group(1) or ob[p0] != oa[p1]:
            probs.append("%s was not at %d before and %d after: %r" % (m.group(1), p0, p1, line))
    if "no weight changed at the printed precision" in line:
        if not same:
            probs.append("compares two different sentences: %r" % line)
        else:
            for i in range(len(ta)):
                for j in range(len(ta)):
                    rb, jb = ob.index(oa[i]), ob.index(oa[j])
                    if fmt(wa[i][j]) != fmt(wb[rb][jb]):
                        probs.append("row %d key %d moved: %s -> %s: %r" % (i, j, fmt(wb[rb][jb]), fmt(wa[i][j]), line))
                        return probs
    m = re.search(r"the new sentence has (\d+) tokens?; its strongest weight: row (\d+) \((\S+)\) gives (\S+) (-?[\d.]+)", line)
    if m:
        r, v = int(m.group(2)), m.group(5)
        if int(m.group(1)) != len(ta) or ta[r] != m.group(3):
            probs.append("not the new sentence's facts: %r" % line)
        best = max(max(row) for row in wa)
        if fmt(best) != v or not any(fmt(wa[r][j]) == v and word(ta, j, r) == m.group(4) for j in range(len(ta))):
            probs.append("the strongest weight is %s, not row %d's %s %s: %r" % (fmt(best), r, m.group(4), v, line))
    elif what.startswith("sentence ") and "the new sentence has" not in line:
        probs.append("an edit not said as the new sentence's own facts: %r" % line)
    return probs


def clean(paths):
    problems = []
    for p in paths:
        data = open(p, "rb").read()
        for k, b in enumerate(data):
            if (b < 0x20 and b not in (0x0A,)) or b == 0x7F:
                problems.append("%s: byte 0x%02x at %d" % (p, b, k))
                break
        text = data.decode("utf-8")
        for k, c in enumerate(text):
            if 0x2500 <= ord(c) <= 0x259F:
                problems.append("%s: U+%04X at character %d" % (p, ord(c), k))
                break
    return problems


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "rows":
        probs = rows(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == "change":
        probs = change(*sys.argv[2:6])
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

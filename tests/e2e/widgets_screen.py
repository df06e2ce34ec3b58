#!/usr/bin/env python3
"""widgets_screen.py - reads numbers off a captured screen of the explanation widgets and checks
them against values recomputed here from the fixture's own matrices and the model file's config
(never from attend's output). Used by test_widgets.sh; exit 0 when the check holds.

  widgets_screen.py worked-weights SCREEN FIXTURE CAUSAL(0|1)   A = softmax rows
  widgets_screen.py worked-out SCREEN FIXTURE CAUSAL            out = A·V rows
  widgets_screen.py scaling SCREEN                              weights = softmax(scores), var ~ d_k
  widgets_screen.py maxraw SCREEN                               prints the unscaled max weight
  widgets_screen.py kv SCREEN MODEL                             cache floats = 2·L·t·h·d_k
  widgets_screen.py cost SCREEN MODEL                           N², bytes = N²·h·L·4
  widgets_screen.py params SCREEN FIXTURE TIED GQA              total from the config
"""
import json, math, re, sys

THIN = "\u2009"


def lines(path):
    return open(path, encoding="utf-8").read().split("\n")


def num(s):
    return float(s.replace(THIN, "").replace(" ", ""))


def worked_spec(fixture):
    course = json.load(open(fixture))
    return course["pages"][0]["widget"]


def attention(w, causal, scale=True):
    q, k, v = w["q"], w["k"], w["v"]
    dk = len(q[0])
    A, O = [], []
    for i, qi in enumerate(q):
        s = []
        for j, kj in enumerate(k):
            x = sum(a * b for a, b in zip(qi, kj))
            if scale:
                x /= math.sqrt(dk)
            s.append(-math.inf if causal and j > i else x)
        m = max(s)
        e = [0.0 if x == -math.inf else math.exp(x - m) for x in s]
        z = sum(e)
        a = [x / z for x in e]
        A.append(a)
        O.append([sum(a[j] * v[j][d] for j in range(len(k))) for d in range(len(v[0]))])
    return A, O


def matrix_at(scr, title, nrows, ncols):
    """Rows of the matrix whose title starts with `title`, read from its column."""
    for y, line in enumerate(scr):
        x = line.find(title)
        # the matrix's title carries its shape ("A = softmax [3×3]"); the formula line does not
        if x < 0 or not re.match(r"[^\[:]*\[\d+(×|x)\d+\]", line[x:]):
            continue
        rows = []
        for r in range(nrows):
            f = scr[y + 2 + r][x:].split()
            vals = [0.0 if c in ("·", "x") else float(c) for c in f[1:1 + ncols]]
            rows.append((f[0], vals, f[1 + ncols:]))
        return rows
    raise SystemExit("no matrix titled %r on the screen" % title)


def close(a, b, tol):
    return all(abs(x - y) <= tol for x, y in zip(a, b)) and len(a) == len(b)


def main():
    what, scr = sys.argv[1], lines(sys.argv[2])
    if what in ("worked-weights", "worked-out"):
        w = worked_spec(sys.argv[3])
        A, O = attention(w, sys.argv[4] == "1")
        labels = w.get("labels") or ["t%d" % i for i in range(len(w["q"]))]
        if what == "worked-weights":
            rows = matrix_at(scr, "A = softmax", len(A), len(A[0]))
            want = A
        else:
            rows = matrix_at(scr, "out = A", len(O), len(O[0]))
            want = O
        for i, (lab, vals, rest) in enumerate(rows):
            if lab != labels[i] or not close(vals, want[i], 0.006):
                raise SystemExit("row %d: screen %s %s, want %s %s" % (i, lab, vals, labels[i],
                                                                    [round(x, 3) for x in want[i]]))
            if what == "worked-weights" and rest[:1] != ["1.00"]:
                raise SystemExit("row %d sums to %s on screen" % (i, rest[:1]))
        return
    if what in ("scaling", "maxraw"):
        dk = int(re.search(r"d_k = (\d+)", "\n".join(scr)).group(1))
        var = float(re.search(r"var\(q.k\) = ([0-9.]+)", "\n".join(scr)).group(1))
        raw, wraw, scaled = [], [], []
        for line in scr:
            m = re.search(r"\bk(\d) +(-?[0-9.]+) .*? ([01]\.\d\d) +k\d +(-?[0-9.]+) ", line)
            if m:
                raw.append(float(m.group(2)))
                wraw.append(float(m.group(3)))
                scaled.append(float(m.group(4)))
        if len(raw) != 8:
            raise SystemExit("found %d key rows" % len(raw))
        if what == "maxraw":
            print(max(wraw))
            return
        z = max(raw)
        e = [math.exp(x - z) for x in raw]
        soft = [x / sum(e) for x in e]
        if not close(wraw, soft, 0.02):
            raise SystemExit("unscaled weights %s are not softmax(scores) %s" % (wraw, soft))
        if not close(scaled, [x / math.sqrt(dk) for x in raw], 0.01 + 0.005 / math.sqrt(dk)):
            raise SystemExit("scaled scores are not raw/sqrt(%d)" % dk)
        if abs(var / dk - 1) > 0.15:
            raise SystemExit("var(q.k) %g is not about d_k %d" % (var, dk))
        return
    if what == "kv":
        cfg = json.load(open(sys.argv[3]))["config"]
        text = "\n".join(scr)
        t = int(re.search(r"step (\d+)/\d+", text).group(1))
        rows = int(re.search(r"cached K \((\d+) rows?\)", text).group(1))
        floats = num(re.search(r"= ([0-9\u2009 ]+) floats", text).group(1))
        want = 2 * cfg["n_layers"] * t * cfg["n_heads"] * cfg["d_head"]
        if rows != t or floats != want:
            raise SystemExit("step %d: %d cached rows, %d floats; want %d rows, %d" % (t, rows, floats, t, want))
        print(t)
        return
    if what == "cost":
        cfg = json.load(open(sys.argv[3]))["config"]
        text = "\n".join(scr)
        n = int(re.search(r"N = (\d+) tokens", text).group(1))
        entries = num(re.search(r"N(?:²|\^2) = ([0-9\u2009 ]+) entries", text).group(1))
        by = num(re.search(r"4 B = ([0-9\u2009 ]+) B", text).group(1))
        if entries != n * n or by != n * n * cfg["n_heads"] * cfg["n_layers"] * 4:
            raise SystemExit("N %d: entries %d bytes %d" % (n, entries, by))
        print(n, int(entries), int(by))
        return
    if what == "params":
        c = json.load(open(sys.argv[3]))["pages"][4]["widget"]["config"]
        tied, gqa = sys.argv[4] == "1", sys.argv[5] == "1"
        d, h, dh, L, F, V = c["d_model"], c["n_heads"], c["d_head"], c["n_layers"], c["d_ff"], c["vocab"]
        kv = c["n_kv_heads"] if gqa else h
        per = d * h * dh + 2 * d * kv * dh + h * dh * d + 3 * d * F + 2 * d
        want = V * d + L * per + d + (0 if tied else d * V)
        for line in scr:
            m = re.search(r"total \(.*?\) +([0-9\u2009 ]+?) +100\.0%", line)
            if m:
                got = num(m.group(1))
                if got != want:
                    raise SystemExit("total %d, want %d" % (got, want))
                print(int(got))
                return
        raise SystemExit("no total line")
    raise SystemExit("unknown check " + what)


main()

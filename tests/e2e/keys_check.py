#!/usr/bin/env python3
"""keys_check.py - checks for tests/e2e/test_keys.sh against `attend --keys` (the key table).

  keys_check.py DUMP table              every named binding's key is spelled in its help line
  keys_check.py DUMP overlay SCREEN     the `?` overlay on SCREEN (capture-pane -p) is, line by
                                        line, the table's help
  keys_check.py DUMP footer SCREEN...   every footer hint on each SCREEN (capture-pane -e -p)
                                        is a hint of the table (key and one of its labels)
Prints one line per problem; exits 1 if there is any. Not a test by itself."""
import re
import sys


def load(path):
    rows = {}       # row index -> help lines
    binds, hints, lines, maps = [], [], [], {}
    for ln in open(path, encoding="utf-8"):
        ln = ln.rstrip("\n")
        if not ln or ln.startswith("#"):
            continue
        f = ln.split("\t")
        if f[0] == "map":
            maps[f[1]] = f[2]
        elif f[0] == "help":
            rows.setdefault(f[2], []).append(f[3])
        elif f[0] == "bind":
            binds.append(f[1:])
        elif f[0] == "hint":
            hints.append(f[1:])
        elif f[0] == "line":
            lines.append(f[1] if len(f) > 1 else "")
    return rows, binds, hints, lines, maps


def spelled(word, text):
    """word appears in text as a key name: not inside a longer word."""
    for m in re.finditer(re.escape(word), text):
        before = text[m.start() - 1] if m.start() > 0 else " "
        after = text[m.end()] if m.end() < len(text) else " "
        if word[-1].isalnum() and (after.isalnum()):
            continue
        if word[0].isalnum() and (before.isalnum()):
            continue
        return True
    return False


def check_table(rows, binds, maps):
    bad, n = [], 0
    for mp, row, code, names, req, kind in binds:
        if maps.get(mp) == "-" or kind == "alias":
            continue
        n += 1
        text = " ".join(rows.get(row, []))
        if not text:
            bad.append(f"{mp}: key {names} ({req}) has no help line")
        elif not any(spelled(w, text) for w in names.split("|")):
            bad.append(f"{mp}: key {names} ({req}) is not named in its help line: {text!r}")
    return bad, n


def check_overlay(lines, screen):
    scr = open(screen, encoding="utf-8").read().split("\n")
    top = next((i for i, l in enumerate(scr) if "keys (ESC closes)" in l), None)
    if top is None:
        return ["no help overlay on the screen"], 0
    left = max(scr[top].find("┌"), scr[top].find("+"))
    right = max(scr[top].rfind("┐"), scr[top].rfind("+"))
    box = []
    for l in scr[top + 1:]:
        if l[left:left + 1] in ("└", "+"):
            break
        box.append(l[left + 2:right].rstrip())
    want = [l[1:] if l.startswith("#") else l for l in lines]
    bad = []
    for i, a in enumerate(box):
        if a.endswith("…") or a.endswith("..."):
            bad.append(f"overlay line {i + 1} is cut (descriptions wrap, never end in …): {a!r}")
    if box != want:
        for i in range(max(len(box), len(want))):
            a = box[i] if i < len(box) else "<none>"
            b = want[i] if i < len(want) else "<none>"
            if a != b:
                bad.append(f"overlay line {i + 1}: shows {a!r}, the table says {b!r}")
                break
        bad.append(f"overlay: {len(box)} lines shown, {len(want)} in the table")
    return bad, len(box)


KEY_RE = re.compile(r"\x1b\[1m\x1b\[38;5;220m(.*?)\x1b\[0m")
ESC_RE = re.compile(r"\x1b\[[0-9;]*m")


def label_re(alts):
    return [re.compile("^" + re.escape(a).replace("%s", r"\S+") + "$") for a in alts.split("|")]


def check_footer(hints, screens):
    table = [(h[1], h[2], label_re(h[3])) for h in hints]
    bad, n = [], 0
    for path in screens:
        for l in open(path, encoding="utf-8", errors="replace").read().split("\n"):
            if "48;5;236m" not in l:
                continue  # not a footer row
            parts = KEY_RE.split(l)
            for i in range(1, len(parts), 2):
                key = parts[i]
                label = ESC_RE.sub("", parts[i + 1]).strip()
                n += 1
                if not any(key in (k, ka) and any(r.match(label) for r in res)
                           for k, ka, res in table):
                    bad.append(f"{path}: footer hint {key!r} {label!r} is not in the key table")
    return bad, n


def main():
    rows, binds, hints, lines, maps = load(sys.argv[1])
    what = sys.argv[2]
    if what == "table":
        bad, n = check_table(rows, binds, maps)
    elif what == "overlay":
        bad, n = check_overlay(lines, sys.argv[3])
    else:
        bad, n = check_footer(hints, sys.argv[3:])
    for b in bad:
        print(b)
    print(f"{what}: {n} checked, {len(bad)} problems")
    sys.exit(1 if bad or n == 0 else 0)


main()

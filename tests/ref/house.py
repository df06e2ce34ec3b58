#!/usr/bin/python3
"""house.py - checks the shape of the source tree (docs/architecture.md), from the code itself:

1. the call graph between object files has no circle, inside a room or across rooms: an edge
   foo -> bar when build/ROOM/foo.o uses a symbol (a function or a variable) that bar.o
   defines (nm on the objects of $BUILD, default build/: run after make); and every such edge
   follows the layering;
2. every include follows the layering  engine <- course <- tui <- cli: a room includes only its
   own headers and those of the rooms below it; only src/tui includes curses; cJSON appears
   only in the loaders;
3. no .c file is over 1,000 lines, and no function over 120 lines unless the comment above it
   says why (it contains "over 120 lines");
4. no raw key codes (27, 127, 8 as a key) in src/tui or src/cli: they use the named constants;
5. a trace's entries are read through trace_entry or trace_find (which fill the derived scaled
   and masked matrices) everywhere but in the engine files that write them.

Prints one line per check and closes with "N passed, N failed".
"""
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SRC = os.path.join(ROOT, "src")
ROOMS = ["engine", "course", "session", "tui", "cli"]  # lowest first
MAY_SEE = {r: set(ROOMS[: i + 1]) for i, r in enumerate(ROOMS)}
CJSON_OK = {"json", "model_io", "lesson_load", "question_load", "progress", "lesson", "question"}

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("ok - " + what)
    else:
        failed += 1
        print("FAIL - " + what)


files = {}  # "room/name.ext" -> text
for room in ROOMS:
    d = os.path.join(SRC, room)
    for f in sorted(os.listdir(d)):
        if f.endswith((".c", ".h")):
            with open(os.path.join(d, f), encoding="utf-8") as fh:
                files[room + "/" + f] = fh.read()
check(len(files) > 20, "src/ has its rooms (%d files in %s)" % (len(files), ", ".join(ROOMS)))
loose = [f for f in os.listdir(SRC) if f.endswith((".c", ".h"))]
check(not loose, "no source file outside the rooms" + (": " + " ".join(loose) if loose else ""))

header_room = {}
for path in files:
    room, name = path.split("/")
    if name.endswith(".h"):
        header_room[name] = room

INC = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
SYS = re.compile(r"^\s*#\s*include\s*<([^>]+)>", re.M)
layer_bad = []
curses_bad = []
cjson_bad = []
for path, text in files.items():
    room, name = path.split("/")
    mod = name.rsplit(".", 1)[0]
    for inc in INC.findall(text):
        base = os.path.basename(inc)
        if base not in header_room:
            layer_bad.append("%s includes unknown \"%s\"" % (path, inc))
            continue
        target_room = header_room[base]
        if target_room not in MAY_SEE[room]:
            layer_bad.append("%s (%s) includes %s (%s)" % (path, room, base, target_room))
    for inc in SYS.findall(text):
        if "curses" in inc and room != "tui":
            curses_bad.append(path)
        if "cJSON" in inc and mod not in CJSON_OK:
            cjson_bad.append(path)
check(not layer_bad, "every include follows engine <- course <- session <- tui <- cli" +
      "".join("\n    " + b for b in layer_bad))
check(not curses_bad, "only src/tui includes curses" + "".join("\n    " + b for b in curses_bad))
check(not cjson_bad, "cJSON only in the loaders" + "".join("\n    " + b for b in cjson_bad))

# circles: the call graph between object files (nm), Tarjan's strongly connected components
BUILD = os.path.join(ROOT, os.environ.get("BUILD", "build"))
objs = {}  # "room/name" -> object path, for every .c of the rooms
missing = []
for path in files:
    if path.endswith(".c"):
        o = os.path.join(BUILD, path[:-2] + ".o")
        if os.path.exists(o):
            objs[path[:-2]] = o
        else:
            missing.append(path)
check(not missing, "an object file for every source (%s, after make)" % os.path.relpath(BUILD, ROOT) +
      "".join("\n    no object for " + m for m in missing[:10]))
defined = {}
used = {}
for mod, o in sorted(objs.items()):
    out = subprocess.run(["nm", "-P", o], capture_output=True, text=True, check=False).stdout
    used[mod] = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        if f[1] == "U":
            used[mod].add(f[0])
        elif f[1] in "TDBRVWGSC" or f[1] in "iu":
            defined.setdefault(f[0], mod)
edges = {}
why = {}
for mod, syms in used.items():
    for sym in sorted(syms):
        target = defined.get(sym)
        if target and target != mod:
            edges.setdefault(mod, set()).add(target)
            why.setdefault((mod, target), []).append(sym)
against = ["%s -> %s (%s)" % (a, b, ", ".join(why[(a, b)][:3])) for a in sorted(edges)
           for b in sorted(edges[a]) if b.split("/")[0] not in MAY_SEE[a.split("/")[0]]]
check(not against, "every call between object files follows engine <- course <- session <- tui <- cli" +
      "".join("\n    " + b for b in against))

index = {}
low = {}
stack = []
on = set()
sccs = []
counter = [0]
sys.setrecursionlimit(10000)


def strong(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in sorted(edges.get(v, ())):
        if w not in index:
            strong(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))


for v in sorted(objs):
    if v not in index:
        strong(v)


def circle_text(comp):
    lines = ["circle: " + " <-> ".join(comp)]
    for a in comp:
        for b in sorted(edges.get(a, ())):
            if b in comp:
                lines.append("  %s -> %s: %s" % (a, b, ", ".join(why[(a, b)][:6])))
    return "\n    ".join(lines)


check(objs and not sccs, "no circle of calls between object files (%d objects, %d edges)" %
      (len(objs), sum(len(w) for w in edges.values())) +
      "".join("\n    " + circle_text(c) for c in sccs))

# a trace's entries are read through trace_entry/trace_find, which fill the derived ones
# (scaled, masked); only the engine files that write or derive them index the array itself
RAW_OK = {"engine/model.c", "engine/trace.c", "engine/trace_check.c"}
raw = ["%s:%d" % (p, t[:m.start()].count("\n") + 1) for p, t in files.items() if p not in RAW_OK
       for m in re.finditer(r"entries\[", t)]
check(not raw, "trace entries read through trace_entry/trace_find outside the engine's writers" +
      "".join("\n    " + r for r in raw))

# sizes
big = ["%s: %d lines" % (p, t.count("\n")) for p, t in files.items()
       if p.endswith(".c") and t.count("\n") > 1000]
check(not big, "no .c file over 1,000 lines" + "".join("\n    " + b for b in big))

FUNC_START = re.compile(r"^[A-Za-z_][\w \*]*\b(\w+)\s*\([^;]*$")
long_funcs = []
n_funcs = 0
for path, text in files.items():
    if not path.endswith(".c"):
        continue
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = FUNC_START.match(lines[i])
        if m and not lines[i].startswith("typedef"):
            # the body opens with "{" alone on a line after the (possibly wrapped) signature
            j = i
            while j < len(lines) and j < i + 8 and lines[j] != "{":
                if lines[j].rstrip().endswith(";"):
                    break
                j += 1
            if j < len(lines) and lines[j] == "{":
                k = j + 1
                while k < len(lines) and lines[k] != "}":
                    k += 1
                n = k - j - 1
                n_funcs += 1
                if n > 120:
                    above = "\n".join(lines[max(0, i - 12): i])
                    if "over 120 lines" not in above:
                        long_funcs.append("%s:%d: %s() has %d lines" % (path, i + 1, m.group(1), n))
                i = k
        i += 1
check(not long_funcs and n_funcs > 300,
      "no function over 120 lines without a comment saying why (%d functions)" % n_funcs +
      "".join("\n    " + b for b in long_funcs))

RAW = re.compile(r"(case\s+(27|127|8)\s*:|[=!]=\s*(27|127|8)\b)")
raw = []
for path, text in files.items():
    if path.split("/")[0] in ("session", "tui", "cli"):
        for n, line in enumerate(text.split("\n"), 1):
            if RAW.search(line):
                raw.append("%s:%d: %s" % (path, n, line.strip()))
check(not raw, "no raw key codes 27/127/8 in src/tui and src/cli" + "".join("\n    " + b for b in raw))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)

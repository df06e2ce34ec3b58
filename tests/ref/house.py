#!/usr/bin/python3
"""house.py - checks the shape of the source tree (docs/architecture.md), from the code itself:

1. the call graph between object files has no circle, inside a room or across rooms: an edge
   foo -> bar when build/ROOM/foo.o uses a symbol (a function or a variable) that bar.o
   defines (nm on the objects of $BUILD, default build/: run after make); and every such edge
   follows the layering;
2. every include follows the layering  engine <- course <- session <- tui <- cli: a room
   includes only its own headers and those of the rooms below it; only src/tui includes
   curses; cJSON is used (nm: a cJSON_ symbol) only by the loaders CJSON_LOADERS lists;
3. no .c file is over 1,000 lines, and no function over 120 lines unless the comment above it
   says why (it contains "over 120 lines");
4. no raw key codes (27, 127, 8 as a key) in src/tui or src/cli: they use the named constants;
5. a trace's entries are read through trace_entry or trace_find (which fill the derived scaled
   and masked matrices) everywhere but in the engine files that write them;
6. the Session (src/session, issue 33): no front end's struct keeps a copy of its state (a
   fixture that does must be caught), and every request the key table binds has a handler.

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
# The modules that may call cJSON (computed from nm: an object that uses a cJSON_ symbol), each
# a loader or writer of a file format. A module that stops using cJSON is named below (drop it
# from the list); a new one must be added here with its reason.
CJSON_LOADERS = {
    "engine/json": "the JSON helpers: parse with file:line:col, write atomically",
    "engine/model_io": "model files (attend's JSON format)",
    "engine/hf_model": "a Hugging Face model's config.json",
    "engine/hf_tokenizer_load": "a Hugging Face tokenizer.json",
    "engine/safetensors": "the safetensors header",
    "engine/heads": "a model's training record (the heads' history)",
    "engine/repeat_run": "the repeated-sequence recipe in a model's training record",
    "course/lesson": "lessons/*.json",
    "course/lesson_json": "lessons/*.json: typed reads with file:line:col",
    "course/lesson_widget": "a lesson's widget",
    "course/quiz_question": "a lesson's questions",
    "course/quiz_schedule": "the review schedule in the progress file",
    "course/progress": "the progress file",
    "course/lab_progress": "the labs' progress",
    "course/demo": "demo scripts and lecture plans",
    "course/demo_expect": "a lecture plan step's \"expect\" (demo.h)",
    "course/class_room": "the classroom's protocol (JSON lines) and its --results file",
    "course/class_client": "the classroom's protocol, the student's side",
    "cli/cmd_model": "attend model: writes a model file",
    "cli/cmd_train": "attend train: the training record",
    "engine/repeat": "the repeated-sequence recipe: its one reader (repeat_opts_read)",
}

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
check(not layer_bad, "every include follows engine <- course <- session <- tui <- cli" +
      "".join("\n    " + b for b in layer_bad))
check(not curses_bad, "only src/tui includes curses" + "".join("\n    " + b for b in curses_bad))

# ---- the Session (issue 33): one copy of the state, every key handled ----
def strip_comments(t):
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", t, flags=re.S)


def members(body):
    names = []
    for decl in body.split(";"):
        decl = re.sub(r"\[[^\]]*\]", "", decl.strip())
        for part in decl.split(","):
            m = re.search(r"(\w+)\s*$", part.strip())
            if m:
                names.append(m.group(1))
    return names


# The Session's state a front end must not keep a copy of: the widget's state and the
# selection (session.h), by the names the Session gives them.
SESSION_STATE = {"ctl", "order", "sentence", "src", "n_src", "tgt", "n_tgt", "chip_cur",
                 "chip_pick", "cur_r", "cur_c", "inspected", "all_heads", "allowed", "prog_ok",
                 "only_lesson", "course", "mt", "n_mt", "equiv", "run_err", "tensor", "snap",
                 "layer", "head", "cross", "live", "step", "ran"}
# Front-end structs that hold state of that name which is not the Session's, and why.
STATE_OK = {
    ("tui/view_train.c", "TrainState"): "live: the widget run of its heatmap on the model "
                                        "being trained (the run is the Session's)",
}
FRONT_END = re.compile(r"^(tui/(app|view_|layout|present|demo_play|check_pages)|cli/plain)")


def state_copies(texts):
    """The structs of the front ends' files that keep a copy of the Session's state."""
    bad = []
    for path, text in sorted(texts.items()):
        if not FRONT_END.match(path):
            continue
        t = strip_comments(text)
        for m in re.finditer(r"(?:typedef\s+)?struct\s*(\w*)\s*\{([^{}]*)\}\s*(\w*)\s*;", t):
            name = m.group(3) or m.group(1)
            if (path, name) in STATE_OK:
                continue
            copy = sorted(set(members(m.group(2))) & SESSION_STATE)
            if copy:
                bad.append("%s: struct %s keeps %s (the Session's: read it from session.h)" %
                           (path, name, ", ".join(copy)))
    return bad


sess = strip_comments(files.get("session/session.h", ""))
body = re.search(r"typedef struct Session \{(.*?)\} Session;", sess, re.S)
fields = set(members(body.group(1))) if body else set()
check(body and SESSION_STATE <= fields, "the Session holds the state the front ends must not copy" +
      ("" if not body else "".join("\n    not in session.h: " + f for f in sorted(SESSION_STATE - fields))))
copies = state_copies(files)
check(not copies, "no front end keeps its own copy of the Session's state" +
      "".join("\n    " + b for b in copies))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "house", "plain_copy.c")
with open(FIXTURE, encoding="utf-8") as fh:
    fixture = fh.read()
check(state_copies({"cli/plain_copy.c": fixture}),
      "the copy rule catches a front end's copy of the state (tests/fixtures/house/plain_copy.c)")

# every key the key table binds has a handler: a case, a comparison or an overlay's opens in
# the Session, a view or a front end (keys.c itself does not count)
keytab = files.get("session/keys.c", "")
bound = set(re.findall(r"KA?\([^()]*?(?:\([^()]*\))?[^()]*?,\s*(REQ_\w+)\)", keytab))
HANDLER = re.compile(r"case\s+(REQ_\w+)\s*:|(?:==|!=)\s*(REQ_\w+)|(REQ_\w+)\s*(?:==|!=)|"
                     r"\.opens\s*=\s*(REQ_\w+)")
handled = set()
for path, text in files.items():
    if path.split("/")[0] in ("session", "tui", "cli") and not path.startswith("session/keys."):
        for m in HANDLER.finditer(strip_comments(text)):
            handled.update(x for x in m.groups() if x)
unhandled = sorted(bound - handled)
check(len(bound) > 50 and not unhandled,
      "every request the key table binds (%d) has a handler in the Session, a view or a front end"
      % len(bound) + "".join("\n    no handler: " + r for r in unhandled))

# a widget's keys have one source, session_keymap (session_req.c): a widget view (a ViewOps
# with a widget kind) sets no keymap of its own, and nothing else maps a kind to a keymap
VIEWOPS = re.compile(r"ViewOps\s+\w+\s*=\s*\{([^;]*?)\};", re.S)
KIND_TO_KM = re.compile(r"W_[A-Z]+\s*[:?]\s*(?:return\s+)?KM_[A-Z]+")


def keymap_copies(texts):
    """Widget views that set their own keymap, and kind -> keymap maps outside the Session's."""
    bad = []
    for path, text in sorted(texts.items()):
        t = strip_comments(text)
        for m in VIEWOPS.finditer(t):
            if re.search(r"\.kind\s*=\s*W_(?!NONE\b)", m.group(1)) and ".keymap" in m.group(1):
                bad.append("%s: a widget view sets .keymap (its keys are session_keymap(kind))" % path)
        if path != "session/session_req.c" and KIND_TO_KM.search(t):
            bad.append("%s: maps a widget kind to a keymap (session_keymap does)" % path)
    return bad


km_copies = keymap_copies(files)
check(not km_copies, "a widget's keymap has one source, session_keymap" +
      "".join("\n    " + b for b in km_copies))
with open(os.path.join(ROOT, "tests", "fixtures", "house", "view_keymap.c"), encoding="utf-8") as fh:
    check(len(keymap_copies({"tui/view_keymap.c": fh.read()})) == 2,
          "the keymap rule catches a view's own keymap and its own kind -> keymap map "
          "(tests/fixtures/house/view_keymap.c)")

# which stack is shown: one rule, model_self_stack / model_output_stack / model_view_stack
# (trace.c), never a ternary of its own on the architecture
ARCH_TERNARY = re.compile(r"ARCH_(DECODER|ENCODER|ENCDEC)\s*\)?\s*\?\s*STACK_")
ternaries = ["%s:%d: %s" % (path, n, line.strip()) for path, text in sorted(files.items())
             if path != "engine/trace.c" for n, line in enumerate(text.split("\n"), 1)
             if ARCH_TERNARY.search(line)]
check(not ternaries, "which stack is shown is asked of model_self_stack/model_output_stack, "
      "never an inline ARCH_ ? STACK_ ternary" + "".join("\n    " + b for b in ternaries))

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
# one nm over every object (-A: each line starts "path: "); one nm per object cost ~4 s of CPU
mod_of = {o: mod for mod, o in objs.items()}
out = subprocess.run(["nm", "-P", "-A"] + sorted(objs.values()), capture_output=True, text=True,
                     check=False).stdout if objs else ""
lines = {}
for line in out.splitlines():
    o, _, rest = line.partition(": ")
    lines.setdefault(o, []).append(rest)
for mod, o in sorted(objs.items()):
    used[mod] = set()
    for line in lines.get(o, []):
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

# cJSON only in the loaders, computed from the objects (nm): a module that uses a cJSON_ symbol
cjson_users = sorted(m for m, syms in used.items() if any(x.startswith("cJSON_") for x in syms))
cjson_bad = [m for m in cjson_users if m not in CJSON_LOADERS]
cjson_gone = sorted(m for m in CJSON_LOADERS if m not in objs)
check(cjson_users and not cjson_bad and not cjson_gone,
      "cJSON only in the listed loaders (%d modules use it)" % len(cjson_users) +
      "".join("\n    not a listed loader: %s" % m for m in cjson_bad) +
      "".join("\n    listed but no such module: %s" % m for m in cjson_gone))
for m in sorted(set(CJSON_LOADERS) - set(cjson_users) - set(cjson_gone)):
    print("note - %s no longer uses cJSON: drop it from CJSON_LOADERS" % m)

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

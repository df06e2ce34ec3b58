#!/usr/bin/env bash
# test_plan.sh - a lecture plan never contradicts the screen (issue 37's seven defects, each
# checked here): 1. a caption is bound to its step and leaves with it; 2. leaving the plan (G,
# keys) suspends it and space returns to its own step on its own page, and a step's problem
# on the projector names no file path; 3. q is refused in plans (--check too); 4. notes show
# the plan's next step, R's paragraphs in plan order, and present --model starts notes on the
# page it opens; 5. recording a plan-driven lecture gives a script that passes --check and
# replays to the same screen, and --check writes no files; 6. --check reports every problem at
# once, and plans hold B, R, F, a class quiz and a demo by name; 7. the projector shows names,
# never a full path (x's badge, --model).
. "$(dirname "$0")/harness.bash"

RT=$E2E_TMP/run
mkdir -p "$RT" && chmod 700 "$RT"
export XDG_RUNTIME_DIR=$RT
LESSONS=$ROOT/lessons
P=$E2E_TMP/plans
mkdir -p "$P"
# state FIELD: a field of the presenter's published state (what attend notes shows)
state() {
    local f
    f=$(ls -t "$RT"/attend/*.state 2>/dev/null | head -n 1)
    [ -n "$f" ] && sed -n "s/^$1\t//p" "$f"
}
# state_is FIELD TEXT: polls the published state until FIELD contains TEXT (bounded)
state_is() {
    local i=0 n
    n=$(deadline_polls 5)
    while [ $i -lt "$n" ]; do
        state "$1" | grep -qF -- "$2" && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}

# ---- 1. a caption leaves with its step ----
cat >"$P/cap.json" <<'EOF'
{"steps": [
  {"open": "causal-mask", "page": 1},
  {"keys": "m", "caption": "CAPTION-M the upper triangle is gone"},
  {"open": "causal-mask", "page": 4}
]}
EOF
start 80 24 TERM=xterm-256color -- present --plan "$P/cap.json" --lessons "$LESSONS"
expect "step 1/3" "plan: step 1"
keys Space
expect "CAPTION-M" "1: the caption shows with its step"
keys Space
expect "step 3/3" "1: the next step"
expect_gone "CAPTION-M" "1: the caption left with its step (not under the next page)"
keys b
expect "CAPTION-M" "1: b: back at the step, its caption again"
keys m
expect_gone "CAPTION-M" "1: the teacher's m changed the screen: the caption that says otherwise goes"
keys q
expect_exit 0 "1: q quits"

# ---- 2. leaving the plan suspends it; space returns to its step on its page ----
start 80 24 TERM=xterm-256color -- present --plan "$P/cap.json" --lessons "$LESSONS"
expect "step 1/3" "2: step 1"
keys Space
expect "CAPTION-M" "2: step 2 (causal mask toggled)"
keys G
expect "go to page" "2: G"
keys 5 Enter
expect "page 5/" "2: G 5: another page"
expect "left: space returns" "2: the step counter says the plan was left"
keys Space
expect "page 1/" "2: space returns to the plan's own page"
expect "step 2/3" "2: at its own step"
expect "CAPTION-M" "2: in its own state (its caption holds again)"
keys Space
expect "page 4/" "2: then space takes the next step"
keys q
expect_exit 0 "2: q quits"
# a step's problem at play time (a room's port taken) shows without the plan's path
/usr/bin/python3 -c 'import socket,sys,time
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(1); print(s.getsockname()[1], flush=True); time.sleep(120)' >"$E2E_TMP/port" &
busy_pid=$!
i=0; while [ ! -s "$E2E_TMP/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
busy=$(cat "$E2E_TMP/port")
printf '{"steps": [\n  {"open": "causal-mask", "page": 1},\n  {"quiz": "causal-mask", "count": 1, "seed": 3, "room": true, "bind": "127.0.0.1", "port": %s}\n]}\n' "$busy" >"$P/busy.json"
start 80 24 TERM=xterm-256color -- present --plan "$P/busy.json" --lessons "$LESSONS"
expect "step 1/2" "2: a plan whose room cannot open"
keys Space
expect "plan step 2:" "2: the step's problem is on the screen"
check "2: without the plan's path" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qF '$P'"
keys q
expect_exit 0 "2: q quits"
kill "$busy_pid" 2>/dev/null

# ---- 3. q is refused in a plan, by --check too ----
printf '{"steps": [\n  {"open": "causal-mask", "page": 1},\n  {"keys": "m q"}\n]}\n' >"$P/quit.json"
out=$(cd "$P" && "$ATTEND" present --plan quit.json --check --lessons "$LESSONS" 2>&1)
rc=$?
refused() { [ "$rc" -eq 1 ] && grep -q '^quit.json:3:3: step 2: key "q" would end the lecture' <<<"$out"; }
check "3: --check refuses q at its file:line:col ($out)" refused

# ---- 4. notes: the plan's next step; R's paragraphs in plan order; --model's page ----
cat >"$P/notes.json" <<'EOF'
{"steps": [
  {"open": "causal-mask", "page": 1},
  {"open": "padding-mask", "page": 2}
]}
EOF
start 80 24 TERM=xterm-256color -- present --plan "$P/notes.json" --lessons "$LESSONS"
expect "step 1/2" "4: step 1"
check "4: notes name the plan's next step, not the next page" state_is next_title "step 2/2: padding-mask page 2"
keys R
check "4: with R, notes say the next paragraph comes first" state_is next_title "paragraph 2 of"
paras=$(state next_title | sed -n 's/^paragraph 2 of \([0-9]*\).*/\1/p')
keys Space
expect "step 1/2" "4: R: space showed the page's next paragraph, the plan waits"
check "4: notes follow: paragraph 3 of $paras" state_is next_title "paragraph 3 of"
i=2; while [ $i -lt "${paras:-3}" ]; do keys Space; i=$((i + 1)); done
check "4: every paragraph shown: notes name the plan's next step again" state_is next_title "step 2/2"
expect "step 1/2" "4: the plan still at step 1"
keys Space
expect "step 2/2" "4: then space takes the plan's next step"
keys q
expect_exit 0 "4: q quits"
# --model opens its first page: the notes follow that page, not the last session's
start 80 24 TERM=xterm-256color -- present --lessons "$LESSONS" --lesson causal-mask --page 3
expect "page 3/" "4: a session that ends on causal-mask page 3"
keys q
expect_exit 0 "4: q"
cp "$ROOT/data/decoder.json" "$E2E_TMP/my-model.json"
start 80 24 TERM=xterm-256color -- present --lessons "$LESSONS" --model "$E2E_TMP/my-model.json"
expect "opened my-model.json" "7: --model: the projector names the model, not its path"
check "7: no full path of the model on the projector" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qF '$E2E_TMP'"
title=$(screen | sed -n '2p' | sed 's/^ *//; s/ *$//') # the page's title, under the header
check "4: --model: notes start on the page it opened (\"$title\")" sh -c '[ -n "$1" ] && [ "$1" != "Every row still sums to one" ]' _ "$title"
check "4: --model: notes start on the page it opened" state_is page_title "${title:0:30}"
keys q
expect_exit 0 "4: q quits"

# ---- 5. recording a plan-driven lecture; --check writes no files ----
start 80 24 TERM=xterm-256color -- present --plan lecture-masks --lessons "$LESSONS" --record "$E2E_TMP/rec.json"
n=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["steps"]))' "$ROOT/demos/lecture-masks.json")
expect "step 1/$n" "5: the plan, recorded"
for _ in 1 2 3 4 5 6 7; do keys Space; done
expect "step 8/$n" "5: step 8 (the causal mask toggled)"
keys m m
keys b
expect "step 7/$n" "5: b"
keys Space Space
expect "step 9/$n" "5: step 9"
keys G
keys 1 Enter
expect "page 1/" "5: G 1: left the plan"
keys Space
expect "step 9/$n" "5: back in the plan"
keys Space
expect "step 10/$n" "5: step 10"
keys d
settle
final=$(screen | sed -n '1,11p;13,21p') # the page and its widget (row 12: a passing message)
keys q
expect_exit 0 "5: q ends the recording"
steps=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["steps"]))' "$E2E_TMP/rec.json" 2>/dev/null)
check "5: a short script: the plan's position, not its steps ($steps steps)" test "${steps:-99}" -le 8
check "5: the recording passes --check" "$ATTEND" demo --check "$E2E_TMP/rec.json" --lessons "$LESSONS"
start 80 24 TERM=xterm-256color -- demo "$E2E_TMP/rec.json" --lessons "$LESSONS"
expect "step 1/$steps" "5: the recording plays"
i=1; while [ $i -lt "$steps" ]; do keys Space; i=$((i + 1)); done
expect "step $steps/$steps" "5: to its last step"
settle
check "5: the replay ends on the recorded screen" sh -c "[ \"\$(tmux -L '$E2E_SOCK' capture-pane -p -t main | sed -n '1,11p;13,21p')\" = \"\$1\" ]" _ "$final"
keys q
expect_exit 0 "5: q"
printf '{"steps": [\n  {"open": "causal-mask", "page": 3},\n  {"keys": "x"}\n]}\n' >"$P/x.json"
mkdir -p "$E2E_TMP/clean"
(cd "$E2E_TMP/clean" && ATTEND_EXPORT_DIR= "$ATTEND" present --plan "$P/x.json" --check --lessons "$LESSONS" >/dev/null 2>&1)
check "5: --check runs x without writing a file ($(ls "$E2E_TMP/clean" | tr '\n' ' '))" test -z "$(ls -A "$E2E_TMP/clean")"

# a plan's x exports when its step runs, not again when space back to the plan replays it
rm -rf "$E2E_TMP/x-export"; mkdir -p "$E2E_TMP/x-export"
start 80 24 TERM=xterm-256color -- present --plan "$P/x.json" --lessons "$LESSONS"
expect "step 1/2" "5: a plan with x"
keys Space
expect "exported " "5: its x step exports"
n1=$(ls "$E2E_TMP/x-export" | wc -l)
keys G
keys 1 Enter
expect "left: space returns" "5: the plan left"
keys Space
expect "back to the plan" "5: space back: steps 1-2 replayed"
settle
n2=$(ls "$E2E_TMP/x-export" | wc -l)
check "5: the replay wrote no second figure ($n1 files, then $n2)" sh -c "[ $n1 -ge 1 ] && [ $n1 -eq $n2 ]"
keys q
expect_exit 0 "5: q"
# a key that would open an overlay is refused: its work is a step of its own
printf '{"steps": [\n  {"open": "why-attention", "page": 4},\n  {"keys": "e"},\n  {"keys": "G"},\n  {"keys": "?"}\n]}\n' >"$P/overlay.json"
out=$(cd "$P" && "$ATTEND" demo --check overlay.json --lessons "$LESSONS" 2>&1)
check "2: --check refuses e, G and ? in a plan, naming the step that does it ($out)" sh -c "grep -qF 'overlay.json:3:3: step 2: key \"e\" opens the sentence editor over the page: a plan types with \"type\"' <<'EOT'
$out
EOT
grep -qF 'overlay.json:4:3: step 3: key \"G\" opens the go-to box over the page: a plan moves with \"open\"' <<'EOT'
$out
EOT
grep -qF 'overlay.json:5:3: step 4: key \"?\" opens the help over the page' <<'EOT'
$out
EOT"

# ---- 6. every problem at once; B, R, F, a quiz and a demo in a plan ----
cat >"$P/many.json" <<'EOF'
{"steps": [
  {"open": "causal-mask", "page": 1},
  {"pause": -3},
  {"keys": "m", "colour": "red"},
  {"open": "causal-mask", "page": 99},
  {"keys": "m q"}
]}
EOF
out=$(cd "$P" && "$ATTEND" present --plan many.json --check --lessons "$LESSONS" 2>&1)
check "6: four problems, each at its file:line:col ($(wc -l <<<"$out") lines)" sh -c "[ \$(grep -cE '^many.json:[0-9]+:[0-9]+: step [2-5]: ' <<'EOT'
$out
EOT
) -eq 4 ]"
cat >"$P/rich.json" <<'EOF'
{"steps": [
  {"open": "causal-mask", "page": 3},
  {"keys": "B", "caption": "blank"},
  {"keys": "B F"},
  {"keys": "F R"},
  {"demo": "causal-mask", "to": 2},
  {"quiz": "causal-mask", "count": 2, "seed": 7}
]}
EOF
out=$(cd "$P" && "$ATTEND" present --plan rich.json --check --lessons "$LESSONS" 2>&1)
check "6: a plan holds B, R, F, a demo by name and a class quiz ($out)" sh -c "echo '$out' | grep -q 'every lesson, page and key checked'"

# ---- 7. x's badge names the file, not the machine's path ----
start 80 24 TERM=xterm-256color -- present --lessons "$LESSONS" --lesson causal-mask --page 3
expect "page 3/" "7: a heatmap page"
keys x
expect "exported " "7: x exports"
check "7: the badge has no full path" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qF '$E2E_TMP'"
keys q
expect_exit 0 "7: q quits"

echo "$E2E_PASS passed, $E2E_FAIL failed"
[ "$E2E_FAIL" -eq 0 ]

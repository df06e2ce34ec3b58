#!/usr/bin/env bash
# test_widgets.sh - the explanation widgets end to end at 80×24 and 200×60 on a fixture course
# with one page each: the worked example's weights and outputs (recomputed with python3 from
# the fixture's matrices), the √d_k experiment as d_k doubles, the KV cache stepping, the cost
# quadrupling as N doubles, the parameter total as t and g are pressed (recomputed from the
# config); then NO_COLOR=1 and LANG=C (ASCII) renders. Numbers are read off the screen by
# widgets_screen.py and compared with independent arithmetic.
. "$(dirname "$0")/harness.bash"
WFIX=$ROOT/tests/e2e/fixtures/widgets
WJSON=$WFIX/01-widgets.json
PY=$ROOT/tests/e2e/widgets_screen.py
MODEL=$ROOT/data/decoder.json
SCR=$E2E_TMP/screen.txt

if ! command -v python3 >/dev/null 2>&1; then
    echo "python3 is not installed"
    echo "0 passed, 1 failed"
    exit 1
fi

# pycheck DESCRIPTION CHECK ARGS...: screen to a file, then widgets_screen.py CHECK FILE ARGS,
# again until it passes or the (scaled) deadline: the screen may lag the key that changed it
# (a busy machine), so a check waits for its condition rather than reading the screen once
pycheck() {
    local d=$1 what=$2 i n msg
    shift 2
    n=$(deadline_polls 5)
    for ((i = 0; i < n; i++)); do
        screen >"$SCR"
        msg=$(python3 "$PY" "$what" "$SCR" "$@" 2>&1) && { ok "$d"; return; }
        sleep 0.05
    done
    fail "$d: $msg"
}
pyvalue() { screen >"$SCR"; python3 "$PY" "$@" 2>/dev/null | sed -n '1p'; }
# The value printed by CHECK once the screen satisfies it (polls: the screen may lag a key).
poll_value() {
    local what=$1 i v
    shift
    for i in $(seq 1 "$(deadline_polls 2)"); do
        screen >"$SCR"
        v=$(python3 "$PY" "$what" "$SCR" "$@" 2>/dev/null) && { echo "$v"; return 0; }
        sleep 0.05
    done
    return 1
}

for size in 80x24 200x60; do
    W=${size%x*}
    H=${size#*x}
    rm -rf "$XDG_STATE_HOME"
    XD=$E2E_TMP/export-$size
    mkdir -p "$XD"
    start "$W" "$H" "ATTEND_EXPORT_DIR=$XD" -- --lessons "$WFIX"
    # ---- worked ----
    expect "page 1/6" "$size: opens on the worked example"
    expect "step 1/6: Q, K, V" "$size: worked starts at Q, K, V"
    expect "n/N step" "$size: footer names the step keys"
    expect "m mask:off" "$size: footer names the mask key"
    keys n n n n
    expect "step 5/6: softmax" "$size: n steps to softmax"
    wait_for "A = softmax" 2
    pycheck "$size: worked weights match softmax(QKᵀ/√d_k) recomputed from the fixture" worked-weights "$WJSON" 0
    keys m
    expect "mask:causal" "$size: m turns the causal mask on"
    wait_for "1.00   0.00   0.00" 2 || wait_for "1.00      ·      ·" 2
    pycheck "$size: masked weights match (future keys 0, rows sum to 1)" worked-weights "$WJSON" 1
    keys n
    expect "step 6/6: ·V" "$size: n steps to ·V"
    pycheck "$size: outputs A·V match the recomputation" worked-out "$WJSON" 1
    keys N
    expect "step 5/6" "$size: N steps back"
    keys Down Right
    expect "bob→bob: q·k = 0×1 + 2×1 = 2.000" "$size: the cursor writes q·k out term by term"
    keys n n
    expect "last step: the output" "$size: stepping past the end is refused with a message"

    # ---- scaling ----
    keys Space
    expect "page 2/6" "$size: scaling page"
    expect "d_k = 64  scaling:off" "$size: scaling starts at d_k 64, unscaled"
    expect "+/- d_k" "$size: footer names +/-"
    pycheck "$size: d_k 64: weights are softmax(scores), scaled = raw/√d_k, var ≈ d_k" scaling
    keys - - - -
    expect "d_k = 4 " "$size: - halves d_k down to 4"
    pycheck "$size: d_k 4: consistent numbers" scaling
    low=$(pyvalue maxraw "$SCR")
    keys + + + + + + + +
    expect "d_k = 1024" "$size: + doubles d_k up to 1024"
    pycheck "$size: d_k 1024: consistent numbers" scaling
    high=$(pyvalue maxraw "$SCR")
    check "$size: unscaled max weight rises with d_k ($low -> $high)" \
        awk -v a="$low" -v b="$high" 'BEGIN { exit !(a != "" && b != "" && b > a) }'
    keys +
    expect "d_k stays in 1..1024" "$size: d_k stops at 1024"
    keys s
    expect "scaling:on" "$size: s switches to the scaled scores"

    # ---- kvcache ----
    keys Space
    expect "page 3/6" "$size: KV cache page"
    expect "step 3/6" "$size: KV cache starts at step 3"
    pycheck "$size: step 3: 3 cached rows, cache floats = 2·L·t·h·d_k from the model file" kv "$MODEL"
    keys n
    expect "step 4/6" "$size: n advances the step"
    expect "cached K (4 rows)" "$size: the cache grows by one row"
    pycheck "$size: step 4: cache floats grow with t" kv "$MODEL"
    expect "Step 4 of 6." "$size: prose follows the step ({{x step}})"
    keys Left Left
    expect "step 2/6" "$size: ← steps back"

    # ---- cost ----
    keys Space
    expect "page 4/6" "$size: cost page"
    v1=$(poll_value cost "$MODEL")
    check "$size: N 16: N² and bytes match the model's heads and layers ($v1)" test "${v1%% *}" = 16
    keys +
    expect "N = 32 tokens" "$size: + doubles N"
    v2=$(poll_value cost "$MODEL")
    check "$size: doubling N quadruples the entries and bytes ($v1 -> $v2)" \
        awk -v a="$v1" -v b="$v2" 'BEGIN { split(a, x, " "); split(b, y, " ")
            exit !(y[1] == 2 * x[1] && y[2] == 4 * x[2] && y[3] == 4 * x[3]) }'
    expect "▸32" "$size: the bar of the current N is marked"

    # ---- params ----
    keys Space
    expect "page 5/6" "$size: params page"
    expect "parameters of Qwen3-4B" "$size: the configuration's name"
    expect "t tied:yes" "$size: footer names t"
    expect "Tab lessons" "$size: g is GQA here, so the footer offers Tab for the lessons"
    t1=$(poll_value params "$WJSON" 1 1)
    check "$size: total (tied, GQA) matches the config's formula ($t1)" test -n "$t1"
    keys t
    expect "t tied:no" "$size: t unties the embeddings"
    t2=$(poll_value params "$WJSON" 0 1)
    check "$size: untied total adds d_model·vocab ($t1 -> $t2)" \
        awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(b - a == 2560 * 151936) }'
    keys g
    expect "g GQA:off" "$size: g turns GQA off"
    t3=$(poll_value params "$WJSON" 0 0)
    check "$size: without GQA the K and V projections grow ($t3)" test -n "$t3"
    # x: the table as shown (untied, no GQA) as an SVG and a CSV, the screen's total
    keys x
    expect "exported" "$size: x exports the params widget"
    svg=$(ls "$XD"/params-*.svg 2>/dev/null | head -1)
    sum=$(/usr/bin/python3 -c 'import re,sys; print(sum(int(x) for x in re.findall(r"data-count=\"(\d+)\"", open(sys.argv[1]).read())))' "$svg" 2>/dev/null)
    check "$size: the params SVG's rows add up to the screen's total ($sum = $t3)" test "$sum" = "$t3"
    check "$size: and its CSV says the same total" grep -q "^total,,$t3,1\$" "$XD"/params-*.csv
    keys Tab
    expect "lessons" "$size: Tab still opens the lesson menu"
    keys Escape
    keys Space
    expect "page 6/6" "$size: params of the page model"
    expect "r reset" "$size: reset offered where listed"
    keys q
    expect_exit 0 "$size: q quits and restores the terminal"
done

# ---- NO_COLOR and ASCII ----
rm -rf "$XDG_STATE_HOME"
start 80 24 NO_COLOR=1 -- --lessons "$WFIX"
expect "step 1/6: Q, K, V" "NO_COLOR: worked renders"
keys n n n n
pycheck "NO_COLOR: worked weights still readable and right" worked-weights "$WJSON" 0
keys Space
expect "max weight" "NO_COLOR: scaling renders"
keys q
expect_exit 0 "NO_COLOR: quits cleanly"

rm -rf "$XDG_STATE_HOME"
start 80 24 LANG=C LC_ALL=C -- --lessons "$WFIX"
expect "Q, K, V -> QK^T -> /sqrt(d_k) -> +M -> softmax -> *V" "LANG=C: the chain in ASCII"
expect "Q [3x2]" "LANG=C: shapes with x"
keys n n n n
pycheck "LANG=C: worked weights readable in ASCII" worked-weights "$WJSON" 0
keys m
wait_for "mask:causal" 2
pycheck "LANG=C: masked cells show x and weights still match" worked-weights "$WJSON" 1
keys Space
expect "sqrt(d_k) experiment" "LANG=C: scaling title in ASCII"
expect "#" "LANG=C: bars drawn with #"
pycheck "LANG=C: scaling numbers consistent" scaling
keys Space
expect "cached K (3 rows) ..." "LANG=C: kvcache in ASCII"
keys Space
expect "N^2 = 256 entries" "LANG=C: cost in ASCII"
keys Space
expect "tied to the embedding: 0" "LANG=C: params table"
t4=$(poll_value params "$WJSON" 1 1)
check "LANG=C: params total readable ($t4)" test -n "$t4"
expect "4 022 458 880 weights (4.02 B)." "LANG=C: grouped {{x params ,}} in ASCII (spaces, no ?)"
keys q
expect_exit 0 "LANG=C: quits cleanly"

# arriving on a chips page by space from another chips page: the table is this page's run
# (L9: the reordered, masked page, then the original order), not the last page's rows
rm -rf "$XDG_STATE_HOME"
P9=$(/usr/bin/python3 -c 'import json,glob
d=json.load(open(glob.glob("'"$ROOT"'/lessons/*-permutation-equivariance.json")[0]))
print([i+1 for i,p in enumerate(d["pages"]) if "causal mask breaks" in p["title"]][0])')
start 80 24 -- --lesson permutation-equivariance --page "$P9"
expect "outputs do not match" "chips: the masked, reordered page does not match"
keys Space
expect "outputs match permutation" "chips: the next page matches"
expect "after, order: 0 1 2 3" "chips: the table's order is this page's"
expect_gone "changed" "chips: no row of the last page's table is left"
keys q
expect_exit 0 "chips: quits"

# 16 tokens at 80x24: the cells are too narrow for numbers, so each row names its strongest
# value and key (row 0 under the causal mask gives itself 1.00)
start 80 24 -- --lessons "$ROOT/tests/e2e/fixtures/long"
expect "strongest" "long: the strongest column is shown"
row0=$(screen | grep -m1 -E '^ the +·')
check "long: row 0 names its strongest value, itself ($row0)" grep -qE '1\.00 +1\.00 the *$' <<<"$row0"
keys v
expect "strongest" "long: scores keep the column"
keys q
expect_exit 0 "long: quits"

# small multiples at 80x24 and 100x30: cells too narrow for values mark each row's strongest
# key with '*' (not colour alone); row 0 under the causal mask has only itself
for size in "80 24" "100 30"; do
    start $size -- --lesson multi-head --page 1
    wait_for "head 0 of" 2
    screen | grep -q "head 3 " || keys a
    # either the values fit (row 0 gives itself 1.00 in every head) or '*' marks them
    # polled: after a the screen redraws when the player gets to it (a busy machine lags)
    r0=""
    for ((i = 0; i < $(deadline_polls 5); i++)); do
        r0=$(screen | grep -m1 -E '^ the +(\*|1\.00)') && break
        sleep 0.05
    done
    check "multiples $size: row 0 of every head shows itself as strongest, not by colour alone ($r0)" \
        test "$(grep -oE '\*|1\.00' <<<"$r0" | wc -l)" -ge 2
    if grep -qF '*' <<<"$r0"; then
        expect "strongest key of the row" "multiples $size: the legend names the mark"
    fi
    keys q
    expect_exit 0 "multiples $size: quits"
done

finish

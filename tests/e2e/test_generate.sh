#!/usr/bin/env bash
# test_generate.sh - the generate widget (lesson 15, "Watch it write") at 80×24: n appends
# a token and the cache grows by one row, the earlier ones kept; after each n the text, the
# next-token probabilities and the K rows on screen equal `attend dump`'s for that text
# (tests/e2e/generate_screen.py); N takes a token back; t samples at a temperature, the same
# seed giving the same text; s draws again; n stops at the end of the text; r resets; x
# exports a figure; NO_COLOR=1 TERM=xterm LANG=C shows it in ASCII.
. "$(dirname "$0")/harness.bash"
PY=/usr/bin/python3

numbers() { # description: the screen's numbers against dump
    local out
    screen >"$E2E_TMP/screen"
    if out=$("$PY" tests/e2e/generate_screen.py "$E2E_TMP/screen" "$ATTEND" 2>&1) &&
        [ "$(echo "$out" | wc -l)" -eq 1 ]; then
        ok "$1 ($out)"
    else
        fail "$1: the screen differs from dump"
        echo "$out" | head -8
    fi
}

start 80 24 -- --lessons "$ROOT/lessons" --lesson kv-cache
expect "page 1/" "kv-cache opens"
keys Space
expect "Generate  step 2, 4 tokens" "page 2: the generate widget at its start, step 2"
expect "K cache: 3 reused, 1 new" "three rows reused, one new"
expect "n/N" "the footer offers n/N"
numbers "step 2: probabilities and K rows equal dump's"
for s in 3 4 5; do
    keys n
    expect "Generate  step $s, $((s + 2)) tokens" "n: step $s"
    expect "K cache: $((s + 1)) reused, 1 new" "n: the cache grows by one row ($((s + 2)) rows)"
    numbers "step $s: probabilities and K rows equal dump's"
done
check "the prose follows the step" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'Step 5 runs 7 tokens'"
keys N
expect "Generate  step 4, 6 tokens" "N takes the last token back"
for i in 1 2 3 4 5 6 7 8 9 10; do keys n; done
expect "(the end)" "n stops at the end of the text"
expect "the text is finished" "and says why"
numbers "the last step: equal to dump's"
keys r
expect "Generate  step 2, 4 tokens  greedy" "r resets to the page's start"
keys t
expect "sampling T=1 seed 1" "t samples at T=1 from seed 1"
expect "at T=1" "the candidates' probability at the temperature"
screen | sed -n '/Generate  step/{n;p;q}' >"$E2E_TMP/text1"
keys s
expect "seed 2" "s: the next seed"
keys N
expect "seed 2" "N keeps sampling"
keys s
keys s
expect "seed 4" "s twice: seed 4"
keys t
expect "Generate  step 1, 3 tokens  greedy" "t: greedy again, at the same step"
keys t
expect "sampling T=1 seed 4" "t: sampling again, the seed kept"
keys +
expect "sampling T=1.5" "+ raises the temperature"
keys - -
expect "sampling T=0.7" "- lowers it"
keys q
expect_exit 0 "quits"

# the same seed, the same text: a second session draws what the first did
rm -rf "$XDG_STATE_HOME" # each session opens the lesson at page 1
start 80 24 -- --lessons "$ROOT/lessons" --lesson kv-cache
expect "page 1/" "opens again"
keys Space t
expect "sampling T=1 seed 1" "t: seed 1 again"
screen | sed -n '/Generate  step/{n;p;q}' >"$E2E_TMP/text2"
check "the same seed draws the same text" cmp -s "$E2E_TMP/text1" "$E2E_TMP/text2"
mkdir -p "$E2E_TMP/export"
keys q
expect_exit 0 "quits"

rm -rf "$XDG_STATE_HOME"
start 80 24 ATTEND_EXPORT_DIR="$E2E_TMP/export" -- --lessons "$ROOT/lessons" --lesson kv-cache
expect "page 1/" "opens for x"
keys Space
expect "Generate  step 2" "the generate page"
keys x
# the file is named after the text, which the engine writes (attend generate, greedy)
gen_text=$("$ATTEND" generate --model "$ROOT/data/decoder.json" --prompt "a bird" --max-tokens 2 | tr ' ' '-')
expect "heatmap-L0-h0-$gen_text.svg" "x exports the text's heatmap"
check "an SVG was written" sh -c "ls '$E2E_TMP/export' | grep -q '\.svg$'"
keys q
expect_exit 0 "quits"

# ASCII, no colour, 8 colours
rm -rf "$XDG_STATE_HOME"
start 80 24 NO_COLOR=1 TERM=xterm LANG=C LC_ALL=C -- --lessons "$ROOT/lessons" --lesson kv-cache
expect "page 1/" "opens in ASCII"
keys Space n n n n n n
expect "... " "ASCII: the folded rows say ..."
expect "n/N next token" "ASCII footer"
check "no UTF-8 on the screen" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qP '[^\\x00-\\x7f]'"
numbers "ASCII: the numbers equal dump's"
keys q
expect_exit 0 "quits"
finish

#!/usr/bin/env bash
# test_modes.sh - the player under other terminals and conditions: NO_COLOR=1 (shade glyphs
# and numbers), LANG=C and --ascii (ASCII fallback), TERM=xterm; SIGTERM, SIGHUP and SIGINT
# restore the terminal; fatal errors are printed after the terminal is restored; a corrupt
# progress file is moved aside with a message; a broken lesson is skipped with a warning;
# --lesson ID opens one lesson.
. "$(dirname "$0")/harness.bash"

# The attend process: the child of the pane's shell (read from /proc, no procps needed).
pid_of_attend() {
    local pane d
    pane=$(tm display-message -p -t main '#{pane_pid}')
    for d in /proc/[0-9]*; do
        [ "$(awk '{print $4}' "$d/stat" 2>/dev/null)" = "$pane" ] && { echo "${d#/proc/}"; return; }
    done
}

# ---- colour ladder, read from the escape sequences tmux keeps (capture-pane -e) ----
rm -rf "$XDG_STATE_HOME"
start 80 24 TERM=tmux-256color -- --lessons "$FIXTURE"
expect "legend" "256 colours: heatmap with a legend"
check "256 colours: legend is the viridis ramp 53 61 31 36 113 220 (lightness rising)" \
    sh -c "[ \"\$(tmux -L '$E2E_SOCK' capture-pane -p -e -t main | grep legend | grep -oE '48;5;[0-9]+' | uniq | tr '\n' ' ')\" = '48;5;53 48;5;61 48;5;31 48;5;36 48;5;113 48;5;220 ' ]"
check "256 colours: cells are drawn on the ramp" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -e -t main | grep -E '^ (the|cat)' | grep -q '48;5;'"
keys q
expect_exit 0 "256 colours: quits"
start 80 24 TERM=xterm -- --lessons "$FIXTURE"
expect "legend" "8 colours: heatmap with a legend"
check "8 colours: reduced ramp (black blue cyan white), no 256-colour codes" \
    sh -c "out=\$(tmux -L '$E2E_SOCK' capture-pane -p -e -t main | grep legend); echo \"\$out\" | grep -q '44m' && echo \"\$out\" | grep -q '46m' && ! echo \"\$out\" | grep -q '48;5;'"
keys q
expect_exit 0 "8 colours: quits"
start 80 24 NO_COLOR=1 TERM=tmux-256color -- --lessons "$FIXTURE"
expect "legend" "NO_COLOR: heatmap with a legend"
check "NO_COLOR: no colour codes in the heatmap" \
    sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -e -t main | grep -E '^ (the|cat|legend)' | grep -qE '48;5;|\[4[0-7]m|38;5;'"
keys q
expect_exit 0 "NO_COLOR: quits"

# ---- NO_COLOR: shade glyphs plus the numbers, masked cells still distinct ----
start 80 24 NO_COLOR=1 -- --lessons "$FIXTURE"
expect "lesson 1/2: Fixture heatmap" "NO_COLOR: opens"
check "NO_COLOR: numbers in every cell, rows sum to 1.00" heatmap_full 6 strip
check "NO_COLOR: shade glyphs drawn next to the numbers" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -qE '[░▒▓█]0\.[0-9][0-9]'"
keys m
expect "mask:causal" "NO_COLOR: m toggles the mask"
check "NO_COLOR: upper triangle masked, rows sum to 1.00" heatmap_triangle "·" 6 strip
keys q
expect_exit 0 "NO_COLOR: quits cleanly"

# ---- NO_COLOR and LANG=C together: the ASCII shade glyph before a weight is never a sign
# ('-' once stood before 0.36 and read "-0.36"), and the legend shows every glyph a cell does ----
start 80 24 NO_COLOR=1 LC_ALL=C LANG=C -- --lessons "$FIXTURE"
expect "lesson 1/2: Fixture heatmap" "NO_COLOR+LANG=C: opens"
check "NO_COLOR+LANG=C: no weight drawn with a sign glyph before it" \
    sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -E '^ (the|cat|sat|on|mat)' | grep -qE '[-+]0\.[0-9][0-9]'"
check "NO_COLOR+LANG=C: every shade glyph in the grid is in the legend" sh -c '
    scr=$(tmux -L "$1" capture-pane -p -t main)
    leg=$(printf "%s\n" "$scr" | sed -n "s/.*legend [^ ]* \(.*\) 1 .*/\1/p")
    used=$(printf "%s\n" "$scr" | grep -E "^ (the|cat|sat|on|mat)" | grep -oE "[^][ 0-9.]0\.[0-9][0-9]" | cut -c1 | sort -u | tr -d "\n")
    [ -n "$leg" ] && [ -n "$used" ] || exit 1
    case "$used" in *[!"$leg"]*) exit 1;; esac' _ "$E2E_SOCK"
keys q
expect_exit 0 "NO_COLOR+LANG=C: quits"

# ---- LANG=C: ASCII fallback (no UTF-8 bytes on screen) ----
rm -rf "$XDG_STATE_HOME"
start 80 24 LC_ALL=C LANG=C -- --lessons "$FIXTURE"
expect "lesson 1/2: Fixture heatmap" "LANG=C: opens"
expect "attend | lesson" "LANG=C: ASCII separator in the header"
keys m
expect "mask:causal" "LANG=C: mask on"
check "LANG=C: upper triangle masked with x, rows sum to 1.00" heatmap_triangle "x" 6
keys m v
expect "[scores]" "LANG=C: scores mode"
expect "-inf" "LANG=C: masked scores read -inf"
check "LANG=C: no UTF-8 bytes on the screen" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | LC_ALL=C grep -q '[^ -~]'"
keys v m Space
expect "step 1/20: X  [6x$(model_cfg decoder.json d_model)]" "LANG=C: passport with ASCII shapes"
keys n n n n n n n n
expect "QK^T [6x6]" "LANG=C: QK^T transliterated"
keys q
expect_exit 0 "LANG=C: quits cleanly"

# ---- --ascii in a UTF-8 locale ----
rm -rf "$XDG_STATE_HOME"
start 80 24 -- --lessons "$FIXTURE" --ascii
expect "attend | lesson" "--ascii: ASCII header"
check "--ascii: no UTF-8 bytes on the screen" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | LC_ALL=C grep -q '[^ -~]'"
keys q
expect_exit 0 "--ascii: quits cleanly"

# ---- TERM=xterm ----
rm -rf "$XDG_STATE_HOME"
start 80 24 TERM=xterm -- --lessons "$FIXTURE"
expect "lesson 1/2: Fixture heatmap" "TERM=xterm: opens"
keys m
check "TERM=xterm: mask works" wait_for "mask:causal"
keys q
expect_exit 0 "TERM=xterm: quits cleanly"

# ---- signals: the terminal is restored ----
for sig in TERM HUP INT; do
    start 80 24 -- --lessons "$FIXTURE"
    expect "lesson" "SIG$sig: running"
    pid=$(pid_of_attend)
    if [ -n "$pid" ]; then kill -s "$sig" "$pid"; fi
    case $sig in TERM) rc=143 ;; HUP) rc=129 ;; INT) rc=130 ;; esac
    expect_exit "$rc" "SIG$sig: exits with $rc and restores the terminal"
    check "SIG$sig: says why after the terminal is restored" grep -q "stopped by signal" "$E2E_TMP/stderr"
done

# Ctrl-C typed in the terminal (raw mode delivers it as a key)
start 80 24 -- --lessons "$FIXTURE"
expect "lesson" "Ctrl-C: running"
keys C-c
expect_exit 0 "Ctrl-C: quits and restores the terminal"

# ---- fatal errors: printed after the terminal is restored ----
start 80 24 -- --lessons "$FIXTURE" --lesson no-such-lesson
expect_exit 1 "unknown --lesson exits 1"
check "unknown --lesson: message on stderr" grep -q 'no lesson "no-such-lesson": give its number' "$E2E_TMP/stderr"
start 80 24 -- --lessons "$E2E_TMP/missing-dir"
expect_exit 1 "missing course directory exits 1"
check "missing course directory: message on stderr" test -s "$E2E_TMP/stderr"

# ---- --lesson ID ----
start 80 24 -- --lessons "$FIXTURE" --lesson chips
expect "Fixture chips" "--lesson chips opens that lesson"
keys Space Space
expect "last page of this lesson" "--lesson: paging stays inside the lesson"
keys q
expect_exit 0 "--lesson: quits"

# ---- --mouse: clicking two chips swaps them (X10 mouse reports, as tmux-256color sends) ----
rm -rf "$XDG_STATE_HOME"
start 80 24 TERM=tmux-256color -- --lessons "$FIXTURE" --lesson chips --mouse
expect "[ dog ]" "--mouse: chips shown"
row=$(screen | grep -n '\[ dog \]' | head -1 | cut -d: -f1)   # 1-based screen row
col_dog=$(screen | grep '\[ dog \]' | head -1 | awk '{ print index($0, "[ dog ]") }')
col_saw=$(screen | grep '\[ saw \]' | head -1 | awk '{ print index($0, "[ saw ]") }')
x10() { # x10 COL ROW (1-based): a button-1 press then release
    literal "$(printf '\033[M %b%b' "\\0$(printf %o $((32 + $1)))" "\\0$(printf %o $((32 + $2)))")"
    literal "$(printf '\033[M#%b%b' "\\0$(printf %o $((32 + $1)))" "\\0$(printf %o $((32 + $2)))")"
}
x10 $((col_dog + 2)) "$row"
expect "picked 'dog' at 1" "--mouse: a click picks a chip"
x10 $((col_saw + 2)) "$row"
expect "swapped positions 1 and 2" "--mouse: a second click swaps"
keys q
expect_exit 0 "--mouse: quits and turns the mouse off"

# ---- encoder-decoder: cross-attention is m×n (decoder queries, encoder keys) ----
rm -rf "$XDG_STATE_HOME"
start 80 24 -- --lessons "$ROOT/tests/e2e/fixtures/encdec"
expect "cross  layer 0 of $(model_cfg translate.json n_layers)" "cross-attention: the heatmap says cross"
expect "encoder keys: 2×6" "cross-attention: prose shape is 2×6"
check "cross-attention: 2 decoder rows, each summing to 1.00" heatmap_full 2
expect "query 0 'le'" "cross-attention: the inspector names the decoder token"
keys E C-u
literal "le chat noir"
keys Enter
expect "encoder keys: 3×6" "cross-attention: E edits the decoder sentence"
keys Space
expect "enc.embed" "encoder passport starts at enc.embed"
keys q
expect_exit 0 "cross-attention: quits"

# ---- corrupt progress: moved aside, with a message ----
mkdir -p "$XDG_STATE_HOME/attend"
echo '{"version": 1, "current": ' >"$XDG_STATE_HOME/attend/progress.json"
start 80 24 -- --lessons "$FIXTURE"
expect "corrupt" "corrupt progress: the player says so"
check "corrupt progress: the file was moved aside" sh -c "ls '$XDG_STATE_HOME/attend/' | grep -q 'progress.json.corrupt-'"
keys Space
check "corrupt progress: a new file is saved on the next page" wait_for "page 2/3"
keys q
expect_exit 0 "corrupt progress: quits"
check "corrupt progress: new progress written" grep -q '"heat"' "$XDG_STATE_HOME/attend/progress.json"

# ---- a broken lesson is skipped with a visible warning ----
rm -rf "$XDG_STATE_HOME"
mkdir -p "$E2E_TMP/course"
cp "$FIXTURE"/01-heat.json "$E2E_TMP/course/01-heat.json"
printf '{"id": "broken", "title": "Broken", "pages": [ {"title": "x", "prose": 1} ]}\n' >"$E2E_TMP/course/02-broken.json"
cp "$FIXTURE"/02-chips.json "$E2E_TMP/course/03-chips.json"
start 80 24 -- --lessons "$E2E_TMP/course"
expect "skipped broken lesson" "broken lesson: warning shown at start"
expect "02-broken.json" "broken lesson: the warning names the file"
keys Space Space Space
expect "Fixture chips" "broken lesson: paging skips it"
keys g
expect "broken:" "broken lesson: the menu lists it as broken"
keys Escape q
expect_exit 0 "broken lesson: quits"

finish

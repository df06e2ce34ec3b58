#!/usr/bin/env bash
# test_present.sh - attend present and attend notes: presenter and notes in two tmux sessions
# (a page change in the presenter shows in the notes pane; notes with no presenter waits);
# the key echo badge on the bottom row and its going; --lesson/--page and G jump; each theme
# at 80x24 under 256 colours, 8 colours and NO_COLOR, read from capture-pane -e; the player
# keeps its footer and dark ramp.
. "$(dirname "$0")/harness.bash"

RT=$E2E_TMP/run
mkdir -p "$RT" && chmod 700 "$RT"
capture_e() { tm capture-pane -p -e -t main; }
# legend8: the first four 8-colour backgrounds of the legend line (the reduced ramp)
legend8() { capture_e | grep legend | grep -oE '\[4[0-7]m' | uniq | head -n 4 | tr -d '[m' | tr '\n' ' '; }
# legend_bg: the first six 256-colour backgrounds of the heatmap's legend line (its ramp; a
# theme's own background follows)
legend_bg() { capture_e | grep legend | grep -oE '48;5;[0-9]+' | uniq | head -n 6 | tr '\n' ' '; }

# ---- the player: --page, its footer and ramp unchanged ----
start 80 24 TERM=xterm-256color -- --lessons "$FIXTURE" --lesson heat --page 2
expect "page 2/3" "player: --lesson heat --page 2 opens page 2"
expect "bksp back" "player: its footer still lists the keys"
keys q
expect_exit 0 "player: quits"
start 80 24 -- --lessons "$FIXTURE" --lesson heat --page 9
expect "EXITED rc=1" "player: --page beyond the lesson is refused"
check "player: the error names the page and the lesson" grep -q 'no page "9" in lesson heat (1..3)' "$E2E_TMP/stderr"
start 80 24 -- present --lessons "$FIXTURE" --theme purple
expect "EXITED rc=2" "present: an unknown theme is refused"
check "present: the error names it" grep -q 'unknown theme "purple"' "$E2E_TMP/stderr"

# ---- notes with no presenter: says so and waits ----
tm kill-session -t notes >/dev/null 2>&1
tm new-session -d -s notes -x 80 -y 24 -c "$ROOT" "env XDG_RUNTIME_DIR='$RT' '$ATTEND' notes; sleep 600"
notes_screen() { tm capture-pane -p -t notes; }
notes_wait() { # TEXT: polls the notes pane
    local i=0
    local n_; n_=$(deadline_polls 5); while [ $i -lt "$n_" ]; do notes_screen | grep -qF -- "$1" && return 0; sleep 0.05; i=$((i + 1)); done
    return 1
}
check "notes: no presenter running, it says so" notes_wait "No presenter is running"

# ---- presenter: theme, badge, quiet footer, notes follow ----
start 80 24 TERM=xterm-256color XDG_RUNTIME_DIR="$RT" -- present --lessons "$FIXTURE" --lesson heat --page 1
expect "legend" "present: heatmap page"
check "present: projector ramp by default on an unknown background (92 27 36 40 82 227)" \
    test "$(legend_bg)" = "48;5;92 48;5;27 48;5;36 48;5;40 48;5;82 48;5;227 "
check "present: quiet footer (no hint bar)" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -t main | grep -q 'bksp back'"
expect "? keys" "present: the footer says ? shows the keys"
check "notes: follows the presenter (lesson and page)" notes_wait "page 1/3: Heatmap with every control"
check "notes: next page's title" notes_wait "next: Passport"
check "notes: the keys the page invites" notes_wait "m mask:"
check "notes: time since the start" notes_wait "0:00:0"
keys m
expect "m  causal mask on" "present: m shows its badge"
check "present: the badge is on the bottom row, not over the heatmap" sh -c "tmux -L '$E2E_SOCK' capture-pane -p -t main | tail -n 1 | grep -qF 'm  causal mask on'"
expect "mask:causal" "present: m still toggles the mask"
expect_gone "m  causal mask on" "present: the badge goes after about two seconds" 6
keys p
expect "p  positional encoding:" "present: p names the positional encoding"
keys Space
expect "page 2/3" "present: space turns the page"
expect "space  page 2/3: Passport" "present: the badge names the new page"
check "notes: the page change shows in the notes pane" notes_wait "page 2/3: Passport"
check "notes: the page's speaker notes" notes_wait "ask for each shape before pressing n"
keys G
expect "go to page" "present: G opens the go-to-page prompt"
literal "3"
keys Enter
expect "page 3/3" "present: G 3 enter goes to page 3"
check "notes: follows the jump" notes_wait "page 3/3: Matrix"
keys G
literal "chips:1"
keys Enter
expect "only lesson heat is open" "present: G stays inside --lesson"
keys '?'
expect "keys (ESC closes)" "present: ? opens the help"
expect "go to a page" "present: ? documents G"
keys Escape q
expect_exit 0 "present: quits"
check "notes: the presenter gone, it waits again" notes_wait "No presenter is running"
check "present: its state file is removed" sh -c "! ls '$RT'/attend/*.state >/dev/null 2>&1"
tm kill-session -t notes >/dev/null 2>&1

# ---- themes at 80x24: 256 colours, 8 colours, NO_COLOR ----
for th in dark light projector; do
    case $th in
    dark) want="48;5;53 48;5;61 48;5;31 48;5;36 48;5;113 48;5;220 " want8="40 44 46 47 " ;;
    light) want="48;5;53 48;5;24 48;5;31 48;5;35 48;5;107 48;5;179 " want8="44 45 42 43 " ;;
    projector) want="48;5;92 48;5;27 48;5;36 48;5;40 48;5;82 48;5;227 " want8="45 42 43 47 " ;;
    esac
    start 80 24 TERM=xterm-256color XDG_RUNTIME_DIR="$RT" -- present --lessons "$FIXTURE" --lesson heat --page 1 --theme $th
    expect "legend" "$th, 256 colours: heatmap"
    check "$th, 256 colours: its ramp ($want)" test "$(legend_bg)" = "$want"
    check "$th, 256 colours: numbers in the cells" heatmap_full 6
    keys q
    expect_exit 0 "$th, 256 colours: quits"
    start 80 24 TERM=xterm XDG_RUNTIME_DIR="$RT" -- present --lessons "$FIXTURE" --lesson heat --page 1 --theme $th
    expect "legend" "$th, 8 colours: heatmap"
    check "$th, 8 colours: no 256-colour codes" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -e -t main | grep -q '48;5;'"
    check "$th, 8 colours: its reduced ramp ($want8; only dark starts on black)" test "$(legend8)" = "$want8"
    check "$th, 8 colours: numbers in the cells" heatmap_full 6
    keys q
    expect_exit 0 "$th, 8 colours: quits"
    start 80 24 TERM=xterm-256color NO_COLOR=1 XDG_RUNTIME_DIR="$RT" -- present --lessons "$FIXTURE" --lesson heat --page 1 --theme $th
    expect "legend" "$th, NO_COLOR: heatmap"
    check "$th, NO_COLOR: no colour codes" sh -c "! tmux -L '$E2E_SOCK' capture-pane -p -e -t main | grep -qE '48;5;|38;5;|\[4[0-7]m|\[3[0-7]m'"
    check "$th, NO_COLOR: numbers and shades in the cells" heatmap_full 6 strip
    keys m
    expect "m  causal mask on" "$th, NO_COLOR: the badge shows"
    keys q
    expect_exit 0 "$th, NO_COLOR: quits"
done
start 80 24 TERM=xterm-256color "COLORFGBG='0;15'" XDG_RUNTIME_DIR="$RT" -- present --lessons "$FIXTURE" --lesson heat --page 1
expect "legend" "auto: heatmap"
check "auto: COLORFGBG with a white background picks the light ramp" \
    test "$(legend_bg)" = "48;5;53 48;5;24 48;5;31 48;5;35 48;5;107 48;5;179 "
keys q
expect_exit 0 "auto: quits"

echo "$E2E_PASS passed, $E2E_FAIL failed"
[ "$E2E_FAIL" -eq 0 ]

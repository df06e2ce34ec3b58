#!/usr/bin/env bash
# capture_screens.sh OUTDIR [W H] - a developer's tool, not a test: the screens of their own
# that capture_course.sh does not walk, each with its colours (capture-pane -e) after every
# key of a fixed sequence: attend quiz on a lesson with cell questions (UTF-8 and LANG=C),
# a summary, a terminal too small, the player's Q, attend quiz --class, and attend notes
# waiting for a presenter. Fixed seeds, so two runs compared with diff -r show whether a
# change altered what a learner sees (the player's Q seeds from the clock: its header
# differs run to run).
set -u
set -f
out=${1:?usage: capture_screens.sh OUTDIR [W H]}
W=${2:-80}; H=${3:-24}
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
ATTEND=${ATTEND:-$ROOT/attend}
st=$(mktemp -d)
rt=/tmp/capture-screens.$(id -u) # one path, so the notes screen (it names it) compares
rm -rf "$rt" && mkdir -m 700 "$rt" || exit 1
sock=screens-$$
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server >/dev/null 2>&1; rm -rf "$st" "$rt"' EXIT
n_screen=0
settle() { # until the screen is drawn and stops changing (3 identical polls)
    local prev="" same=0 i=0 cur
    while [ $i -lt 300 ]; do
        cur=$(tm capture-pane -e -p -t main 2>/dev/null)
        if [ "$cur" = "$prev" ] && [ -n "$(tm capture-pane -p -t main 2>/dev/null | tr -d ' \n')" ]; then
            same=$((same + 1)); [ $same -ge 3 ] && break
        else
            same=0
        fi
        prev=$cur; sleep 0.05; i=$((i + 1))
    done
}
# screen NAME W H ENV KEYS -- ARGS...: runs attend ARGS, captures NAME/000.txt, then a
# capture after each key of KEYS (tmux key names)
screen() {
    local name=$1 w=$2 h=$3 env=$4 keys=$5 n=0 k
    shift 6
    mkdir -p "$out/$name"
    tm kill-server >/dev/null 2>&1
    n_screen=$((n_screen + 1))
    sock=screens-$$-$n_screen # a server of its own: never one still going away
    rm -rf "${st:?}"/*
    tm new-session -d -s main -x "$w" -y "$h" -c "$ROOT" \
        "env XDG_STATE_HOME=$st XDG_RUNTIME_DIR=$rt $env $ATTEND $*; sleep 600"
    settle
    tm capture-pane -e -p -t main >"$out/$name/000.txt"
    for k in $keys; do
        n=$((n + 1))
        tm send-keys -t main "$k"
        settle
        tm capture-pane -e -p -t main >"$(printf '%s/%s/%03d-%s.txt' "$out" "$name" $n "${k//[^A-Za-z0-9]/_}")"
    done
}
QKEYS="1 Enter ? Enter Enter Tab 9 Enter r BSpace 2 Enter n Enter Tab Left Right Right Enter Enter Tab x C-u 6x6 Enter Enter Escape"
L=--lessons
screen quiz "$W" "$H" "" "$QKEYS" -- quiz --lesson reading-heatmaps --seed 7 $L lessons
screen quiz-ascii "$W" "$H" "LANG=C LC_ALL=C" "$QKEYS" -- quiz --lesson reading-heatmaps --seed 7 $L lessons
screen quiz-done "$W" "$H" "" "1 Enter Enter Tab Tab Tab Tab Tab Tab Tab Enter" -- quiz --count 3 --seed 5 $L lessons
screen quiz-small 60 20 "" "q" -- quiz --lesson reading-heatmaps --seed 7 $L lessons
screen player-Q "$W" "$H" "" "Q 1 Enter Enter Escape" -- $L lessons --lesson causal-mask
screen class-quiz "$W" "$H" "" "r n n r n n q" -- quiz --class --lesson causal-mask --seed 4 $L lessons
screen class-quiz-ascii "$W" "$H" "LANG=C LC_ALL=C" "r n" -- quiz --class --seed 4 $L lessons
screen notes "$W" "$H" "" "x q" -- notes
echo "$(find "$out" -name '*.txt' | wc -l) screens captured in $out"

#!/usr/bin/env bash
# capture_course.sh OUTDIR [W H] [VAR=value ...] - a developer's tool, not a test: walks every
# page of the shipped course in the player (tmux, Space to page) and writes each screen with
# its colours (capture-pane -e) to OUTDIR/NNN.txt, then the same page after each key of KEYS
# (default "m p s ? o", each undone by pressing it again or Escape) to OUTDIR/NNN-KEY.txt.
# Two runs compared with diff -r show whether a change altered what a learner sees.
set -u
set -f   # "?" is a key here, not a glob
out=${1:?usage: capture_course.sh OUTDIR [W H] [VAR=value ...]}
W=${2:-80}; H=${3:-24}
shift $(( $# >= 3 ? 3 : $# ))
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
ATTEND=${ATTEND:-$ROOT/attend}
mkdir -p "$out"
sock=capture-$$
st=$(mktemp -d)
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server >/dev/null 2>&1; rm -rf "$st"' EXIT
tm new-session -d -s main -x "$W" -y "$H" -c "$ROOT" \
    "env XDG_STATE_HOME=$st $* $ATTEND --lessons $ROOT/lessons; sleep 600"
settle() { # waits until the screen stops changing (3 identical polls)
    local prev="" same=0 i=0 cur
    while [ $i -lt 200 ]; do
        cur=$(tm capture-pane -e -p -t main)
        if [ "$cur" = "$prev" ]; then same=$((same + 1)); [ $same -ge 3 ] && break; else same=0; fi
        prev=$cur; sleep 0.03; i=$((i + 1))
    done
}
# the first screen: drawn (not the blank pane of a player still loading), then still
i=0
while [ $i -lt 300 ] && ! tm capture-pane -p -t main | grep -q '[a-z]'; do sleep 0.05; i=$((i + 1)); done
settle
n=0
while [ $n -lt 300 ]; do
    n=$((n + 1))
    f=$(printf '%s/%03d' "$out" "$n")
    tm capture-pane -e -p -t main >"$f.txt"
    for k in ${KEYS-m p s l h a d ? o}; do
        tm send-keys -t main "$k"; settle
        tm capture-pane -e -p -t main >"$f-${k/\?/help}.txt"
        case $k in "?"|o) tm send-keys -t main Escape ;; *) tm send-keys -t main "$k" ;; esac
        settle
    done
    if tm capture-pane -p -t main | grep -q "end of the course"; then break; fi
    tm send-keys -t main Space; settle
    if tm capture-pane -p -t main | grep -q "end of the course"; then
        tm capture-pane -e -p -t main >"$out/end.txt"; break
    fi
done
echo "$n pages captured in $out"

#!/usr/bin/env bash
# test_fit.sh - every page of the shipped course fits: at 80×24 no page shows "more below",
# "more rows of the widget", "enlarge the terminal" or an unresolved "[?" placeholder, on first
# display and after each control key a page may offer (m d s v a h l p n N t + -, each pressed
# and checked in turn; a key the page does not take only says so on the message line, which
# must not push anything off the screen either). On a page whose footer offers "e edit", short
# sentences of 1 to 3 words (and for an encoder-decoder page a short decoder sentence, E) are
# typed and the screen checked again: the prose must fall back, never show "[?". FIT_SIZES
# (default 80x24) lists the sizes walked; tests/e2e/test_fit_large.sh walks 100×30 and 200×60.
# suite: long (16 minutes at load 20, about 5 idle): make test-long. It repeats, on the real
# screen, the walk check-lessons makes headless at 80x24 in make check (every page, each control
# key, typed sentences, layout_plan), which tests/e2e/test_guard.sh proves the player agrees with.
. "$(dirname "$0")/harness.bash"
set -f
BAD='more below|more rows of the widget|enlarge the terminal|\[\?'
KEYS_80=${FIT_KEYS-m d s v a h l p p p n N t + -}
SHORT=${FIT_SHORT-the|cat sat|she sat by}

screen_ok() { # W H WHAT: the screen (left in scr) shows nothing of $BAD, else a failure naming
    scr=$(screen)                                  # WHAT and what was seen; counts in bad
    if grep -qE "$BAD" <<<"$scr"; then
        bad=$((bad + 1))
        fail "$1x$2: $3: $(grep -oE "$BAD" <<<"$scr" | head -1)"
    fi
}

edit_check() { # W H WHERE KEY: types each SHORT sentence with KEY (e or E) and checks
    local W=$1 H=$2 where=$3 key=$4 s scr
    local IFS='|'
    for s in $SHORT; do
        keys "$key"
        settle
        keys C-u
        literal "$s"
        keys Enter
        settle
        screen_ok "$W" "$H" "$where: with \"$s\" typed ($key)"
        if grep -qiE 'esc: cancel|ESC cancels' <<<"$scr"; then
            keys Escape
            settle
        fi
    done
    keys r   # back to the page's own sentence
    settle
}

walk() { # W H KEYS...: pages through the course, checking each screen
    local W=$1 H=$2; shift 2
    rm -rf "$XDG_STATE_HOME"
    start "$W" "$H" -- --lessons "$ROOT/lessons"
    wait_for "page 1/" 5 || { fail "${W}x$H: the course did not open"; return; }
    local pages=0 bad=0 scr where
    for i in $(seq 1 300); do
        settle
        where=$(screen | head -1 | sed 's/^ *attend │ //; s/ \{2,\}/ /g')
        screen_ok "$W" "$H" "$where: on first display"
        for k in "$@"; do
            keys "$k"
            settle
            screen_ok "$W" "$H" "$where: after $k"
            if grep -qiE 'esc: close|ESC closes|ESC: cancel' <<<"$scr"; then
                keys Escape   # t opened the tensor picker: close it
                settle
            fi
        done
        if [ $# -gt 0 ] && [ -z "${FIT_NO_EDIT:-}" ] && grep -qE '(^| )e edit ' <<<"$(screen | tail -3)"; then
            edit_check "$W" "$H" "$where" e
            grep -qE '(^| )E edit decoder' <<<"$(screen | tail -3)" && edit_check "$W" "$H" "$where" E
        fi
        pages=$((pages + 1))
        grep -q "end of the course" <<<"$scr" && break
        keys Space
        settle
        grep -q "end of the course" <<<"$(screen)" && break
    done
    check "${W}x$H: walked every page ($pages) and none overflowed ($bad problems)" [ "$bad" -eq 0 ] 
    keys q
}

for size in ${FIT_SIZES:-80x24}; do
    walk "${size%x*}" "${size#*x}" $KEYS_80
done
finish

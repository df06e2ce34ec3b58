# class_harness.bash - what the classroom tests (tests/e2e/test_class_*.sh) share, on top of
# harness.bash: a private runtime directory for the students' token files, the answer key of
# the quiz a test runs, a room opened headless (attend class serve --plain, driven through a
# FIFO on fd 3) or on the projector in tmux, its port and code read from the join line, and
# waits for a line in a file. Network on 127.0.0.1 only. Sourced (not a test).
. "$(dirname "${BASH_SOURCE[0]}")/harness.bash"

RT=$E2E_TMP/run
mkdir -p "$RT" && chmod 700 "$RT"
export XDG_RUNTIME_DIR=$RT

# wait_file FILE TEXT [SECONDS]: polls FILE until it holds TEXT (a fixed string; bounded)
wait_file() {
    local i=0 n
    n=$(deadline_polls "${3:-5}")
    while [ $i -lt "$n" ]; do
        grep -qF -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}
# wait_re REGEX [SECONDS]: polls the tmux screen until a line matches (bounded)
wait_re() {
    local i=0 n
    n=$(deadline_polls "${2:-5}")
    while [ $i -lt "$n" ]; do
        screen | grep -qE -- "$1" && return 0
        sleep 0.05
        i=$((i + 1))
    done
    return 1
}
# count_in FILE TEXT: how many lines of FILE hold TEXT
count_in() { grep -cF -- "$2" "$1" 2>/dev/null; }

# class_key QUIZ-ARGS...: the answer key of that quiz (attend quiz --answers) in KEY, each
# question's answer (its first word) in ANS[1], ANS[2], ...
class_key() {
    KEY=$("$ATTEND" quiz --answers "$@")
    ANS=("")
    while IFS= read -r a; do ANS+=("$a"); done < <(sed -n 's/^   Answer: \([^ ]*\).*/\1/p' <<<"$KEY")
}

# room_addr LINE: PORT and CODE from a join line ("attend class join 127.0.0.1:PORT CODE")
room_addr() {
    PORT=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\) .*/\1/p' <<<"$1")
    CODE=$(sed -n 's/.*join 127\.0\.0\.1:[0-9]* \([0-9]\{6\}\).*/\1/p' <<<"$1")
}

# plain_room OUT CMD [ARGS...]: the headless teacher (attend class serve --plain ARGS on
# 127.0.0.1, any port) with its commands from the FIFO CMD (held open on fd 3) and its lines
# in OUT (stderr in OUT.err); TPID its process; 0 once the join line is out and PORT and CODE
# are read from it.
plain_room() {
    local out=$1 cmd=$2
    shift 2
    rm -f "$cmd"
    mkfifo "$cmd"
    "$ATTEND" class serve --plain "$@" --port 0 --bind 127.0.0.1 <"$cmd" >"$out" 2>"$out.err" &
    TPID=$!
    exec 3>"$cmd"
    wait_file "$out" "attend class join 127.0.0.1:" || return 1
    room_addr "$(grep -m1 'attend class join' "$out")"
    [ -n "$PORT" ] && [ -n "$CODE" ]
}

# projector_room W H [ARGS...]: the projector (attend class serve ARGS on 127.0.0.1, any
# port) in tmux at W x H; 0 once it shows how to join, with PORT and CODE read off the screen.
projector_room() {
    local w=$1 h=$2
    shift 2
    start "$w" "$h" TERM=xterm-256color XDG_RUNTIME_DIR="$RT" -- class serve "$@" --port 0 --bind 127.0.0.1
    wait_for "attend class join 127.0.0.1:" || return 1
    room_addr "$(screen | grep -m1 'attend class join')"
    [ -n "$PORT" ] && [ -n "$CODE" ]
}

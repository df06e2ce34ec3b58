#!/usr/bin/env bash
# install.sh - make install into a temporary PREFIX, then run what was installed from outside
# the source tree with an empty HOME (attend --version, dump, quiz --answers, the player in
# tmux, bash completion), then make uninstall and find nothing left; the same with DESTDIR.
# Also: one version everywhere (VERSION, the binary, debian/changelog) and the data lookup
# order ($ATTEND_DATA, the installed directory, the build tree).
# suite: slow (a make install and a tmux run, about 10 s): in make test, not in make check
source "$(dirname "$0")/cli_lib.bash"
ROOT=$PWD
case $A in /*) ;; *) A=$ROOT/$A ;; esac
VERSION=$(cat VERSION)

# ---- one version ----
[[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] && ok || bad "VERSION is not x.y.z: '$VERSION'"
deb_version=$(sed -n '1s/^attend (\([^)]*\)).*/\1/p' debian/changelog)
[ "${deb_version%-*}" = "$VERSION" ] && ok || bad "debian/changelog says $deb_version, VERSION says $VERSION"
# issue 39: make deb installs or names its build dependencies as ./setup.sh does: every
# Build-Depends of debian/control is in setup.sh's deb list (debhelper-compat is debhelper's),
# and the deb target asks for them before dpkg-buildpackage runs
deb_pkgs="$(sed -n 's/^DEB_PKGS="\$RUN_PKGS \(.*\)"/\1/p' setup.sh) $(sed -n 's/^RUN_PKGS="\(.*\)"/\1/p' setup.sh)"
for dep in $(sed -n 's/^Build-Depends: *//p' debian/control | tr ',' '\n' | sed 's/(.*)//; s/ //g'); do
    [ "$dep" = debhelper-compat ] && dep=debhelper
    grep -qw -- "$dep" <<<"$deb_pkgs" && ok || bad "setup.sh's deb packages lack the build dependency $dep"
done
grep -qw build-essential <<<"$deb_pkgs" && ok || bad "setup.sh's deb packages lack build-essential (dpkg-checkbuilddeps requires it of every package)"
make -n deb 2>/dev/null | grep -q "tools/deps.sh deb" && ok || bad "make deb does not install or name its build dependencies first"
[ "$(grep -c 'ATTEND_VERSION "' src/cli/main.c)" = 0 ] && ok || bad "src/cli/main.c defines its own version"

# ---- the tree's binary finds the tree from any directory ----
mkdir -p "$tmp/elsewhere"
out=$(cd "$tmp/elsewhere" && env -u ATTEND_DATA "$A" --version)
[ "$(head -n 1 <<<"$out")" = "attend $VERSION" ] && ok || bad "attend --version: $(head -n 1 <<<"$out")"
grep -qxF "lessons: $ROOT/lessons (build tree)" <<<"$out" && ok || bad "tree binary from elsewhere: $out"
expect 0 "3 passed" -- bash -c "cd '$tmp/elsewhere' && '$A' dump --sentence 'the cat sat' >/dev/null && echo 3 passed"

# ---- make install into a temporary prefix (its own build dir: ./attend is left alone) ----
B=$tmp/build P=$tmp/prefix
mkdir -p "$B"
# (built as the binary under test is: under `make sanitize` its objects and flags, so that the
# installed and the tree's binary compute the same bits and their dumps can be compared)
for d in engine course tui cli; do [ -d "${BUILD:-build}/$d" ] && cp -a "${BUILD:-build}/$d" "$B/"; done
flags=()
[ -n "${SAN_OPT:-}" ] && flags=("OPT=$SAN_OPT" "LDFLAGS=${SAN_LDFLAGS:-}")
mk() { make -s -j2 --no-print-directory BUILD="$B" BIN="$B/attend" "${flags[@]}" "$@"; }
# SRCDIR= as the Debian package builds it: the binary cannot fall back on this tree
if mk PREFIX="$P" SRCDIR= install >"$tmp/install.log" 2>&1; then ok; else bad "make install"; tail -20 "$tmp/install.log"; fi
for f in bin/attend share/man/man1/attend.1 share/bash-completion/completions/attend \
    share/doc/attend/README.md share/doc/attend/lessons.md share/attend/data/decoder.json \
    share/attend/data/wordnet.json share/attend/data/everyday.txt share/attend/data/vocab.txt share/attend/data/corpus/english.txt share/attend/data/configs/decoder.json; do
    [ -f "$P/$f" ] && ok || bad "make install did not write $P/$f"
done
[ -x "$P/bin/attend" ] && ok || bad "$P/bin/attend is not executable"
# the WordNet corpus text (made by make models) is never installed (docs/data.md)
n_tree=$(find lessons data demos -type f ! -path 'data/corpus/wordnet*' 2>/dev/null | wc -l)
n_inst=$(find "$P/share/attend" -type f | wc -l)
[ "$n_tree" = "$n_inst" ] && ok || bad "installed $n_inst data files, the tree has $n_tree"
cmp -s lessons/07-causal-mask.json "$P/share/attend/lessons/07-causal-mask.json" && ok || bad "installed lesson differs"

# ---- run it from outside the tree with an empty HOME ----
H=$tmp/home
mkdir -p "$H"
run() { (cd "$tmp/elsewhere" && env -i PATH="$P/bin:/usr/bin:/bin" HOME="$H" LANG=C.UTF-8 "$@"); }
out=$(run attend --version)
grep -qxF "lessons: $P/share/attend/lessons (installed)" <<<"$out" && ok || bad "installed --version: $out"
grep -qxF "models:  $P/share/attend/data/wordnet.json (installed)" <<<"$out" && ok || bad "installed --version: $out"
expect 0 "model: $P/share/attend/data/wordnet.json" -- run attend dump --sentence "the cat sat on the mat"
# the installed dump and quiz key print what the tree's binary prints
# (but for the model's path)
a=$(run attend dump --sentence "the cat sat on the mat" --format json | sed "s#\"$P/share/attend/#\"#")
b=$("$A" dump --sentence "the cat sat on the mat" --format json | sed "s#\"$ROOT/#\"#")
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "installed dump --format json differs from the tree's"
a=$(run attend quiz --answers --seed 1)
b=$("$A" quiz --answers --seed 1)
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "installed quiz --answers --seed 1 differs from the tree's"
expect 0 "0 problems" -- run attend check-lessons
# $ATTEND_DATA comes first, file by file: a course of one lesson, the installed models
mkdir -p "$tmp/course/lessons"
cp lessons/01-*.json "$tmp/course/lessons/"
out=$(run env ATTEND_DATA="$tmp/course" attend --version)
grep -qxF "lessons: $tmp/course/lessons (\$ATTEND_DATA)" <<<"$out" && ok || bad "ATTEND_DATA: $out"
grep -qF "(installed)" <<<"$out" && ok || bad "ATTEND_DATA without data/: $out"
expect 0 "1 lesson, " -- run env ATTEND_DATA="$tmp/course" attend check-lessons

# the player, in tmux: the first page of the first lesson, then q; progress under $HOME
if command -v tmux >/dev/null 2>&1; then
    sock=attend-install-$$
    title=$(sed -n 's/^  "title": "\(.*\)",$/\1/p' lessons/01-*.json | head -n 1)
    tmux -L "$sock" new-session -d -x 80 -y 24 -c "$tmp/elsewhere" \
        "env -i PATH='$P/bin:/usr/bin:/bin' HOME='$H' LANG=C.UTF-8 TERM=xterm-256color attend; sleep 600"
    n_lessons=$(find lessons -maxdepth 1 -name '[0-9]*.json' | wc -l)
    seen=0
    for _ in $(seq 1 300); do
        if tmux -L "$sock" capture-pane -p -t 0 | grep -qF "lesson 1/$n_lessons"; then seen=1; break; fi
        sleep 0.1
    done
    screen=$(tmux -L "$sock" capture-pane -p -t 0)
    [ "$seen" = 1 ] && grep -qF "${title:0:40}" <<<"$screen" && ok || { bad "player's first page (title '$title')"; echo "$screen"; }
    tmux -L "$sock" send-keys -t 0 q
    for _ in $(seq 1 300); do [ -f "$H/.local/state/attend/progress.json" ] && break; sleep 0.1; done
    [ -f "$H/.local/state/attend/progress.json" ] && ok || bad "no progress in the empty HOME's ~/.local/state/attend/"
    tmux -L "$sock" kill-server >/dev/null 2>&1
else
    bad "tmux is not installed (./setup.sh deps test)"
fi

# bash completion, from the installed file and binary
comp() { # words... (the last is the one completed): prints the candidates
    run bash -c 'source "$0"; COMP_WORDS=("${@}"); COMP_CWORD=$(($# - 1)); _attend; printf "%s\n" "${COMPREPLY[@]}"' \
        "$P/share/bash-completion/completions/attend" "$@" 2>&1
}
grep -qx quiz <<<"$(comp attend "")" && grep -qx check-lessons <<<"$(comp attend "")" && ok || bad "completion of subcommands: $(comp attend "" | tr '\n' ' ')"
[ "$(comp attend --lesson "" | wc -l)" = "$(find lessons -maxdepth 1 -name '[0-9]*.json' | wc -l)" ] && ok || bad "completion of lesson ids: $(comp attend --lesson "" | tr '\n' ' ')"
[ "$(comp attend quiz --lesson caus)" = causal-mask ] && ok || bad "completion of --lesson caus: $(comp attend quiz --lesson caus)"
[ "$(comp attend dump --model trans)" = translate.json ] && ok || bad "completion of dump --model: $(comp attend dump --model trans)"
[ "$(comp attend dump --mask c)" = causal ] && ok || bad "completion of --mask c: $(comp attend dump --mask c)"
[ "$(comp attend quiz --ans)" = --answers ] && ok || bad "completion of quiz --ans: $(comp attend quiz --ans)"
[ "$(comp attend --mo | sort | tr '\n' ' ')" = "--model --mouse " ] && ok || bad "completion of the player's --mo (--model and --mouse): $(comp attend --mo | tr '\n' ' ')"
# demo names from the installed data directory, --theme's values, files for export -o
[ "$(comp attend demo caus)" = causal-mask ] && ok || bad "completion of demo caus: $(comp attend demo caus)"
[ "$(comp attend demo "" | grep -cvF .json)" = "$(ls demos/*.json | wc -l)" ] && ok || bad "completion of demo names: $(comp attend demo "" | tr '\n' ' ')"
[ "$(comp attend present --theme pro)" = projector ] && ok || bad "completion of --theme pro: $(comp attend present --theme pro)"
touch "$tmp/elsewhere/figure-out.svg"
[ "$(comp attend export -o figure-o)" = figure-out.svg ] && ok || bad "completion of export -o: $(comp attend export -o figure-o)"
# an installed demo opens by name, outside the source tree
expect 0 "every lesson, page and key checked" -- run attend demo --check causal-mask
expect 0 "every lesson, page and key checked" -- run attend present --plan lecture-masks --check
out=$(run attend demo no-such-demo 2>&1)
grep -qF "causal-mask" <<<"$out" && ok || bad "attend demo no-such-demo lists the shipped demos: $out"

# ---- make uninstall: nothing left ----
cp -a "$P" "$tmp/moved"   # a copy of the prefix, for after the uninstall
if mk PREFIX="$P" SRCDIR= uninstall >"$tmp/uninstall.log" 2>&1; then ok; else bad "make uninstall"; tail "$tmp/uninstall.log"; fi
left=$(find "$P" ! -type d; find "$P" -name '*attend*')
[ -z "$left" ] && ok || bad "left after make uninstall: $left"
# nor the empty directories install made (bin, share/man/man1, share/bash-completion/...)
left=$(find "$P" -mindepth 1 -type d)
[ -z "$left" ] && ok || bad "empty directories left after make uninstall: $(tr '\n' ' ' <<<"$left")"

# the prefix moved elsewhere: its data directory is gone, the binary finds ../share/attend
out=$(run "$tmp/moved/bin/attend" --version)
grep -qxF "lessons: $tmp/moved/share/attend/lessons (next to the binary)" <<<"$out" && ok || bad "moved prefix: $out"
expect 0 "model: $tmp/moved/bin/../share/attend/data/wordnet.json" -- run "$tmp/moved/bin/attend" dump --sentence "the cat"
rm -rf "$tmp/moved"
out=$(run "$B/attend" --version)   # no data anywhere: said so
grep -qxF "lessons: lessons (not found)" <<<"$out" && ok || bad "nowhere: $out"

# ---- DESTDIR staging (as a package build does); uninstall keeps a file it did not write ----
S=$tmp/stage
mk PREFIX=/usr DESTDIR="$S" install >"$tmp/install2.log" 2>&1 && ok || { bad "make install DESTDIR"; tail "$tmp/install2.log"; }
[ -x "$S/usr/bin/attend" ] && [ -f "$S/usr/share/attend/lessons/07-causal-mask.json" ] && ok || bad "DESTDIR install: $(find "$S" | head)"
grep -qF /usr/share/attend "$S/usr/bin/attend" && ok || bad "PREFIX=/usr binary does not name /usr/share/attend"
echo '{}' >"$S/usr/share/attend/lessons/99-mine.json"
mk PREFIX=/usr DESTDIR="$S" uninstall >/dev/null 2>&1 && ok || bad "make uninstall DESTDIR"
left=$(find "$S" ! -type d)
[ "$left" = "$S/usr/share/attend/lessons/99-mine.json" ] && ok || bad "after uninstall with a file of the user's, left: $left"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

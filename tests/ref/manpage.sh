#!/usr/bin/env bash
# manpage.sh - attend(1) (docs/attend.1) is mandoc-lint clean and documents every subcommand,
# every option each --help prints (in that subcommand's own section) and every environment
# variable the code reads.
source "$(dirname "$0")/cli_lib.bash"
MAN=docs/attend.1

if ! command -v mandoc >/dev/null 2>&1; then
    echo "mandoc is not installed (./setup.sh deps test installs it)"
    echo "0 passed, 1 failed"
    exit 1
fi
lint=$(mandoc -T lint "$MAN" 2>&1)
if [ -z "$lint" ]; then ok; else bad "mandoc -T lint $MAN:"; echo "$lint" | head -20; fi

# section TITLE: the mdoc source of one .Ss (or .Sh) section, up to the next heading
section() {
    awk -v t="$1" '/^\.S[sh] / { on = (substr($0, 5) == t); next } on' "$MAN"
}
# options in a --help text: every --word (--help itself is documented once, for all)
options_of() { grep -oE -- '--[a-z][a-z0-9-]*' | grep -vx -- '--help' | sort -u; }

subs=$("$A" --help | sed -n '/^subcommands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
[ "$(wc -w <<<"$subs")" -ge 6 ] && ok || bad "attend --help lists too few subcommands: $subs"
for s in $subs; do
    body=$(section "$s")
    if [ -z "$body" ]; then bad "no '.Ss $s' section in $MAN"; continue; fi
    ok
    grep -qE "^\.Nm$" <<<"$body" && grep -qxF ".Cm $s" <<<"$body" || bad "$s: no synopsis line in its section"
    n=0
    for o in $("$A" "$s" --help 2>&1 | options_of); do
        n=$((n + 1))
        if grep -qE -- "Fl ${o#-}( |$)" <<<"$body"; then ok; else bad "$s: option $o (attend $s --help) not in its section of $MAN"; fi
    done
    [ "$n" -gt 0 ] || bad "$s --help printed no options"
done

# The player's options: attend --help's usage (above its list of subcommands) and the player's
# own usage (which adds --mouse)
body=$(section DESCRIPTION)
for o in $( { "$A" --help | sed '/^subcommands:/q'; "$A" --lessons lessons --help; } 2>&1 | options_of) --version; do
    if grep -qE -- "Fl ${o#-}( |$)" <<<"$body"; then ok; else bad "player option $o not in the DESCRIPTION of $MAN"; fi
done

# Every environment variable the code reads is in ENVIRONMENT
body=$(section ENVIRONMENT)
vars=$(grep -rhoE 'getenv\("[A-Z_]+"\)' src | sed 's/getenv("\(.*\)")/\1/' | sort -u)
for v in $vars NO_COLOR XDG_STATE_HOME ATTEND_DATA; do
    if grep -qE "Ev $v( |$)" <<<"$body"; then ok; else bad "environment variable $v (read by src/) not in ENVIRONMENT of $MAN"; fi
done

# The sections a manual page needs, and examples of a lecture, a quiz and a dump
for h in NAME SYNOPSIS DESCRIPTION KEYS ENVIRONMENT FILES "EXIT STATUS" EXAMPLES; do
    grep -qxF ".Sh $h" "$MAN" && ok || bad "no .Sh $h in $MAN"
done
ex=$(section EXAMPLES)
for want in 'attend --lesson ' 'attend quiz ' 'attend dump .*--format json'; do
    grep -qE -- "$want" <<<"$ex" && ok || bad "EXAMPLES lack /$want/"
done
# The progress file the man page names is the one the code writes
grep -q 'attend/progress.json' src/course/progress.c && grep -qF 'Pa $XDG_STATE_HOME/attend/progress.json' "$MAN" \
    && ok || bad "FILES does not name \$XDG_STATE_HOME/attend/progress.json as src/course/progress.c does"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

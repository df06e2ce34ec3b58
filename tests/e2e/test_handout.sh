#!/usr/bin/env bash
# `attend handout` in a real browser: headless Chromium (Debian's chromium, installed here
# when root and missing) loads the handout from disk, prints it to PDF and takes screenshots.
# Asserts: one section per lesson (in the DOM and at least one printed page each), no "{{"
# or "[?" left, not blank, no JavaScript and no network references, answers only with
# --answers. Prints "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
A=${ATTEND:-./attend}
case $A in /*) ;; *) A=$PWD/$A ;; esac
PY=/usr/bin/python3
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "FAIL - $1"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }

browser() { command -v chromium || command -v chromium-browser || command -v google-chrome; } 2>/dev/null
if [ -z "$(browser)" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium \
        >/dev/null 2>&1
fi
B=$(browser)
if [ -z "$B" ] || [ ! -x "$PY" ]; then
    echo "SKIP: headless Chromium (or $PY) is missing and could not be installed:" \
         "apt-get install -y chromium python3"
    echo "0 passed, 0 failed"
    exit 0
fi
# One private profile per run; never the network (the handout must not need it).
chrome() {
    timeout 600 "$B" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --user-data-dir="$tmp/profile" --no-first-run --disable-extensions \
        --proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>' "$@" 2>>"$tmp/chrome.log"
}
# not_blank PNG: many non-white pixels and more than a few colours
not_blank() {
    "$PY" - "$1" <<'EOF'
import sys
sys.path.insert(0, "tests/ref")
from export_check import png_pixels
w, h, px = png_pixels(sys.argv[1])
seen, ink, n = set(), 0, 0
for y in range(0, h, 3):
    for x in range(0, w, 3):
        p = px(x, y)
        seen.add(p)
        n += 1
        ink += sum(p) < 700
print("%dx%d: %.1f%% ink, %d colours" % (w, h, 100.0 * ink / n, len(seen)))
sys.exit(0 if ink > n * 0.01 and len(seen) > 8 else 1)
EOF
}

lessons=$(ls lessons/[0-9]*.json | wc -l)
H=$tmp/handout
out=$("$A" handout -o "$H" 2>&1)
check "handout writes its files ($out)" test -f "$H/index.html" -a -f "$H/all.html"
check "one HTML page per lesson ($lessons)" test "$(ls "$H"/[0-9]*.html | wc -l)" = "$lessons"
check "no JavaScript" bash -c "! grep -qi '<script\|javascript:\|onload=' '$H'/*.html"
check "no network references" bash -c "! grep -o '\(src\|href\)=\"[a-z]*://[^\"]*' '$H'/*.html | grep -q ."
check "no {{ or [? in the HTML" bash -c "! grep -l '{{\|\[?' '$H'/*.html"
check "print CSS: lessons on new pages, figures never split" \
    grep -q 'break-before:page' "$H/all.html"
grep -q 'figure{[^}]*break-inside:avoid' "$H/all.html" && ok "figures never split" || bad "figures never split"
check "no answers without --answers" bash -c "! grep -q 'Answer:' '$H/all.html'"
check "the questions are there" grep -q '<section class="questions">' "$H/all.html"

# the browser's DOM of all.html: one section per lesson, every figure, nothing unresolved
chrome --dump-dom "file://$H/all.html" >"$tmp/dom.html"
n=$(grep -o '<section class="lesson"' "$tmp/dom.html" | wc -l)
check "the browser sees one section per lesson ($n of $lessons)" test "$n" = "$lessons"
figs=$(grep -o '<svg' "$tmp/dom.html" | wc -l)
check "the browser sees the figures ($figs)" test "$figs" -ge 50
check "no {{ or [? in the rendered DOM" bash -c "! grep -q '{{\|\[?' '$tmp/dom.html'"

# printed to PDF: at least one page per lesson (each lesson starts a new page)
chrome --no-pdf-header-footer --print-to-pdf-no-header --print-to-pdf="$tmp/all.pdf" \
    "file://$H/all.html" >/dev/null
pages=$("$PY" -c 'import re,sys; print(len(re.findall(rb"/Type\s*/Page[^s]", open(sys.argv[1],"rb").read())))' "$tmp/all.pdf" 2>/dev/null || echo 0)
check "the PDF has a page or more per lesson ($pages pages, $lessons lessons)" test "$pages" -ge "$lessons"
check "the PDF is not empty" test "$(stat -c %s "$tmp/all.pdf" 2>/dev/null || echo 0)" -gt 20000

# screenshots are not blank
for page in index.html 07-causal-mask.html; do
    chrome --window-size=1000,1400 --screenshot="$tmp/shot.png" "file://$H/$page" >/dev/null
    if [ -s "$tmp/shot.png" ] && res=$(not_blank "$tmp/shot.png"); then ok "screenshot of $page ($res)"
    else bad "screenshot of $page is blank or missing"; fi
    rm -f "$tmp/shot.png"
done

# --answers, one lesson
out=$("$A" handout --lesson causal-mask --answers -o "$tmp/one" 2>&1)
check "one lesson: index and one page ($out)" test "$(ls "$tmp/one" | wc -l)" = 3
check "--answers writes the answers" grep -q 'Answer:' "$tmp/one/all.html"
chrome --dump-dom "file://$tmp/one/all.html" >"$tmp/dom1.html"
check "one lesson, one section" test "$(grep -o '<section class="lesson"' "$tmp/dom1.html" | wc -l)" = 1

# errors
"$A" handout >/dev/null 2>&1
check "no -o: usage error (2)" test $? = 2
err=$("$A" handout --lesson nope -o "$tmp/x" 2>&1)
check "unknown lesson named ($err)" grep -q 'no lesson "nope"' <<<"$err"
: >"$tmp/file"
err=$("$A" handout -o "$tmp/file" 2>&1)
check "an -o that is a file is reported ($err)" grep -q "$tmp/file" <<<"$err"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

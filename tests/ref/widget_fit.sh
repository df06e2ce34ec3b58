#!/usr/bin/env bash
# check-lessons and self-scrolling widgets (80x24 first): a heatmap, a matrix table, a shape
# passport and small multiples (every head) that show only some of their rows at 80x24 under
# long prose are each reported with the widget's name and the rows out of sight
# (tests/fixtures/fit/scrolls; before, a widget that scrolls by itself was never reported); the
# same pages fit 200x60; a page that fits its own sentence is not reported for the longer
# sentences the walk types (they may scroll: the learner chose them, and the editor says so);
# a page that fits in UTF-8 but not with the ASCII fallback's wider spellings is reported so.
# Prints "N passed, N failed".
. "$(dirname "$0")/cli_lib.bash"
F=tests/fixtures/fit
out=$("$A" check-lessons --samples 0 "$F/scrolls" 2>&1); rc=$?
[ "$rc" = 1 ] && ok || bad "check-lessons on $F/scrolls: exit $rc (want 1)"
pages=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["pages"]))' \
    "$F/scrolls/01-scrolls.json")
grep -qF "1 lesson, $pages pages, $pages problems" <<<"$out" && ok ||
    bad "every page of $F/scrolls reported once: $(tail -1 <<<"$out")"
# each page by its index and its widget's name
while read -r p w; do
    line=$(grep -E "01-scrolls.json:[0-9]+:[0-9]+: pages\[$p\]: does not fit 80x24 on its first screen: the $w widget has [1-9][0-9]* rows? out of sight" <<<"$out")
    [ -n "$line" ] && ok || bad "pages[$p] ($w) is not reported as scrolling: $out"
done < <(python3 -c 'import json,sys
for i, p in enumerate(json.load(open(sys.argv[1]))["pages"]): print(i, p["widget"]["kind"])' \
    "$F/scrolls/01-scrolls.json")
expect 0 '0 problems' -- "$A" check-lessons --samples 0 --size 200x60 "$F/scrolls"
# the screen is measured with the ASCII glyphs too (LANG=C: "sqrt" for the root sign)
expect 1 'on its first screen with the ASCII glyphs (LANG=C): the prose is 2 lines over' -- \
    "$A" check-lessons --samples 0 "$F/ascii"
# the page fits its own sentence: the walk's longer sentences (20 of them) are allowed to scroll
expect 0 '1 page, 0 problems' -- "$A" check-lessons --samples 20 "$F/fits"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

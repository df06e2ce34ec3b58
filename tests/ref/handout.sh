#!/usr/bin/env bash
# handout.sh - `attend handout` for print, headless: the prose and questions carry no key
# instructions ("Press m ...", "(g: lessons)"), every ramp legend spans a real range (a
# matrix of one value gets a one-value legend, not "0.00 ... 0.00"), and every page with a
# widget has its figure or a note saying why not. Expectations come from lessons/.
source "$(dirname "$0")/cli_lib.bash"
out=$tmp/handout
"$A" handout -o "$out" >/dev/null 2>"$tmp/err" && ok || { bad "attend handout: $(cat "$tmp/err")"; }
/usr/bin/python3 - "$out" lessons >"$tmp/report" <<'PY'
import glob, html, json, os, re, sys
out, lessons = sys.argv[1], sys.argv[2]
bad = []
allh = open(os.path.join(out, "all.html"), encoding="utf-8").read()
# the printed words: paragraphs and list items, code (the commands to type) left out
for m in re.findall(r"<(?:p|li)>(.*?)</(?:p|li)>", allh, re.S):
    t = html.unescape(re.sub(r"<code>.*?</code>", "", m, flags=re.S))
    t = re.sub(r"<[^>]+>", "", t)
    if re.search(r"\b[Pp]ress \S", t):
        bad.append("key instruction in print: " + t[:120])
    if re.search(r"\(\S: [a-z]", t):
        bad.append("key hint in print: " + t[:120])
# ramp legends: lo, the ramp, hi
for lo, hi in re.findall(r'>([^<]*)</text>\n<rect [^>]*fill="url\(#ramp\d+\)"[^>]*/>\n<text [^>]*>([^<]*)</text>', allh):
    if lo == hi:
        bad.append("a legend from %s to %s" % (lo, hi))
# every page with a widget: a figure or a note why not
for f in sorted(glob.glob(os.path.join(lessons, "[0-9]*.json"))):
    L = json.load(open(f, encoding="utf-8"))
    for i, p in enumerate(L["pages"]):
        if p.get("widget", {}).get("kind", "none") == "none":
            continue
        sid = 'id="%s-p%d"' % (L["id"], i + 1)
        at = allh.find(sid)
        sec = allh[at:allh.find("</section>", at)] if at >= 0 else ""
        if "<figure>" not in sec and 'class="nofig"' not in sec:
            bad.append("%s page %d: no figure and no note why" % (L["id"], i + 1))
print("\n".join(bad) if bad else "clean")
PY
[ "$(cat "$tmp/report")" = clean ] && ok || { bad "handout for print:"; head -20 "$tmp/report"; }
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
